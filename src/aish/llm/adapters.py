"""The adapter seam: one wire format per `api` name, looked up, never branched on.

A wire adapter says how a request to a model is written and how its reply is read: the chat
and model-listing URLs, the headers, the JSON body, the SSE stream decoder and the decoder of a
whole (non-streamed) JSON reply. The broker and the model listing ask `adapter_for(target.api)`
and treat every format alike.

A new wire format is one new module that defines `ADAPTER = WireAdapter(...)` plus one line in
`_MODULES` below (and its name in `aish.endpoints.Api`, the names a preset may give; a test
checks the two agree). Adapter modules are imported on first use, so a format nobody uses costs
nothing.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from aish.endpoints import Api
    from aish.llm.sse import ServerSentEvent
    from aish.llm.types import Message, ModelTarget, StreamEvent, ToolSpec

__all__ = ["ADAPTER_NAMES", "StreamDecoder", "WireAdapter", "adapter_for"]


class StreamDecoder(Protocol):
    """Turns one reply's server-sent events into stream events (one decoder per reply)."""

    text_seen: str
    tool_chars: int

    def feed(self, event: ServerSentEvent) -> list[StreamEvent]: ...
    def end(self) -> list[StreamEvent]: ...

    @property
    def finished(self) -> bool: ...


@dataclass(frozen=True)
class WireAdapter:
    """What the broker needs of one wire format."""

    chat_url: Callable[[ModelTarget], str]
    models_url: Callable[[ModelTarget], str]
    # The key's headers alone (for the model listing) and everything a chat request sends.
    auth_headers: Callable[[ModelTarget], dict[str, str]]
    request_headers: Callable[[ModelTarget], dict[str, str]]
    request_body: Callable[
        [ModelTarget, Sequence[Message], Sequence[ToolSpec] | None], dict[str, Any]
    ]
    stream_decoder: Callable[[], StreamDecoder]
    # A whole JSON reply, for servers that answer a streaming request without streaming.
    decode_whole: Callable[[Any], list[StreamEvent]]


# `api` name → the module whose `ADAPTER` speaks it.
_MODULES: dict[str, str] = {
    "openai": "aish.llm.openai_protocol",
    "anthropic": "aish.llm.anthropic_protocol",
}

ADAPTER_NAMES = frozenset(_MODULES)


def adapter_for(api: Api) -> WireAdapter:
    """The adapter for a target's `api`; `KeyError` for a name no module speaks (the config
    schema admits only `Api` names, so that is a bug, not a user error)."""
    adapter: WireAdapter = importlib.import_module(_MODULES[api]).ADAPTER
    return adapter
