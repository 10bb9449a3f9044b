"""Anthropic Messages API: the named-event stream and the non-stream ``message`` body."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from aish_testllm.completion import Completion, pieces
from aish_testllm.scenario import Reply
from aish_testllm.sse import SseEvent, data_event
from aish_testllm.usage import Usage

_STOP_REASONS = {"stop": "end_turn", "tool_calls": "tool_use", "length": "max_tokens"}


def stop_reason(finish_reason: str) -> str:
    """Map an OpenAI finish reason to an Anthropic stop reason (others pass through)."""
    return _STOP_REASONS.get(finish_reason, finish_reason)


def _signature(completion: Completion) -> str:
    return "sig_" + hashlib.sha256(completion.reasoning.encode()).hexdigest()[:32]


def _start_usage(usage: Usage) -> dict[str, Any]:
    return {
        "input_tokens": usage.uncached_prompt_tokens,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": usage.cached_tokens,
        "output_tokens": 1,
    }


def _message_header(completion: Completion) -> dict[str, Any]:
    return {
        "id": f"msg_{completion.n}",
        "type": "message",
        "role": "assistant",
        "model": completion.model,
    }


def _event(payload: dict[str, Any], content: bool = False) -> SseEvent:
    return data_event(payload, event=payload["type"], content=content)


def _block(index: int, block: dict[str, Any], deltas: list[dict[str, Any]]) -> list[SseEvent]:
    events = [_event({"type": "content_block_start", "index": index, "content_block": block})]
    for delta in deltas:
        payload = {"type": "content_block_delta", "index": index, "delta": delta}
        events.append(_event(payload, content=True))
    events.append(_event({"type": "content_block_stop", "index": index}))
    return events


def _blocks(completion: Completion, reply: Reply) -> list[SseEvent]:
    size = reply.chunk_size
    blocks: list[tuple[dict[str, Any], list[dict[str, Any]]]] = []
    if completion.reasoning:
        deltas = [
            {"type": "thinking_delta", "thinking": p} for p in pieces(completion.reasoning, size)
        ]
        deltas.append({"type": "signature_delta", "signature": _signature(completion)})
        blocks.append(({"type": "thinking", "thinking": "", "signature": ""}, deltas))
    if completion.text or not completion.tool_calls:
        deltas = [{"type": "text_delta", "text": p} for p in pieces(completion.text, size)]
        blocks.append(({"type": "text", "text": ""}, deltas))
    for call in completion.tool_calls:
        fragments = ["", *pieces(call.arguments, size)]
        deltas = [{"type": "input_json_delta", "partial_json": f} for f in fragments]
        block = {"type": "tool_use", "id": call.id, "name": call.name, "input": {}}
        blocks.append((block, deltas))
    events: list[SseEvent] = []
    for index, (block, deltas) in enumerate(blocks):
        events.extend(_block(index, block, deltas))
    return events


def anthropic_events(completion: Completion, reply: Reply) -> list[SseEvent]:
    """The complete event sequence of a successful stream, ending with ``message_stop``."""
    message: dict[str, Any] = {
        **_message_header(completion),
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
    }
    if completion.send_usage:
        message["usage"] = _start_usage(completion.usage)
    events = [_event({"type": "message_start", "message": message}), _event({"type": "ping"})]
    events.extend(_blocks(completion, reply))
    message_delta: dict[str, Any] = {
        "type": "message_delta",
        "delta": {"stop_reason": stop_reason(completion.finish_reason), "stop_sequence": None},
    }
    if completion.send_usage:
        message_delta["usage"] = {"output_tokens": completion.usage.completion_tokens}
    events.append(_event(message_delta))
    events.append(_event({"type": "message_stop"}))
    return events


def _tool_input(arguments: str) -> Any:
    try:
        return json.loads(arguments)
    except json.JSONDecodeError:
        return arguments  # scripted invalid JSON is passed on so that clients can see it


def anthropic_body(completion: Completion) -> dict[str, Any]:
    """The ``message`` object of a non-stream response."""
    content: list[dict[str, Any]] = []
    if completion.reasoning:
        content.append(
            {
                "type": "thinking",
                "thinking": completion.reasoning,
                "signature": _signature(completion),
            }
        )
    if completion.text or not completion.tool_calls:
        content.append({"type": "text", "text": completion.text})
    for call in completion.tool_calls:
        content.append(
            {
                "type": "tool_use",
                "id": call.id,
                "name": call.name,
                "input": _tool_input(call.arguments),
            }
        )
    body: dict[str, Any] = {
        **_message_header(completion),
        "content": content,
        "stop_reason": stop_reason(completion.finish_reason),
        "stop_sequence": None,
    }
    if completion.send_usage:
        body["usage"] = {
            **_start_usage(completion.usage),
            "output_tokens": completion.usage.completion_tokens,
        }
    return body
