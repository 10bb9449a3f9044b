"""Token counts for the next request, self-calibrated per model from the usage servers report.

The offline estimate is deliberately cheap (it runs before every request): UTF-8 bytes / 4 over
everything a chat template renders — message text, tool calls, tool specs — plus a few tokens of
template overhead per message and per tool. Real tokenizers and templates differ from that by a
roughly constant factor per model, so each reported usage teaches the counter that factor
(reported prompt tokens / raw estimate, token-weighted over the last few requests). When the
next request merely extends the last one the server counted, the counted part is taken as
reported and only the appended messages are estimated.
"""

from __future__ import annotations

import json
import math
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from aish.llm.types import Message, ModelTarget, ToolSpec, Usage

BYTES_PER_TOKEN = 4.0
# Chat templates wrap each message in a few special tokens (`<|im_start|>user\n … <|im_end|>\n`).
MESSAGE_OVERHEAD = 4.0
TOOL_CALL_OVERHEAD = 4.0
TOOL_SPEC_OVERHEAD = 8.0
# How many recent reported requests the ratio is based on: enough to smooth out one odd request,
# few enough to follow a model switch behind an unchanged endpoint.
CALIBRATION_WINDOW = 8

Source = Literal["exact", "reported", "calibrated", "estimated"]


def model_key(target: ModelTarget) -> str:
    """The calibration key of a target: one per served model, whatever the preset's name."""
    return f"{target.endpoint}|{target.model}"


@dataclass(frozen=True)
class TokenCount:
    """A token count for one request and how it was arrived at.

    `source`: "exact" (the server counted it), "reported" (the prefix the server reported for
    the last request plus a calibrated estimate of what was appended), "calibrated" (the offline
    estimate scaled by this model's reported counts), "estimated" (uncalibrated).
    """

    tokens: int
    source: Source
    calibrated_from: int = 0  # reported requests the ratio is based on


def _units(text: str) -> int:
    # Bytes rather than characters: non-Latin scripts cost more tokens per character.
    # `surrogatepass`: a lone surrogate (from a broken reply) counts, never raises.
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


def _message_tokens(message: Message) -> float:
    units = (
        _units(message.content) + _units(message.tool_call_id or "") + _units(message.name or "")
    )
    overhead = MESSAGE_OVERHEAD
    for call in message.tool_calls:
        units += _units(call.id) + _units(call.name) + _units(call.arguments)
        overhead += TOOL_CALL_OVERHEAD
    return units / BYTES_PER_TOKEN + overhead


def _tool_tokens(tool: ToolSpec) -> float:
    schema = json.dumps(tool.parameters, ensure_ascii=False, separators=(",", ":"))
    units = _units(tool.name) + _units(tool.description) + _units(schema)
    return units / BYTES_PER_TOKEN + TOOL_SPEC_OVERHEAD


def raw_estimate(messages: Sequence[Message], tools: Sequence[ToolSpec] = ()) -> float:
    """The uncalibrated offline estimate (fractional tokens) of a prompt."""
    return sum(_message_tokens(m) for m in messages) + sum(_tool_tokens(t) for t in tools)


@dataclass(frozen=True)
class _Observed:
    messages: tuple[Message, ...]
    tools: tuple[ToolSpec, ...]
    prompt_tokens: int


@dataclass
class _ModelState:
    samples: deque[tuple[float, int]] = field(
        default_factory=lambda: deque(maxlen=CALIBRATION_WINDOW)
    )  # (raw estimate, reported prompt tokens)
    last: _Observed | None = None

    def ratio(self) -> float:
        """Reported / raw, token-weighted; requests wildly off the median ratio are left out."""
        if not self.samples:
            return 1.0
        import statistics  # not at start-up: it pulls in fractions, decimal, random

        median = statistics.median_low(reported / raw for raw, reported in self.samples)
        kept = [(r, n) for r, n in self.samples if median / 2 <= n / r <= median * 2]
        return sum(n for _, n in kept) / sum(r for r, _ in kept)


class TokenCounter:
    """Per-model token estimates, self-calibrated from usage the server reports."""

    def __init__(self) -> None:
        self._models: dict[str, _ModelState] = {}

    def estimate(
        self, model_key: str, messages: Sequence[Message], tools: Sequence[ToolSpec] = ()
    ) -> TokenCount:
        """The best available count for sending `messages` and `tools` to `model_key`."""
        state = self._models.get(model_key)
        if state is None or not state.samples:
            return TokenCount(math.ceil(raw_estimate(messages, tools)), "estimated")
        ratio = state.ratio()
        used = len(state.samples)
        last = state.last
        if last is not None and _extends(last, messages, tools):
            added = raw_estimate(messages[len(last.messages) :])
            return TokenCount(last.prompt_tokens + math.ceil(added * ratio), "reported", used)
        return TokenCount(math.ceil(raw_estimate(messages, tools) * ratio), "calibrated", used)

    def observe(
        self,
        model_key: str,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] | None,
        usage: Usage,
    ) -> None:
        """Learn from a request's reported usage; aish's own estimates teach nothing.

        `usage.prompt_tokens` must be the whole prompt: for Anthropic the broker already adds
        the cached and cache-written tokens to `input_tokens`.
        """
        if usage.estimated or usage.prompt_tokens <= 0:
            return
        tools = tuple(tools or ())
        raw = raw_estimate(messages, tools)
        if raw <= 0:
            return
        state = self._models.setdefault(model_key, _ModelState())
        state.samples.append((raw, usage.prompt_tokens))
        state.last = _Observed(tuple(messages), tools, usage.prompt_tokens)

    def calibrated_from(self, model_key: str) -> int:
        """How many reported requests the model's ratio is based on (0: uncalibrated)."""
        state = self._models.get(model_key)
        return len(state.samples) if state is not None else 0


def _extends(last: _Observed, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> bool:
    """Whether the prompt is the last counted one with messages appended (tools unchanged)."""
    n = len(last.messages)
    return (
        len(messages) >= n and tuple(tools) == last.tools and tuple(messages[:n]) == last.messages
    )


def format_token_report(
    count: TokenCount, *, budget: int, turns: int, max_turns: int, preset: str
) -> str:
    """The one line `:tokens` shows, e.g.

    `next request to fast: ~1,234 tokens of 8,192 (15%), 12 of 40 turns — calibrated from 3
    requests`.
    """
    if count.source == "exact":
        size = f"{count.tokens:,} tokens (counted by the server)"
    else:
        size = f"~{count.tokens:,} tokens"
    if budget > 0:
        size += f" of {budget:,} ({round(100 * count.tokens / budget)}%)"
    turn_text = f"{turns} of {max_turns} turns" if max_turns > 0 else f"{turns} turns"
    line = f"next request to {preset}: {size}, {turn_text}"
    requests = f"{count.calibrated_from} request" + ("" if count.calibrated_from == 1 else "s")
    if count.source == "reported":
        line += f" — last request as counted by the server, the rest calibrated from {requests}"
    elif count.source == "calibrated":
        line += f" — calibrated from {requests}"
    elif count.source == "estimated":
        line += " — estimated, not yet calibrated (no usage reported)"
    return line
