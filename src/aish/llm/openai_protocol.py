"""The OpenAI-compatible chat-completions protocol: request bodies and a stream decoder.

The decoder is pure: it turns parsed SSE events into broker events and knows every quirk the
servers aish meets are known to have (llama-server, Ollama, vLLM, LM Studio, OpenRouter, OpenAI):
comment pings, `usage: null` on every chunk, usage chunks with `choices` empty, null or missing,
tool calls in fragments or whole, two names for reasoning, error objects inside a 200 stream.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from aish.llm.adapters import WireAdapter
from aish.llm.errors import ProtocolError, StreamErrorEvent, TruncatedStreamError
from aish.llm.http_errors import ServerError, server_error_in
from aish.llm.sse import ServerSentEvent
from aish.llm.types import (
    Finish,
    FinishReason,
    Message,
    ModelTarget,
    ReasoningDelta,
    StreamEvent,
    TextDelta,
    ToolCall,
    ToolCallReady,
    ToolSpec,
    Usage,
)

_FINISH_REASONS: dict[str, FinishReason] = {
    "stop": "stop",
    "eos": "stop",
    "end_turn": "stop",
    "length": "length",
    "tool_calls": "tool_calls",
    "function_call": "tool_calls",
    "content_filter": "content_filter",
}


def chat_url(target: ModelTarget) -> str:
    return target.endpoint.rstrip("/") + "/chat/completions"


def models_url(target: ModelTarget) -> str:
    return target.endpoint.rstrip("/") + "/models"


def auth_headers(target: ModelTarget) -> dict[str, str]:
    headers = {"Authorization": f"Bearer {target.api_key}"} if target.api_key else {}
    headers.update(dict(target.headers))
    return headers


def request_headers(target: ModelTarget) -> dict[str, str]:
    return {"Accept": "text/event-stream", **auth_headers(target)}


def request_body(
    target: ModelTarget, messages: Sequence[Message], tools: Sequence[ToolSpec] | None
) -> dict[str, Any]:
    """The JSON body. Key order is fixed so identical inputs serialise to identical bytes."""
    body: dict[str, Any] = {
        "model": target.model,
        "messages": [_message_json(m) for m in messages],
        "stream": True,
        # Usage is always asked for; servers that ignore the option simply omit it.
        "stream_options": {"include_usage": True},
    }
    if tools:
        body["tools"] = [
            {
                "type": "function",
                "function": {
                    "name": t.name,
                    "description": t.description,
                    "parameters": t.parameters,
                },
            }
            for t in tools
        ]
    if target.max_tokens is not None:
        body["max_tokens"] = target.max_tokens
    if target.temperature is not None:
        body["temperature"] = target.temperature
    return body


def _message_json(message: Message) -> dict[str, Any]:
    if message.role == "tool":
        return {
            "role": "tool",
            "tool_call_id": message.tool_call_id or "",
            "content": message.content,
        }
    out: dict[str, Any] = {"role": message.role}
    if message.tool_calls:
        # Strict templates reject an empty string next to tool calls; null is the API's form.
        out["content"] = message.content or None
        out["tool_calls"] = [
            {
                "id": c.id,
                "type": "function",
                "function": {"name": c.name, "arguments": c.arguments},
            }
            for c in message.tool_calls
        ]
    else:
        out["content"] = message.content
    if message.name:
        out["name"] = message.name
    return out


@dataclass
class _PartialToolCall:
    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)


class OpenAIStreamDecoder:
    """Feed SSE events; get broker events. `end()` validates that the reply was complete."""

    def __init__(self) -> None:
        self.text_seen = ""
        # Characters of tool-call arguments received (held until `end`), for the reply cap.
        self.tool_chars = 0
        self._tool_calls: dict[int, _PartialToolCall] = {}
        self._last = 0  # index of the call the latest fragment went to
        self._finish_raw: str | None = None
        self._done = False
        self._usage: Usage | None = None
        self._timings: dict[str, Any] | None = None

    @property
    def finished(self) -> bool:
        return self._done

    def feed(self, event: ServerSentEvent) -> list[StreamEvent]:
        if self._done:
            return []
        if event.event == "error":
            raise self._error(_error_in_data(event.data))
        data = event.data.strip()
        if not data:
            return []
        if data == "[DONE]":
            self._done = True
            return self._closing_events()
        try:
            chunk = json.loads(data)
        except ValueError:
            raise ProtocolError(
                f"unreadable stream chunk: {data[:80]!r}", partial=self.text_seen
            ) from None
        error = server_error_in(chunk)
        if error is not None:
            raise self._error(error)
        if not isinstance(chunk, dict):
            raise ProtocolError(f"unexpected stream chunk: {data[:80]!r}", partial=self.text_seen)
        return self._chunk_events(chunk)

    def _error(self, error: ServerError) -> StreamErrorEvent:
        return StreamErrorEvent(error.message, status=error.status, partial=self.text_seen)

    def end(self) -> list[StreamEvent]:
        """The body ended. Without `[DONE]` the reply still counts if a finish reason came."""
        if self._done:
            return []
        if self._finish_raw is None:
            raise TruncatedStreamError(
                "the stream ended before the reply did", partial=self.text_seen
            )
        self._done = True
        return self._closing_events()

    def _chunk_events(self, chunk: dict[str, Any]) -> list[StreamEvent]:
        events: list[StreamEvent] = []
        if isinstance(chunk.get("timings"), dict):
            self._timings = chunk["timings"]
        usage = chunk.get("usage")
        if isinstance(usage, dict):
            self._usage = _usage_from(usage)
        for choice in chunk.get("choices") or ():
            if not isinstance(choice, dict) or choice.get("index", 0) != 0:
                continue
            events.extend(self._delta_events(choice.get("delta") or choice.get("message") or {}))
            reason = choice.get("finish_reason")
            if isinstance(reason, str) and reason:
                if reason.lower() == "error":
                    raise self._error(ServerError("the server reported an error", None))
                self._finish_raw = reason
        return events

    def _delta_events(self, delta: dict[str, Any]) -> list[StreamEvent]:
        events: list[StreamEvent] = []
        # vLLM sent both names during its rename: the first present one is the reasoning.
        for key in ("reasoning_content", "reasoning"):
            piece = delta.get(key)
            if isinstance(piece, str):
                if piece:
                    events.append(ReasoningDelta(piece))
                break
        content = delta.get("content")
        if isinstance(content, str) and content:
            self.text_seen += content
            events.append(TextDelta(content))
        for fragment in delta.get("tool_calls") or ():
            if isinstance(fragment, dict):
                self._add_tool_fragment(fragment)
        return events

    def _add_tool_fragment(self, fragment: dict[str, Any]) -> None:
        fragment_id = str(fragment.get("id") or "")
        index = fragment.get("index")
        if not isinstance(index, int):
            # No index: a fragment with an id starts a call, one without continues the last.
            index = len(self._tool_calls) if fragment_id or not self._tool_calls else self._last
        elif fragment_id and self._tool_calls.get(index, _PartialToolCall()).id not in (
            "",
            fragment_id,
        ):
            # Ollama streams parallel calls whole, each with index 0 and its own id.
            index = max(self._tool_calls) + 1
        self._last = index
        call = self._tool_calls.setdefault(index, _PartialToolCall())
        # Some servers repeat id/name as empty strings on later fragments: never overwrite.
        if fragment.get("id"):
            call.id = str(fragment["id"])
        function = fragment.get("function") or {}
        if function.get("name"):
            call.name = str(function["name"])
        arguments = function.get("arguments")
        if isinstance(arguments, dict):
            arguments = json.dumps(arguments)
        if isinstance(arguments, str):
            call.arguments.append(arguments)
            self.tool_chars += len(arguments)

    def _closing_events(self) -> list[StreamEvent]:
        events: list[StreamEvent] = [
            ToolCallReady(
                ToolCall(id=c.id or f"call_{i}", name=c.name, arguments="".join(c.arguments))
            )
            for i, c in sorted(self._tool_calls.items())
        ]
        usage = self._usage or _usage_from_timings(self._timings)
        if usage is not None:
            if self._timings is not None and usage.timings is None:
                usage = Usage(
                    usage.prompt_tokens,
                    usage.completion_tokens,
                    usage.cached_tokens or int(self._timings.get("cache_n") or 0),
                    usage.provider_cost_usd,
                    usage.estimated,
                    self._timings,
                )
            events.append(usage)
        raw = self._finish_raw
        reason: FinishReason = _FINISH_REASONS.get((raw or "stop").lower(), "other")
        if self._tool_calls and reason == "stop":
            reason = "tool_calls"
        events.append(Finish(reason, raw))
        return events


def _usage_from(usage: dict[str, Any]) -> Usage:
    details = usage.get("prompt_tokens_details") or {}
    cost = usage.get("cost")
    return Usage(
        prompt_tokens=int(usage.get("prompt_tokens") or 0),
        completion_tokens=int(usage.get("completion_tokens") or 0),
        cached_tokens=int(details.get("cached_tokens") or 0) if isinstance(details, dict) else 0,
        provider_cost_usd=float(cost) if isinstance(cost, int | float) else None,
    )


def _usage_from_timings(timings: dict[str, Any] | None) -> Usage | None:
    """llama-server's `timings` counts tokens exactly even when no usage chunk was sent."""
    if not timings or "prompt_n" not in timings:
        return None
    cache_n = int(timings.get("cache_n") or 0)
    return Usage(
        prompt_tokens=int(timings.get("prompt_n") or 0) + cache_n,
        completion_tokens=int(timings.get("predicted_n") or 0),
        cached_tokens=cache_n,
        timings=timings,
    )


def _error_in_data(data: str) -> ServerError:
    try:
        payload = json.loads(data)
    except ValueError:
        return ServerError(data.strip()[:200] or "the server reported an error", None)
    return server_error_in(payload) or ServerError(data.strip()[:200], None)


def decode_completion(payload: Any) -> list[StreamEvent]:
    """A whole (non-streamed) completion, for servers that ignore `stream: true`."""
    error = server_error_in(payload)
    if error is not None:
        raise StreamErrorEvent(error.message, status=error.status)
    if not isinstance(payload, dict) or not isinstance(payload.get("choices"), list):
        raise ProtocolError("the reply is JSON but not a chat completion")
    decoder = OpenAIStreamDecoder()
    events = decoder._chunk_events(payload)
    if decoder._finish_raw is None:
        decoder._finish_raw = "stop"
    return events + decoder.end()


# This format's entry in the broker's adapter seam (`adapters._MODULES["openai"]`).
ADAPTER = WireAdapter(
    chat_url=chat_url,
    models_url=models_url,
    auth_headers=auth_headers,
    request_headers=request_headers,
    request_body=request_body,
    stream_decoder=OpenAIStreamDecoder,
    decode_whole=decode_completion,
)
