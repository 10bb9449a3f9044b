"""OpenAI-compatible chat completions: the SSE chunk sequence and the non-stream body.

Shapes follow OpenAI, with the variations of llama-server (role chunk, ``reasoning_content``,
``timings``), Ollama (whole tool calls, ``fp_ollama``), vLLM (``reasoning``, null choices on the
usage chunk) and OpenRouter (``usage.cost``), as selected by the reply's options.
"""

from __future__ import annotations

import hashlib
from typing import Any

from aish_testllm.completion import Completion, pieces
from aish_testllm.scenario import Reply
from aish_testllm.sse import DONE, SseEvent, data_event
from aish_testllm.usage import Usage

_PROMPT_TOKENS_PER_SECOND = 1000.0
_PREDICTED_TOKENS_PER_SECOND = 50.0


def usage_json(usage: Usage) -> dict[str, Any]:
    """OpenAI ``usage`` object (with OpenRouter's ``cost`` when scripted)."""
    result: dict[str, Any] = {
        "prompt_tokens": usage.prompt_tokens,
        "completion_tokens": usage.completion_tokens,
        "total_tokens": usage.total_tokens,
        "prompt_tokens_details": {"cached_tokens": usage.cached_tokens},
    }
    if usage.reasoning_tokens:
        result["completion_tokens_details"] = {"reasoning_tokens": usage.reasoning_tokens}
    if usage.cost is not None:
        result["cost"] = usage.cost
    return result


def timings_json(usage: Usage) -> dict[str, Any]:
    """A llama.cpp ``timings`` object consistent with the usage figures."""
    cached = usage.cached_tokens
    prompt_n = usage.uncached_prompt_tokens
    predicted_n = usage.completion_tokens
    prompt_ms = prompt_n * 1000.0 / _PROMPT_TOKENS_PER_SECOND
    predicted_ms = predicted_n * 1000.0 / _PREDICTED_TOKENS_PER_SECOND
    return {
        "cache_n": cached,
        "prompt_n": prompt_n,
        "prompt_ms": prompt_ms,
        "prompt_per_token_ms": 1000.0 / _PROMPT_TOKENS_PER_SECOND,
        "prompt_per_second": _PROMPT_TOKENS_PER_SECOND,
        "predicted_n": predicted_n,
        "predicted_ms": predicted_ms,
        "predicted_per_token_ms": 1000.0 / _PREDICTED_TOKENS_PER_SECOND,
        "predicted_per_second": _PREDICTED_TOKENS_PER_SECOND,
    }


class _ChunkFactory:
    """Builds chunk objects sharing id, created, model and the reply's noise options."""

    def __init__(self, completion: Completion, reply: Reply) -> None:
        self._c = completion
        self._reply = reply
        self._serial = 0

    def header(self) -> dict[str, Any]:
        chunk: dict[str, Any] = {
            "id": f"chatcmpl-{self._c.n}",
            "object": "chat.completion.chunk",
            "created": self._c.created,
            "model": self._c.model,
        }
        if self._reply.fingerprint is not None:
            chunk["system_fingerprint"] = self._reply.fingerprint
        return chunk

    def trailer(self, chunk: dict[str, Any]) -> dict[str, Any]:
        if self._reply.obfuscation:
            self._serial += 1
            seed = f"{self._c.n}:{self._serial}".encode()
            chunk["obfuscation"] = hashlib.sha256(seed).hexdigest()[: 4 + self._serial % 9]
        return chunk

    def choice_chunk(self, delta: dict[str, Any], finish_reason: str | None = None) -> SseEvent:
        chunk = self.header()
        chunk["choices"] = [
            {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}
        ]
        if self._reply.usage_null:
            chunk["usage"] = None
        if finish_reason is not None and self._reply.timings:
            chunk["timings"] = timings_json(self._c.usage)
        is_content = bool(delta) and "role" not in delta
        return data_event(self.trailer(chunk), content=is_content)

    def usage_chunk(self, usage: Usage) -> SseEvent:
        chunk = self.header()
        if self._reply.usage_choices == "empty":
            chunk["choices"] = []
        elif self._reply.usage_choices == "null":
            chunk["choices"] = None
        chunk["usage"] = usage_json(usage)
        return data_event(self.trailer(chunk))


def _tool_call_deltas(completion: Completion, reply: Reply) -> list[dict[str, Any]]:
    deltas: list[dict[str, Any]] = []
    for index, call in enumerate(completion.tool_calls):
        head = {"index": index, "id": call.id, "type": "function"}
        if reply.tool_style == "whole":
            function = {"name": call.name, "arguments": call.arguments}
            deltas.append({"tool_calls": [{**head, "function": function}]})
            continue
        deltas.append({"tool_calls": [{**head, "function": {"name": call.name, "arguments": ""}}]})
        for piece in pieces(call.arguments, reply.chunk_size):
            deltas.append({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
    return deltas


def openai_events(completion: Completion, reply: Reply, include_usage: bool) -> list[SseEvent]:
    """The complete event sequence of a successful stream, ending with ``[DONE]``."""
    factory = _ChunkFactory(completion, reply)
    events: list[SseEvent] = []
    if reply.role_chunk:
        events.append(factory.choice_chunk({"role": "assistant", "content": None}))
    for piece in pieces(completion.reasoning, reply.chunk_size):
        events.append(factory.choice_chunk({reply.reasoning_field: piece}))
    for piece in pieces(completion.text, reply.chunk_size):
        events.append(factory.choice_chunk({"content": piece}))
    for delta in _tool_call_deltas(completion, reply):
        events.append(factory.choice_chunk(delta))
    events.append(factory.choice_chunk({}, completion.finish_reason))
    if include_usage and completion.send_usage:
        events.append(factory.usage_chunk(completion.usage))
    events.append(DONE)
    return events


def openai_body(completion: Completion, reply: Reply) -> dict[str, Any]:
    """The ``chat.completion`` object of a non-stream response."""
    message: dict[str, Any] = {"role": "assistant"}
    message["content"] = completion.text if completion.text or not completion.tool_calls else None
    if completion.reasoning:
        message[reply.reasoning_field] = completion.reasoning
    if completion.tool_calls:
        message["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": call.arguments},
            }
            for call in completion.tool_calls
        ]
    body: dict[str, Any] = {
        "id": f"chatcmpl-{completion.n}",
        "object": "chat.completion",
        "created": completion.created,
        "model": completion.model,
    }
    if reply.fingerprint is not None:
        body["system_fingerprint"] = reply.fingerprint
    body["choices"] = [
        {
            "index": 0,
            "message": message,
            "logprobs": None,
            "finish_reason": completion.finish_reason,
        }
    ]
    if completion.send_usage:
        body["usage"] = usage_json(completion.usage)
    if reply.timings:
        body["timings"] = timings_json(completion.usage)
    return body
