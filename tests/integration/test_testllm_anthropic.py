"""aish-testllm's Anthropic Messages endpoint over real HTTP: event order, blocks, usage."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from aish_testllm.server import TestLLMServer

from .test_testllm_support import collect_anthropic, post_sse

BODY: dict[str, Any] = {
    "model": "claude-test",
    "max_tokens": 100,
    "system": "be brief",
    "messages": [{"role": "user", "content": "hello"}],
}


@pytest.fixture
def llm() -> Iterator[Any]:
    servers: list[TestLLMServer] = []

    def start(scenario: dict[str, Any]) -> TestLLMServer:
        servers.append(TestLLMServer(scenario))
        return servers[-1]

    yield start
    for server in servers:
        server.close()


def test_text_stream_event_order_and_usage(llm: Any) -> None:
    server = llm({"default": {"text": "Hi there, friend.", "chunk_size": 6}})
    events = post_sse(server.url, BODY, "/v1/messages")
    assert [e.event for e in events] == [
        "message_start",
        "ping",
        "content_block_start",
        "content_block_delta",
        "content_block_delta",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]
    start = events[0].json()["message"]
    assert (start["id"], start["role"], start["model"], start["content"]) == (
        "msg_1",
        "assistant",
        "claude-test",
        [],
    )
    assert start["stop_reason"] is None
    assert set(start["usage"]) == {
        "input_tokens",
        "cache_read_input_tokens",
        "cache_creation_input_tokens",
        "output_tokens",
    }
    assert start["usage"]["output_tokens"] == 1 and start["usage"]["input_tokens"] > 0
    result = collect_anthropic(events)
    assert (result.text, result.finish_reason) == ("Hi there, friend.", "end_turn")
    assert result.usage == {"output_tokens": 5}
    assert events[-2].json()["delta"] == {"stop_reason": "end_turn", "stop_sequence": None}


def test_thinking_text_and_tool_use_blocks(llm: Any) -> None:
    reply = {
        "reasoning": "Consider it.",
        "text": "Listing.",
        "chunk_size": 5,
        "tool_calls": [
            {"id": "tu_1", "name": "ls", "arguments": {"path": "/etc"}},
            {"name": "pwd"},
        ],
    }
    server = llm({"default": reply})
    events = post_sse(server.url, BODY, "/v1/messages")
    starts = [e.json()["content_block"] for e in events if e.event == "content_block_start"]
    assert [b["type"] for b in starts] == ["thinking", "text", "tool_use", "tool_use"]
    assert starts[2] == {"type": "tool_use", "id": "tu_1", "name": "ls", "input": {}}
    assert starts[3]["id"] == "toolu_1"
    json_deltas = [
        e.json()["delta"]["partial_json"]
        for e in events
        if e.event == "content_block_delta" and e.json()["index"] == 2
    ]
    assert json_deltas[0] == "" and len(json_deltas) > 2
    thinking_deltas = [
        e.json()["delta"]["type"] for e in events if e.event == "content_block_delta"
    ][:4]
    assert thinking_deltas == [
        "thinking_delta",
        "thinking_delta",
        "thinking_delta",
        "signature_delta",
    ]
    result = collect_anthropic(events)
    assert (result.text, result.reasoning["thinking"]) == ("Listing.", "Consider it.")
    assert [(c["id"], c["name"], json.loads(c["arguments"])) for c in result.tool_calls] == [
        ("tu_1", "ls", {"path": "/etc"}),
        ("toolu_1", "pwd", {}),
    ]
    assert result.finish_reason == "tool_use"


def test_non_stream_message(llm: Any) -> None:
    server = llm(
        {
            "default": {
                "reasoning": "r",
                "text": "t",
                "tool_calls": [{"name": "ls", "arguments": {"a": 1}}],
                "finish_reason": "length",
            }
        }
    )
    response = httpx.post(f"{server.url}/v1/messages", json=BODY)
    body = response.json()
    assert (body["type"], body["id"], body["stop_reason"], body["stop_sequence"]) == (
        "message",
        "msg_1",
        "max_tokens",
        None,
    )
    assert [block["type"] for block in body["content"]] == ["thinking", "text", "tool_use"]
    assert body["content"][2]["input"] == {"a": 1}
    assert body["content"][0]["signature"].startswith("sig_")
    assert body["usage"]["output_tokens"] == 3  # ceil(len("r" + "t" + '{"a":1}') / 4)


def test_cache_read_tokens_follow_prefix_reuse(llm: Any) -> None:
    server = llm({"default": {"text": "ok"}})
    first = post_sse(server.url, BODY, "/v1/messages")[0].json()["message"]["usage"]
    assert first["cache_read_input_tokens"] == 0
    longer = {**BODY, "messages": [*BODY["messages"], {"role": "assistant", "content": "ok"}]}
    second = post_sse(server.url, longer, "/v1/messages")[0].json()["message"]["usage"]
    reuse = server.requests[1]["prefix_reuse"]
    assert reuse["chars"] > 0
    assert second["cache_read_input_tokens"] == reuse["chars"] // 4
    assert second["cache_creation_input_tokens"] == 0


def test_usage_false_omits_usage(llm: Any) -> None:
    server = llm({"default": {"text": "x", "usage": False}})
    events = post_sse(server.url, BODY, "/v1/messages")
    assert "usage" not in events[0].json()["message"]
    assert "usage" not in events[-2].json()


def test_status_error_uses_the_anthropic_shape(llm: Any) -> None:
    server = llm({"default": {"status": 529}})
    response = httpx.post(f"{server.url}/v1/messages", json=BODY)
    assert response.status_code == 529
    assert response.json() == {
        "type": "error",
        "error": {"type": "overloaded_error", "message": "Overloaded"},
    }


def test_overloaded_error_event_mid_stream(llm: Any) -> None:
    server = llm({"default": {"text": "abcdef", "chunk_size": 2, "error_after": 1}})
    events = post_sse(server.url, BODY, "/v1/messages")
    assert events[-1].event == "error"
    assert events[-1].json() == {
        "type": "error",
        "error": {"type": "overloaded_error", "message": "Overloaded"},
    }
    deltas = [e for e in events if e.event == "content_block_delta"]
    assert len(deltas) == 1
    assert "message_stop" not in [e.event for e in events]


def test_rules_match_on_tool_results_and_system_blocks(llm: Any) -> None:
    server = llm(
        {
            "rules": [
                {"when": {"user": "a\\.txt", "system": "brief"}, "reply": {"text": "two files"}}
            ],
            "default": {"text": "no"},
        }
    )
    body = {
        **BODY,
        "system": [{"type": "text", "text": "be brief"}],
        "messages": [
            {"role": "user", "content": "list"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "ls"}]},
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "t", "content": "a.txt"}],
            },
        ],
    }
    assert collect_anthropic(post_sse(server.url, body, "/v1/messages")).text == "two files"
    assert server.requests[0]["api"] == "anthropic" and server.requests[0]["rule"] == 0
