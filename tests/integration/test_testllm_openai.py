"""aish-testllm's OpenAI-compatible endpoint over real HTTP: stream shapes and variants."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from aish_testllm.server import TestLLMServer

from .test_testllm_support import collect_openai, openai_chunks, parse_sse, post_sse

USER = [{"role": "user", "content": "hello"}]


@pytest.fixture
def llm() -> Iterator[Any]:
    servers: list[TestLLMServer] = []

    def start(default: dict[str, Any]) -> TestLLMServer:
        servers.append(TestLLMServer({"default": default}))
        return servers[-1]

    yield start
    for server in servers:
        server.close()


def _stream(server: TestLLMServer, **body: Any) -> list[dict[str, Any]]:
    return openai_chunks(post_sse(server.url, {"model": "m1", "messages": USER, **body}))


def test_plain_text_stream_shape(llm: Any) -> None:
    server = llm({"text": "Hello, streaming world!", "chunk_size": 5})
    chunks = _stream(server)
    assert {c["id"] for c in chunks} == {"chatcmpl-1"}
    assert len({c["created"] for c in chunks}) == 1
    for chunk in chunks:
        assert chunk["object"] == "chat.completion.chunk" and chunk["model"] == "m1"
        assert "usage" not in chunk and "system_fingerprint" not in chunk
        (choice,) = chunk["choices"]
        assert set(choice) == {"index", "delta", "logprobs", "finish_reason"}
    assert chunks[0]["choices"][0]["delta"] == {"role": "assistant", "content": None}
    contents = [c["choices"][0]["delta"].get("content") for c in chunks[1:-1]]
    assert contents == ["Hello", ", str", "eamin", "g wor", "ld!"]
    last = chunks[-1]["choices"][0]
    assert (last["delta"], last["finish_reason"]) == ({}, "stop")
    assert all(c["choices"][0]["finish_reason"] is None for c in chunks[:-1])


def test_usage_chunk_only_when_requested(llm: Any) -> None:
    server = llm({"text": "abcdefgh"})
    chunks = _stream(server, stream_options={"include_usage": True})
    usage_chunk = chunks[-1]
    assert usage_chunk["choices"] == []
    prompt = json.dumps(
        {"tools": [], "system": None, "messages": USER}, separators=(",", ":")
    )  # what the server serialises
    assert usage_chunk["usage"] == {
        "prompt_tokens": -(-len(prompt) // 4),
        "completion_tokens": 2,
        "total_tokens": -(-len(prompt) // 4) + 2,
        "prompt_tokens_details": {"cached_tokens": 0},
    }
    assert chunks[-2]["choices"][0]["finish_reason"] == "stop"
    assert all("usage" not in c for c in _stream(server))


def test_non_stream_completion(llm: Any) -> None:
    server = llm({"text": "Whole answer.", "reasoning": "hmm", "fingerprint": "fp_x"})
    response = httpx.post(
        f"{server.url}/v1/chat/completions", json={"model": "m", "messages": USER}
    )
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    body = response.json()
    assert (body["id"], body["object"], body["model"]) == ("chatcmpl-1", "chat.completion", "m")
    assert body["system_fingerprint"] == "fp_x"
    assert body["choices"] == [
        {
            "index": 0,
            "message": {
                "role": "assistant",
                "content": "Whole answer.",
                "reasoning_content": "hmm",
            },
            "logprobs": None,
            "finish_reason": "stop",
        }
    ]
    assert body["usage"]["completion_tokens"] == 4  # ceil(16 / 4)
    assert body["usage"]["completion_tokens_details"] == {"reasoning_tokens": 1}


def test_fragmented_parallel_tool_calls(llm: Any) -> None:
    calls = [
        {"name": "ls", "arguments": {"path": "/tmp/some/dir"}},
        {"id": "fixed", "name": "cat", "arguments": '{"f": "x"}'},
    ]
    server = llm({"tool_calls": calls, "chunk_size": 4})
    chunks = _stream(server)
    deltas = [c["choices"][0]["delta"] for c in chunks[1:-1]]
    assert deltas[0] == {
        "tool_calls": [
            {
                "index": 0,
                "id": "call_1",
                "type": "function",
                "function": {"name": "ls", "arguments": ""},
            }
        ]
    }
    assert deltas[1] == {"tool_calls": [{"index": 0, "function": {"arguments": '{"pa'}}]}
    result = collect_openai(chunks)
    assert result.tool_calls == [
        {"id": "call_1", "name": "ls", "arguments": '{"path":"/tmp/some/dir"}'},
        {"id": "fixed", "name": "cat", "arguments": '{"f": "x"}'},
    ]
    assert result.finish_reason == "tool_calls" and result.text == ""


def test_whole_tool_calls_ollama_style(llm: Any) -> None:
    server = llm(
        {
            "tool_calls": [{"name": "ls", "arguments": {"path": "."}}, {"name": "pwd"}],
            "tool_style": "whole",
            "fingerprint": "fp_ollama",
        }
    )
    chunks = _stream(server)
    assert {c["system_fingerprint"] for c in chunks} == {"fp_ollama"}
    tool_deltas = [c["choices"][0]["delta"]["tool_calls"] for c in chunks[1:-1]]
    assert tool_deltas == [
        [
            {
                "index": 0,
                "id": "call_1",
                "type": "function",
                "function": {"name": "ls", "arguments": '{"path":"."}'},
            }
        ],
        [
            {
                "index": 1,
                "id": "call_2",
                "type": "function",
                "function": {"name": "pwd", "arguments": "{}"},
            }
        ],
    ]


def test_non_stream_tool_calls_have_null_content(llm: Any) -> None:
    server = llm({"tool_calls": [{"name": "ls", "arguments": {"a": 1}}]})
    body = httpx.post(f"{server.url}/v1/chat/completions", json={"messages": USER}).json()
    message = body["choices"][0]["message"]
    assert message["content"] is None
    assert message["tool_calls"] == [
        {"id": "call_1", "type": "function", "function": {"name": "ls", "arguments": '{"a":1}'}}
    ]
    assert body["choices"][0]["finish_reason"] == "tool_calls"
    assert body["model"] == "testllm"  # no model in the request: the scenario's first model


@pytest.mark.parametrize("field", ["reasoning_content", "reasoning"])
def test_reasoning_streams_before_text_in_the_chosen_field(llm: Any, field: str) -> None:
    server = llm({"reasoning": "Let me think.", "reasoning_field": field, "text": "42"})
    chunks = _stream(server)
    fields = [next(iter(c["choices"][0]["delta"]), None) for c in chunks[1:-1]]
    assert fields == [field, "content"]
    result = collect_openai(chunks)
    assert (result.reasoning, result.text) == ({field: "Let me think."}, "42")


def test_llamacpp_timings_on_the_finish_chunk(llm: Any) -> None:
    server = llm({"text": "ok", "timings": True, "usage": False})
    chunks = _stream(server, stream_options={"include_usage": True})
    assert "timings" not in chunks[0]
    timings = chunks[-1]["timings"]
    assert chunks[-1]["choices"][0]["finish_reason"] == "stop"
    assert timings["predicted_n"] == 1 and timings["cache_n"] == 0 and timings["prompt_n"] > 0
    assert {"prompt_ms", "predicted_ms", "prompt_per_second", "predicted_per_second"} <= set(
        timings
    )
    assert all("usage" not in c for c in chunks)  # usage: false wins over include_usage


def test_usage_overrides_and_finish_reason(llm: Any) -> None:
    server = llm(
        {
            "text": "cut by length",
            "finish_reason": "length",
            "usage": {"prompt_tokens": 11, "completion_tokens": 2, "cached_tokens": 8, "cost": 0.5},
        }
    )
    result = collect_openai(_stream(server, stream_options={"include_usage": True}))
    assert result.finish_reason == "length"
    assert result.usage == {
        "prompt_tokens": 11,
        "completion_tokens": 2,
        "total_tokens": 13,
        "prompt_tokens_details": {"cached_tokens": 8},
        "cost": 0.5,
    }


def test_noise_comments_crlf_null_usage_obfuscation_and_no_role_chunk(llm: Any) -> None:
    server = llm(
        {
            "text": "clean",
            "comments": [": ping", ": OPENROUTER PROCESSING"],
            "crlf": True,
            "usage_null": True,
            "obfuscation": True,
            "role_chunk": False,
        }
    )
    body = {"stream": True, "messages": USER, "stream_options": {"include_usage": True}}
    raw = httpx.post(f"{server.url}/v1/chat/completions", json=body).text
    assert raw.startswith(": ping\r\n\r\n: OPENROUTER PROCESSING\r\n\r\ndata: {")
    assert "\n" not in raw.replace("\r\n", "")
    events = parse_sse(raw)
    assert raw.count(": OPENROUTER PROCESSING\r\n") == len(events)
    chunks = openai_chunks(events)
    assert chunks[0]["choices"][0]["delta"] == {"content": "clean"}
    assert all(c["usage"] is None and c["obfuscation"] for c in chunks[:-1])
    assert chunks[-1]["usage"]["completion_tokens"] == 2


@pytest.mark.parametrize(
    ("mode", "present", "value"), [("null", True, None), ("missing", False, 0)]
)
def test_usage_chunk_choices_variants(llm: Any, mode: str, present: bool, value: Any) -> None:
    server = llm({"text": "x", "usage_choices": mode})
    usage_chunk = _stream(server, stream_options={"include_usage": True})[-1]
    assert ("choices" in usage_chunk) is present
    if present:
        assert usage_chunk["choices"] is value
    assert usage_chunk["usage"]["total_tokens"] > 0


def test_first_delay_and_per_chunk_delay(llm: Any) -> None:
    server = llm({"text": "abcd", "chunk_size": 1, "delay_ms": 50, "first_delay_ms": 800})
    arrivals: list[float] = []
    started = time.monotonic()
    body = {"stream": True, "messages": USER}
    with httpx.stream("POST", f"{server.url}/v1/chat/completions", json=body) as response:
        assert response.status_code == 200
        headers_after = time.monotonic() - started
        for line in response.iter_lines():
            if '"content":"' in line:
                arrivals.append(time.monotonic() - started)
    assert len(arrivals) == 4
    # Headers go out before the first delay: judged against the first chunk's arrival, not the
    # clock, so a busy machine cannot fail it (lower bounds on delays hold under any load).
    assert arrivals[0] - headers_after >= 0.6
    assert arrivals[0] >= 0.8
    assert arrivals[-1] - arrivals[0] >= 0.14
