"""Anthropic's native Messages API: request bodies and a stream decoder.

The conversation arrives in aish's neutral form (OpenAI-like roles); this module moves the
system prompt to its own field, turns tool calls and results into content blocks and merges
consecutive user turns, which the API requires to alternate.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from aish.llm.adapters import WireAdapter
from aish.llm.errors import ProtocolError, StreamErrorEvent, TruncatedStreamError
from aish.llm.http_errors import server_error_in
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

API_VERSION = "2023-06-01"
# The API requires max_tokens; used when the preset does not set one.
DEFAULT_MAX_TOKENS = 4096

_STOP_REASONS: dict[str, FinishReason] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "tool_use": "tool_calls",
    "refusal": "content_filter",
}


def _v1_base(target: ModelTarget) -> str:
    # Users write the endpoint with or without `/v1`.
    return target.endpoint.rstrip("/").removesuffix("/v1") + "/v1"


def messages_url(target: ModelTarget) -> str:
    return _v1_base(target) + "/messages"


def models_url(target: ModelTarget) -> str:
    return _v1_base(target) + "/models"


def auth_headers(target: ModelTarget) -> dict[str, str]:
    headers = {"anthropic-version": API_VERSION}
    if target.api_key:
        headers["x-api-key"] = target.api_key
    headers.update(dict(target.headers))
    return headers


def request_headers(target: ModelTarget) -> dict[str, str]:
    return {"Accept": "text/event-stream", **auth_headers(target)}


def request_body(
    target: ModelTarget, messages: Sequence[Message], tools: Sequence[ToolSpec] | None
) -> dict[str, Any]:
    system = "\n\n".join(m.content for m in messages if m.role == "system")
    body: dict[str, Any] = {
        "model": target.model,
        "max_tokens": target.max_tokens or DEFAULT_MAX_TOKENS,
    }
    if system:
        body["system"] = system
    body["messages"] = _turns(messages, tools_defined=bool(tools))
    if tools:
        body["tools"] = [
            {"name": t.name, "description": t.description, "input_schema": t.parameters}
            for t in tools
        ]
    if target.temperature is not None:
        body["temperature"] = target.temperature
    body["stream"] = True
    return body


def _turns(messages: Sequence[Message], *, tools_defined: bool) -> list[dict[str, Any]]:
    turns: list[dict[str, Any]] = []
    for message in messages:
        if message.role == "system":
            continue
        role = "assistant" if message.role == "assistant" else "user"
        blocks = _blocks(message) if tools_defined else _text_blocks(message)
        if not blocks:
            continue
        if turns and turns[-1]["role"] == role:
            turns[-1]["content"].extend(blocks)
        else:
            turns.append({"role": role, "content": blocks})
    return turns


def _blocks(message: Message) -> list[dict[str, Any]]:
    if message.role == "tool":
        return [
            {
                "type": "tool_result",
                "tool_use_id": message.tool_call_id or "",
                "content": message.content,
            }
        ]
    blocks: list[dict[str, Any]] = []
    if message.content:
        blocks.append({"type": "text", "text": message.content})
    for call in message.tool_calls:
        try:
            arguments = call.parsed_arguments()
        except ValueError:
            arguments = {}
        blocks.append({"type": "tool_use", "id": call.id, "name": call.name, "input": arguments})
    return blocks


def _text_blocks(message: Message) -> list[dict[str, Any]]:
    """Tool rounds as plain text, for a request that offers no tools: the API refuses
    `tool_use`/`tool_result` blocks without a `tools` list (the servers went down, the user
    switched to a preset without tools, a side question on the conversation)."""
    if message.role == "tool":
        text = f"[result of tool call {message.tool_call_id or '?'}]\n{message.content}"
        return [{"type": "text", "text": text}]
    blocks: list[dict[str, Any]] = []
    if message.content:
        blocks.append({"type": "text", "text": message.content})
    for call in message.tool_calls:
        text = f"[tool call {call.id}: {call.name} {call.arguments}]"
        blocks.append({"type": "text", "text": text})
    return blocks


@dataclass
class _Block:
    kind: str
    id: str = ""
    name: str = ""
    json_parts: list[str] = field(default_factory=list)
    initial_input: Any = None


class AnthropicStreamDecoder:
    """Feed named SSE events; get broker events."""

    def __init__(self) -> None:
        self.text_seen = ""
        # Characters of tool-call arguments received (held until a block ends), for the cap.
        self.tool_chars = 0
        self._blocks: dict[int, _Block] = {}
        self._input_tokens = 0
        self._cache_read = 0
        self._cache_write = 0
        self._output_tokens = 0
        self._usage_seen = False
        self._stop_reason: str | None = None
        self._done = False

    @property
    def finished(self) -> bool:
        return self._done

    def feed(self, event: ServerSentEvent) -> list[StreamEvent]:
        if self._done:
            return []
        if not event.data.strip():
            if event.event == "error":
                raise StreamErrorEvent("the server reported an error", partial=self.text_seen)
            return []
        try:
            payload = json.loads(event.data)
        except ValueError:
            raise ProtocolError(
                f"unreadable stream event: {event.data[:80]!r}", partial=self.text_seen
            ) from None
        kind = event.event or (payload.get("type") if isinstance(payload, dict) else None)
        error = server_error_in(payload)
        if kind == "error" or error is not None:
            raise StreamErrorEvent(
                error.message if error else "the server reported an error",
                status=error.status if error else None,
                partial=self.text_seen,
            )
        if not isinstance(payload, dict):
            raise ProtocolError("unexpected stream event", partial=self.text_seen)
        handler = getattr(self, f"_on_{kind}", None)
        return handler(payload) if handler is not None else []

    def end(self) -> list[StreamEvent]:
        if self._done:
            return []
        if self._stop_reason is None:
            raise TruncatedStreamError(
                "the stream ended before the reply did", partial=self.text_seen
            )
        return self._on_message_stop({})

    def _on_message_start(self, payload: dict[str, Any]) -> list[StreamEvent]:
        usage = (payload.get("message") or {}).get("usage") or {}
        self._read_usage(usage)
        return []

    def _on_content_block_start(self, payload: dict[str, Any]) -> list[StreamEvent]:
        block = payload.get("content_block") or {}
        self._blocks[int(payload.get("index", 0))] = _Block(
            kind=str(block.get("type", "")),
            id=str(block.get("id", "")),
            name=str(block.get("name", "")),
            initial_input=block.get("input"),
        )
        text = block.get("text")
        if block.get("type") == "text" and isinstance(text, str) and text:
            self.text_seen += text
            return [TextDelta(text)]
        return []

    def _on_content_block_delta(self, payload: dict[str, Any]) -> list[StreamEvent]:
        delta = payload.get("delta") or {}
        kind = delta.get("type")
        if kind == "text_delta" and delta.get("text"):
            self.text_seen += delta["text"]
            return [TextDelta(delta["text"])]
        if kind == "thinking_delta" and delta.get("thinking"):
            return [ReasoningDelta(delta["thinking"])]
        if kind == "input_json_delta":
            block = self._blocks.setdefault(int(payload.get("index", 0)), _Block("tool_use"))
            part = str(delta.get("partial_json") or "")
            block.json_parts.append(part)
            self.tool_chars += len(part)
        return []

    def _on_content_block_stop(self, payload: dict[str, Any]) -> list[StreamEvent]:
        block = self._blocks.get(int(payload.get("index", 0)))
        if block is None or block.kind != "tool_use":
            return []
        arguments = "".join(block.json_parts)
        if not arguments.strip():
            arguments = json.dumps(block.initial_input or {})
        return [ToolCallReady(ToolCall(id=block.id, name=block.name, arguments=arguments))]

    def _on_message_delta(self, payload: dict[str, Any]) -> list[StreamEvent]:
        reason = (payload.get("delta") or {}).get("stop_reason")
        if isinstance(reason, str):
            self._stop_reason = reason
        self._read_usage(payload.get("usage") or {})
        return []

    def _on_message_stop(self, payload: dict[str, Any]) -> list[StreamEvent]:
        self._done = True
        events: list[StreamEvent] = []
        if self._usage_seen:
            events.append(
                Usage(
                    prompt_tokens=self._input_tokens + self._cache_read + self._cache_write,
                    completion_tokens=self._output_tokens,
                    cached_tokens=self._cache_read,
                )
            )
        raw = self._stop_reason or "end_turn"
        events.append(Finish(_STOP_REASONS.get(raw, "other"), raw))
        return events

    def _read_usage(self, usage: dict[str, Any]) -> None:
        # message_delta counts are cumulative: the latest value replaces the earlier one.
        for key, attr in (
            ("input_tokens", "_input_tokens"),
            ("cache_read_input_tokens", "_cache_read"),
            ("cache_creation_input_tokens", "_cache_write"),
            ("output_tokens", "_output_tokens"),
        ):
            value = usage.get(key)
            if isinstance(value, int):
                setattr(self, attr, value)
                self._usage_seen = True


def decode_message(payload: Any) -> list[StreamEvent]:
    """A whole (non-streamed) Messages API reply."""
    error = server_error_in(payload)
    if error is not None:
        raise StreamErrorEvent(error.message, status=error.status)
    if not isinstance(payload, dict) or not isinstance(payload.get("content"), list):
        raise ProtocolError("the reply is JSON but not a message")
    decoder = AnthropicStreamDecoder()
    decoder._read_usage(payload.get("usage") or {})
    events: list[StreamEvent] = []
    for index, block in enumerate(payload["content"]):
        events += decoder._on_content_block_start({"index": index, "content_block": block})
        if block.get("type") == "thinking" and block.get("thinking"):
            events.append(ReasoningDelta(block["thinking"]))
        events += decoder._on_content_block_stop({"index": index})
    decoder._stop_reason = str(payload.get("stop_reason") or "end_turn")
    return events + decoder.end()


# This format's entry in the broker's adapter seam (`adapters._MODULES["anthropic"]`).
ADAPTER = WireAdapter(
    chat_url=messages_url,
    models_url=models_url,
    auth_headers=auth_headers,
    request_headers=request_headers,
    request_body=request_body,
    stream_decoder=AnthropicStreamDecoder,
    decode_whole=decode_message,
)
