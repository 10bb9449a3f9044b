"""The broker against every server quirk it must survive, over real HTTP to aish-testllm."""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import Callable
from typing import Any

import pytest

from aish.llm.broker import chat, stream_chat
from aish.llm.errors import (
    AuthError,
    ConnectError,
    HTTPStatusError,
    LLMError,
    ModelNotFoundError,
    ProtocolError,
    StreamErrorEvent,
    TimedOut,
    TruncatedStreamError,
)
from aish.llm.types import Message, ModelTarget, Reply, ToolSpec

from ..conftest import ServeFn

MESSAGES = [Message("system", "You are terse."), Message("user", "hello there")]
TOOLS = [
    ToolSpec("ls", "list files", {"type": "object", "properties": {"path": {"type": "string"}}})
]


def _target(url: str, **kw: Any) -> ModelTarget:
    api = kw.pop("api", "openai")
    endpoint = url if api == "anthropic" else url + "/v1"
    return ModelTarget(name="t", endpoint=endpoint, model="testllm", api=api, **kw)


def _one(serve: ServeFn, reply: dict[str, Any], **kw: Any) -> tuple[Reply, Any]:
    server = serve({"rules": [], "default": reply})
    result = asyncio.run(chat(_target(server.url, **kw), MESSAGES, TOOLS))
    return result, server


def _fails(serve: ServeFn, reply: dict[str, Any], **kw: Any) -> tuple[LLMError, Any]:
    server = serve({"rules": [], "default": reply})
    with pytest.raises(LLMError) as caught:
        asyncio.run(chat(_target(server.url, **kw), MESSAGES))
    return caught.value, server


def test_plain_text_with_role_finish_usage_and_done(serve: ServeFn) -> None:
    reply, server = _one(serve, {"text": "Hello, world! How are you?", "chunk_size": 3})
    assert reply.text == "Hello, world! How are you?"
    assert reply.finish is not None and reply.finish.reason == "stop"
    assert reply.usage is not None and not reply.usage.estimated
    assert reply.usage.completion_tokens > 0
    body = server.requests[0]["body"]
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
    assert [m["role"] for m in body["messages"]] == ["system", "user"]


def test_fragmented_parallel_tool_calls(serve: ServeFn) -> None:
    calls = [
        {"id": "a1", "name": "ls", "arguments": {"path": "/tmp/some/long/path"}},
        {"id": "b2", "name": "cat", "arguments": {"path": "x.txt", "n": 3}},
    ]
    reply, _ = _one(serve, {"tool_calls": calls, "chunk_size": 4})
    assert [(c.id, c.name, c.parsed_arguments()) for c in reply.tool_calls] == [
        ("a1", "ls", {"path": "/tmp/some/long/path"}),
        ("b2", "cat", {"path": "x.txt", "n": 3}),
    ]
    assert reply.finish is not None and reply.finish.reason == "tool_calls"


def test_ollama_whole_tool_call(serve: ServeFn) -> None:
    reply, _ = _one(
        serve,
        {
            "tool_calls": [{"name": "ls", "arguments": {"path": "."}}],
            "tool_style": "whole",
            "fingerprint": "fp_ollama",
        },
    )
    assert [(c.name, c.parsed_arguments()) for c in reply.tool_calls] == [("ls", {"path": "."})]


@pytest.mark.parametrize("field", ["reasoning_content", "reasoning"])
def test_reasoning_in_either_field(serve: ServeFn, field: str) -> None:
    reply, _ = _one(serve, {"reasoning": "Let me think.", "reasoning_field": field, "text": "42"})
    assert (reply.reasoning, reply.text) == ("Let me think.", "42")


def test_llamacpp_timings_without_usage_give_exact_counts(serve: ServeFn) -> None:
    reply, _ = _one(serve, {"text": "ok", "timings": True, "usage": False})
    assert reply.usage is not None and reply.usage.timings is not None
    assert not reply.usage.estimated
    assert (
        reply.usage.prompt_tokens
        == reply.usage.timings["prompt_n"] + reply.usage.timings["cache_n"]
    )


def test_noise_comments_crlf_null_usage_and_null_choices(serve: ServeFn) -> None:
    reply, _ = _one(
        serve,
        {
            "text": "clean text",
            "comments": [": ping", ": OPENROUTER PROCESSING"],
            "crlf": True,
            "usage_null": True,
            "usage_choices": "null",
            "obfuscation": True,
            "usage": {"prompt_tokens": 11, "completion_tokens": 2, "cost": 0.0004},
        },
    )
    assert reply.text == "clean text"
    assert reply.usage is not None
    assert (reply.usage.prompt_tokens, reply.usage.provider_cost_usd) == (11, 0.0004)


def test_missing_usage_is_estimated_and_marked(serve: ServeFn) -> None:
    reply, _ = _one(serve, {"text": "some words here", "usage": False})
    assert reply.usage is not None and reply.usage.estimated
    assert reply.usage.prompt_tokens > 0 and reply.usage.completion_tokens > 0


def test_429_with_retry_after_is_retried_then_succeeds(serve: ServeFn) -> None:
    server = serve(
        {
            "rules": [
                {
                    "when": {"user": "hello"},
                    "replies": [
                        {"status": 429, "headers": {"Retry-After": "1"}},
                        {"text": "after the wait"},
                    ],
                }
            ]
        }
    )
    retries: list[float] = []
    started = time.monotonic()

    async def run() -> Reply:
        reply = Reply()
        target = _target(server.url)
        async for event in stream_chat(
            target, MESSAGES, on_retry=lambda e, w, n: retries.append(w)
        ):
            reply.add(event)
        return reply

    reply = asyncio.run(run())
    assert reply.text == "after the wait"
    assert retries == [1.0]
    assert time.monotonic() - started >= 1.0
    assert len(server.requests) == 2


def test_429_without_retry_after_is_a_quota_and_surfaces_at_once(serve: ServeFn) -> None:
    error, server = _fails(
        serve, {"status": 429, "body": {"error": {"message": "You exceeded your current quota"}}}
    )
    assert isinstance(error, HTTPStatusError) and not error.retryable
    assert "exceeded your current quota" in str(error)
    assert len(server.requests) == 1


@pytest.mark.parametrize(("style", "api"), [("openrouter", "openai"), ("anthropic", "anthropic")])
def test_overload_reported_in_the_stream_before_output_is_retried(
    serve: ServeFn, style: str, api: str
) -> None:
    server = serve(
        {
            "rules": [
                {
                    "when": {"user": "hello"},
                    "replies": [
                        {
                            "text": "x",
                            "error_after": 0,
                            "error_style": style,
                            "error_message": "Provider returned error",
                        },
                        {"text": "recovered"},
                    ],
                }
            ]
        }
    )
    reply = asyncio.run(chat(_target(server.url, api=api), MESSAGES))
    assert reply.text == "recovered"
    assert len(server.requests) == 2


def test_redirect_names_the_new_location(serve: ServeFn) -> None:
    error, server = _fails(
        serve,
        {
            "status": 301,
            "headers": {"Location": "https://example.org/v1/chat/completions"},
            "body": "",
        },
    )
    assert isinstance(error, HTTPStatusError) and error.status == 301
    assert "redirected to https://example.org/v1/chat/completions" in str(error)
    assert len(server.requests) == 1


def test_429_whose_retry_after_is_too_long_surfaces_at_once(serve: ServeFn) -> None:
    error, server = _fails(serve, {"status": 429, "headers": {"Retry-After": "3600"}})
    assert isinstance(error, HTTPStatusError) and error.status == 429 and error.retryable
    assert error.retry_after_s == 3600.0
    assert len(server.requests) == 1


def test_401_is_auth_error_never_retried(serve: ServeFn) -> None:
    error, server = _fails(
        serve, {"status": 401, "body": {"error": {"message": "Invalid API Key", "code": 401}}}
    )
    assert isinstance(error, AuthError)
    assert not error.retryable and not error.fallback_eligible
    assert "Invalid API Key" in str(error) and "HTTP 401" in str(error)
    assert len(server.requests) == 1


def test_400_context_length_is_not_retried(serve: ServeFn) -> None:
    message = "the request exceeds the available context size (n_prompt_tokens=9000, n_ctx=4096)"
    error, server = _fails(
        serve,
        {"status": 400, "body": {"error": {"message": message, "type": "invalid_request_error"}}},
    )
    assert isinstance(error, HTTPStatusError) and error.status == 400
    assert not error.retryable and not error.fallback_eligible
    assert "exceeds the available context size" in str(error)
    assert len(server.requests) == 1


def test_503_loading_is_retried_and_fallback_eligible(serve: ServeFn) -> None:
    error, server = _fails(
        serve,
        {"status": 503, "body": {"error": {"code": 503, "message": "Loading model"}}},
        max_retries=2,
    )
    assert isinstance(error, HTTPStatusError) and error.retryable and error.fallback_eligible
    assert "Loading model" in str(error)
    assert len(server.requests) == 3


def test_404_model_not_found_may_fall_back(serve: ServeFn) -> None:
    error, _ = _fails(serve, {"status": 404, "body": {"error": {"message": "model 'x' not found"}}})
    assert isinstance(error, ModelNotFoundError) and error.fallback_eligible


def test_html_error_page_is_one_readable_line(serve: ServeFn) -> None:
    page = "<html><head><title>502 Bad Gateway</title></head><body><h1>nginx</h1></body></html>"
    error, _ = _fails(
        serve, {"status": 502, "body": page, "content_type": "text/html"}, max_retries=0
    )
    assert "HTTP 502" in str(error) and "502 Bad Gateway" in str(error)
    assert "<" not in str(error)


def test_non_json_reply_is_a_protocol_error(serve: ServeFn) -> None:
    error, _ = _fails(serve, {"raw": ["this is not json"], "content_type": "application/json"})
    assert isinstance(error, ProtocolError) and "not JSON" in str(error)


def test_html_page_with_status_200_is_a_protocol_error(serve: ServeFn) -> None:
    error, _ = _fails(
        serve, {"raw": ["<html><title>Login</title></html>"], "content_type": "text/html"}
    )
    assert isinstance(error, ProtocolError) and "Login" in str(error)


@pytest.mark.parametrize(
    ("style", "message"),
    [
        ("openai", "The server had an error"),
        ("openrouter", "provider crashed"),
        ("legacy", "slot gone"),
    ],
)
def test_mid_stream_error_keeps_partial_and_is_not_retried(
    serve: ServeFn, style: str, message: str
) -> None:
    error, server = _fails(
        serve,
        {
            "text": "partial answer",
            "chunk_size": 4,
            "error_after": 2,
            "error_style": style,
            "error_message": message,
        },
    )
    assert isinstance(error, StreamErrorEvent)
    assert message in str(error)
    assert error.partial == "partial "
    assert not error.fallback_eligible
    assert len(server.requests) == 1


def test_eof_in_the_middle_of_a_json_chunk_is_truncation(serve: ServeFn) -> None:
    error, server = _fails(
        serve, {"text": "abcdefghijkl", "chunk_size": 3, "cut_after": 2, "cut_mid_json": True}
    )
    assert isinstance(error, TruncatedStreamError)
    assert error.partial == "abcdef"
    assert len(server.requests) == 1  # output was shown: never retried


def test_cut_before_any_output_is_retried(serve: ServeFn) -> None:
    server = serve(
        {
            "rules": [
                {
                    "when": {"user": "hello"},
                    "replies": [{"text": "x", "cut_after": 0}, {"text": "second try"}],
                }
            ]
        }
    )
    reply = asyncio.run(chat(_target(server.url), MESSAGES))
    assert reply.text == "second try"
    assert len(server.requests) == 2


def test_stall_longer_than_idle_timeout(serve: ServeFn) -> None:
    error, server = _fails(
        serve,
        {"text": "abcdef", "chunk_size": 2, "stall_after": 1, "stall_s": 1.0},
        idle_timeout_s=0.3,
    )
    assert isinstance(error, TimedOut) and error.phase == "idle"
    assert error.partial == "ab" and "idle" in str(error)
    assert len(server.requests) == 1  # output was shown: never retried


def test_pings_keep_a_slow_stream_alive(serve: ServeFn) -> None:
    reply, _ = _one(
        serve,
        {"text": "abcdef", "chunk_size": 2, "stall_after": 1, "stall_s": 0.9, "ping_every_ms": 100},
        idle_timeout_s=0.4,
    )
    assert reply.text == "abcdef"


def test_connection_refused() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    target = ModelTarget("dead", f"http://127.0.0.1:{port}/v1", "m", max_retries=0)
    with pytest.raises(ConnectError) as caught:
        asyncio.run(chat(target, MESSAGES))
    assert "connection refused" in str(caught.value) and caught.value.fallback_eligible


def test_cancellation_closes_the_stream_and_keeps_partial(serve: ServeFn) -> None:
    # The rest of this reply would take minutes: cancelling must not wait for it.
    server = serve(
        {
            "rules": [],
            "default": {
                "text": "one two three four five",
                "chunk_size": 4,
                "stall_after": 1,
                "stall_s": 120,
            },
        }
    )
    reply = Reply()

    async def consume() -> None:
        async for event in stream_chat(_target(server.url), MESSAGES):
            reply.add(event)

    async def run() -> None:
        task = asyncio.create_task(consume())
        await asyncio.wait_for(_until(lambda: bool(reply.text)), timeout=10)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(task, timeout=10)  # a hang guard, not a speed claim

    asyncio.run(run())
    assert reply.text == "one "
    assert reply.finish is None


async def _until(condition: Callable[[], bool]) -> None:
    while not condition():
        await asyncio.sleep(0.01)


def test_usage_estimate_counts_tool_calls(serve: ServeFn) -> None:
    arguments = {"path": "/var/log/" + "x" * 400}
    reply, _ = _one(serve, {"tool_calls": [{"name": "ls", "arguments": arguments}], "usage": False})
    assert reply.usage is not None and reply.usage.estimated
    assert reply.usage.completion_tokens >= 100


def test_anthropic_stream_text_tool_use_and_usage(serve: ServeFn) -> None:
    reply, server = _one(
        serve,
        {
            "reasoning": "hmm",
            "text": "Listing.",
            "chunk_size": 3,
            "tool_calls": [{"id": "tu_1", "name": "ls", "arguments": {"path": "/etc"}}],
        },
        api="anthropic",
        api_key="sk-test",
    )
    assert (reply.text, reply.reasoning) == ("Listing.", "hmm")
    assert [(c.id, c.name, c.parsed_arguments()) for c in reply.tool_calls] == [
        ("tu_1", "ls", {"path": "/etc"})
    ]
    assert reply.finish is not None and reply.finish.reason == "tool_calls"
    assert reply.usage is not None and not reply.usage.estimated
    record = server.requests[0]
    assert record["path"] == "/v1/messages"
    assert record["body"]["system"] == "You are terse."
    assert record["body"]["tools"][0]["input_schema"]["type"] == "object"


def test_anthropic_overloaded_error_event(serve: ServeFn) -> None:
    error, _ = _fails(
        serve, {"text": "abc", "error_after": 1, "error_style": "anthropic"}, api="anthropic"
    )
    assert isinstance(error, StreamErrorEvent) and "Overloaded" in str(error)


def test_tool_results_round_trip_in_both_protocols(serve: ServeFn) -> None:
    from aish.llm.types import ToolCall

    history = [
        *MESSAGES,
        Message("assistant", "", tool_calls=(ToolCall("c1", "ls", '{"path": "."}'),)),
        Message("tool", "a.txt\nb.txt", tool_call_id="c1"),
    ]
    for api in ("openai", "anthropic"):
        server = serve({"rules": [{"when": {"user": "a.txt"}, "reply": {"text": "two files"}}]})
        reply = asyncio.run(chat(_target(server.url, api=api), history, TOOLS))
        assert reply.text == "two files", api
