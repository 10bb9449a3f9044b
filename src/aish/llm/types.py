"""Plain data crossing the broker's boundary: the resolved target, messages, tools and events.

Everything here is a frozen dataclass or a small mutable accumulator so that callers can build
requests and consume replies without importing httpx (which this module must never import).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

# Re-exported: the broker's types name the API a target speaks.
from aish.endpoints import Api as Api

Role = Literal["system", "user", "assistant", "tool"]


@dataclass(frozen=True)
class Rates:
    """Dollars per million tokens; None where the source has no figure."""

    input: float | None = None
    output: float | None = None
    cached_input: float | None = None


@dataclass(frozen=True)
class ModelTarget:
    """A model preset resolved for one request: where to send it and how.

    `endpoint` is the base URL as users write it: `http://127.0.0.1:8080/v1` for the OpenAI
    protocol (the broker appends `/chat/completions`), `https://api.anthropic.com` (with or
    without `/v1`) for Anthropic's Messages API.
    """

    name: str
    endpoint: str
    model: str
    api: Api = "openai"
    api_key: str | None = None
    connect_timeout_s: float = 5.0
    # Longest silence tolerated between two bytes of a reply; any byte (pings too) resets it.
    idle_timeout_s: float = 60.0
    max_tokens: int | None = None
    temperature: float | None = None
    max_retries: int = 2
    # Longest Retry-After the broker will honour by waiting; longer ones surface as errors.
    max_retry_wait_s: float = 20.0
    headers: tuple[tuple[str, str], ...] = ()
    # Characters of one reply read before the stream is closed and the reply cut
    # (`Finish("reply_cap")`); see `aish.llm.reply_cap`.
    max_reply_chars: int = 2_000_000
    # False: never offer tools to this model (small local models that mangle tool calls).
    tools: bool = True
    # The preset's own prices (they beat the bundled table); None: none configured.
    price: Rates | None = None
    # Every message to this model has its secrets replaced by placeholders first (the
    # preset's `secrets = "scrub"`, the default off this machine).
    scrub_secrets: bool = False


PresetResolver = Callable[[str], ModelTarget]
"""A preset name → its target, ready for the broker (its API key read at that moment); raises
`aish.errors.ConfigError` when the preset cannot be used. Made from the loaded config by
`aish.session.model_targets` and handed to the agent, which never reads the config's presets
itself."""


@dataclass(frozen=True)
class ToolCall:
    """A complete tool call: fragments are assembled before this is emitted."""

    id: str
    name: str
    arguments: str  # JSON text as the model produced it; validated by whoever runs the tool

    def parsed_arguments(self) -> dict[str, Any]:
        """The arguments as an object; `{}` for empty text, ValueError for anything else."""
        import json

        if not self.arguments.strip():
            return {}
        value = json.loads(self.arguments)
        if not isinstance(value, dict):
            raise ValueError("tool arguments are not a JSON object")
        return value


@dataclass(frozen=True)
class Message:
    role: Role
    content: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None  # for role == "tool"
    name: str | None = None


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    parameters: dict[str, Any]


# ---- events yielded by `stream_chat` -------------------------------------------------------


@dataclass(frozen=True)
class TextDelta:
    text: str


@dataclass(frozen=True)
class ReasoningDelta:
    text: str


@dataclass(frozen=True)
class ToolCallReady:
    call: ToolCall


@dataclass(frozen=True)
class Usage:
    prompt_tokens: int
    completion_tokens: int
    cached_tokens: int = 0
    # Cost reported by the provider itself (OpenRouter's `usage.cost`), in USD.
    provider_cost_usd: float | None = None
    # True when the server reported nothing and the counts are aish's own estimate.
    estimated: bool = False
    timings: dict[str, Any] | None = None


# `reply_cap`: aish stopped reading at the target's `max_reply_chars` (the reply is cut;
# `raw_reason` says which limit: `reply` for its characters, `wire` for what the server sent).
FinishReason = Literal["stop", "length", "tool_calls", "content_filter", "reply_cap", "other"]


@dataclass(frozen=True)
class Finish:
    reason: FinishReason
    raw_reason: str | None = None


StreamEvent = TextDelta | ReasoningDelta | ToolCallReady | Usage | Finish


@dataclass
class Reply:
    """Accumulates a stream's events; what `chat()` returns and what a cut stream leaves."""

    text: str = ""
    reasoning: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    usage: Usage | None = None
    finish: Finish | None = None
    cut: bool = False  # the stream ended early (error or cancellation); text is partial

    def add(self, event: StreamEvent) -> None:
        if isinstance(event, TextDelta):
            self.text += event.text
        elif isinstance(event, ReasoningDelta):
            self.reasoning += event.text
        elif isinstance(event, ToolCallReady):
            self.tool_calls.append(event.call)
        elif isinstance(event, Usage):
            self.usage = event
        else:
            self.finish = event
            self.cut = self.cut or event.reason == "reply_cap"
