"""Helpers for the aish-testllm integration tests: a tiny SSE parser and stream collectors.

Deliberately independent of aish's own SSE code, so the test server is checked on its own.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import httpx


@dataclass
class Sse:
    """One parsed SSE event."""

    event: str | None
    data: str
    other: dict[str, str] = field(default_factory=dict)

    def json(self) -> Any:
        return json.loads(self.data)


def parse_sse(text: str) -> list[Sse]:
    """Parse SSE text (LF or CRLF); comments are dropped, unknown fields kept in ``other``."""
    events = []
    for block in text.replace("\r\n", "\n").split("\n\n"):
        event, data, other = None, [], {}
        for line in block.split("\n"):
            if not line or line.startswith(":"):
                continue
            name, _, value = line.partition(":")
            value = value.removeprefix(" ")
            if name == "event":
                event = value
            elif name == "data":
                data.append(value)
            else:
                other[name] = value
        if data or event or other:
            events.append(Sse(event, "\n".join(data), other))
    return events


def post_sse(url: str, body: dict[str, Any], path: str = "/v1/chat/completions") -> list[Sse]:
    """POST a streaming request and parse the whole response (asserting HTTP 200 + SSE)."""
    response = httpx.post(url + path, json={"stream": True, **body}, timeout=10)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/event-stream")
    return parse_sse(response.text)


def openai_chunks(events: list[Sse]) -> list[dict[str, Any]]:
    """The JSON chunks of an OpenAI stream, asserting it ends with exactly one ``[DONE]``."""
    assert events and events[-1].data == "[DONE]", events[-3:]
    assert [e.data for e in events].count("[DONE]") == 1
    return [e.json() for e in events[:-1]]


@dataclass
class Collected:
    """What a client would reassemble from a stream."""

    text: str = ""
    reasoning: dict[str, str] = field(default_factory=dict)
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    finish_reason: str | None = None
    usage: dict[str, Any] | None = None


def collect_openai(chunks: list[dict[str, Any]]) -> Collected:
    """Accumulate content, reasoning (per field name), tool calls by index, finish and usage."""
    out = Collected()
    calls: dict[int, dict[str, Any]] = {}
    for chunk in chunks:
        if chunk.get("usage"):
            out.usage = chunk["usage"]
        for choice in chunk.get("choices") or []:
            delta = choice["delta"]
            out.text += delta.get("content") or ""
            for name in ("reasoning_content", "reasoning"):
                if delta.get(name):
                    out.reasoning[name] = out.reasoning.get(name, "") + delta[name]
            for call in delta.get("tool_calls") or []:
                slot = calls.setdefault(call["index"], {"id": None, "name": None, "arguments": ""})
                slot["id"] = call.get("id") or slot["id"]
                function = call.get("function") or {}
                slot["name"] = function.get("name") or slot["name"]
                slot["arguments"] += function.get("arguments") or ""
            if choice.get("finish_reason"):
                out.finish_reason = choice["finish_reason"]
    out.tool_calls = [calls[i] for i in sorted(calls)]
    return out


def collect_anthropic(events: list[Sse]) -> Collected:
    """Accumulate an Anthropic stream's blocks; checks every data ``type`` matches ``event``."""
    out = Collected()
    blocks: dict[int, dict[str, Any]] = {}
    for sse in events:
        payload = sse.json()
        assert payload["type"] == sse.event
        if sse.event == "content_block_start":
            blocks[payload["index"]] = {**payload["content_block"], "json": ""}
        elif sse.event == "content_block_delta":
            block, delta = blocks[payload["index"]], payload["delta"]
            if delta["type"] == "text_delta":
                out.text += delta["text"]
            elif delta["type"] == "thinking_delta":
                out.reasoning["thinking"] = out.reasoning.get("thinking", "") + delta["thinking"]
            elif delta["type"] == "signature_delta":
                block["signature"] = delta["signature"]
            elif delta["type"] == "input_json_delta":
                block["json"] += delta["partial_json"]
        elif sse.event == "message_delta":
            out.finish_reason = payload["delta"]["stop_reason"]
            out.usage = payload.get("usage")
    for index in sorted(blocks):
        block = blocks[index]
        if block["type"] == "tool_use":
            out.tool_calls.append(
                {"id": block["id"], "name": block["name"], "arguments": block["json"]}
            )
    return out


def test_parse_sse_handles_crlf_comments_named_events_and_odd_fields() -> None:
    text = ": ping\r\n\r\nevent: x\r\ndata: 1\r\ndata: 2\r\n\r\nerror: {}\n\ndata:[DONE]\n\n"
    events = parse_sse(text)
    assert [(e.event, e.data, e.other) for e in events] == [
        ("x", "1\n2", {}),
        (None, "", {"error": "{}"}),
        (None, "[DONE]", {}),
    ]
