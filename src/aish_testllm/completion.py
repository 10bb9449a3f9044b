"""The resolved content of one scripted answer, independent of the wire format."""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Callable
from dataclasses import dataclass

from aish_testllm.chat_request import ChatRequest
from aish_testllm.prefix import PrefixReuse
from aish_testllm.scenario import Reply, ToolCall, UsageOverride
from aish_testllm.tokens import CHARS_PER_TOKEN
from aish_testllm.usage import Usage, compute_usage


@dataclass(frozen=True)
class ResolvedToolCall:
    """A tool call with its id assigned and its arguments as JSON text."""

    id: str
    name: str
    arguments: str


@dataclass(frozen=True)
class Completion:
    """Everything a wire-format module needs to render a reply."""

    n: int
    model: str
    created: int
    reasoning: str
    text: str
    tool_calls: tuple[ResolvedToolCall, ...]
    finish_reason: str
    usage: Usage  # always computed (llama.cpp timings use it even when usage is not sent)
    send_usage: bool


def pieces(text: str, size: int) -> list[str]:
    """``text`` cut into consecutive pieces of ``size`` characters (none for empty text)."""
    return [text[i : i + size] for i in range(0, len(text), size)]


def arguments_text(call: ToolCall) -> str:
    """Arguments as JSON text: objects are serialised compactly, strings are kept verbatim."""
    if isinstance(call.arguments, str):
        return call.arguments
    return json.dumps(call.arguments, ensure_ascii=False, separators=(",", ":"))


class IdSource:
    """Server-wide counter for default tool call ids (``call_1``, ``call_2``, …)."""

    def __init__(self) -> None:
        self._counter = itertools.count(1)

    def next_id(self, prefix: str) -> str:
        """A fresh id such as ``call_7``."""
        return f"{prefix}{next(self._counter)}"


def resolve(
    reply: Reply,
    request: ChatRequest,
    *,
    n: int,
    reuse: PrefixReuse,
    default_model: str,
    new_id: Callable[[], str],
    chars_per_token: float = CHARS_PER_TOKEN,
) -> Completion:
    """Turn a scripted reply into concrete content for request number ``n``."""
    calls = tuple(
        ResolvedToolCall(id=call.id or new_id(), name=call.name, arguments=arguments_text(call))
        for call in reply.tool_calls
    )
    usage = compute_usage(
        reply.usage or UsageOverride(),
        prompt_chars=len(request.prompt),
        cached_chars=reuse.chars,
        completion_chars=len(reply.text)
        + len(reply.reasoning)
        + sum(len(c.arguments) for c in calls),
        reasoning_chars=len(reply.reasoning),
        chars_per_token=chars_per_token,
    )
    return Completion(
        n=n,
        model=request.model or default_model,
        created=int(time.time()),
        reasoning=reply.reasoning,
        text=reply.text,
        tool_calls=calls,
        finish_reason=reply.effective_finish_reason,
        usage=usage,
        send_usage=reply.usage is not None,
    )
