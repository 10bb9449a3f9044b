"""aish-testllm as a server: endpoints, rule scripting over HTTP, the request log, lifecycle."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from aish_testllm.scenario import ScenarioError
from aish_testllm.server import TestLLMServer

from .test_testllm_support import collect_anthropic, collect_openai, openai_chunks, post_sse

CHAT = "/v1/chat/completions"


def _ask(server: TestLLMServer, user: str, **body: Any) -> httpx.Response:
    payload = {"model": "m", "messages": [{"role": "user", "content": user}], **body}
    return httpx.post(server.url + CHAT, json=payload)


def _text(server: TestLLMServer, user: str, **body: Any) -> str:
    response = _ask(server, user, **body)
    assert response.status_code == 200, response.text
    content: str = response.json()["choices"][0]["message"]["content"]
    return content


# --- endpoints ---------------------------------------------------------------------------------


def test_models_tokenize_health_and_unknown_routes() -> None:
    with TestLLMServer({"models": ["a", "b"]}) as server:
        assert not server.url.endswith("/")
        models = httpx.get(server.url + "/v1/models").json()
        assert models["object"] == "list"
        assert [(m["id"], m["object"]) for m in models["data"]] == [("a", "model"), ("b", "model")]
        tokens = httpx.post(server.url + "/tokenize", json={"content": "123456789"}).json()
        assert len(tokens["tokens"]) == 3
        assert tokens == httpx.post(server.url + "/tokenize", json={"content": "123456789"}).json()
        assert httpx.post(server.url + "/tokenize", json={}).status_code == 400
        health = httpx.get(server.url + "/health")
        assert (health.status_code, health.json()) == (200, {"status": "ok"})
        missing = httpx.get(server.url + "/v1/nothing")
        assert missing.status_code == 404 and missing.json()["error"]["code"] == 404
        assert httpx.get(server.url + CHAT).status_code == 404
        bad = httpx.post(server.url + CHAT, content=b"{not json")
        assert bad.status_code == 400 and "error" in bad.json()
    assert [r["n"] for r in server.requests] == [None] * 8
    assert [r["path"] for r in server.requests][:2] == ["/v1/models", "/tokenize"]


def test_health_is_503_while_loading() -> None:
    with TestLLMServer({"loading_s": 0.3, "default": {"text": "ready"}}) as server:
        loading = httpx.get(server.url + "/health")
        assert loading.status_code == 503
        assert loading.json() == {
            "error": {"code": 503, "message": "Loading model", "type": "unavailable_error"}
        }
        assert _ask(server, "hi").status_code == 503
        assert httpx.get(server.url + "/v1/models").status_code == 200
        time.sleep(0.35)
        assert httpx.get(server.url + "/health").status_code == 200
        assert _text(server, "hi") == "ready"
    assert [r["n"] for r in server.requests] == [None, None, None, None, 1]


def test_builtin_default_scenario_and_echo() -> None:
    with TestLLMServer() as server:
        assert _text(server, "hi").startswith("Hello from aish-testllm.")
    with TestLLMServer({"rules": []}) as server:
        assert _text(server, "what is up") == "You said: what is up"


def test_scenario_from_a_file_and_invalid_scenarios(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"default": {"text": "from file"}}))
    with TestLLMServer(path) as server:
        assert _text(server, "x") == "from file"
    with pytest.raises(ScenarioError, match=r"rules\[0\]\.reply: unknown key 'txt'"):
        TestLLMServer({"rules": [{"reply": {"txt": "x"}}]})


# --- scripting over HTTP -----------------------------------------------------------------------


SCENARIO: dict[str, Any] = {
    "rules": [
        {"name": "greet", "when": {"user": "^hi\\b"}, "reply": {"text": "Hello!"}},
        {
            "name": "flaky",
            "when": {"user": "retry me"},
            "replies": [
                {"status": 503, "body": {"error": {"message": "busy"}}},
                {"text": "ok now"},
            ],
        },
        {"when": {"request": 6}, "reply": {"status": 500}},
        {
            "when": {"tools": True, "model": "big"},
            "reply": {"tool_calls": [{"name": "ls", "arguments": {"path": "."}}]},
            "times": 1,
        },
        {"name": "anthropic", "when": {"api": "anthropic"}, "reply": {"text": "native"}},
        {"name": "streamed", "when": {"stream": True}, "reply": {"text": "streamed"}},
    ],
    "default": {"text": "Default reply."},
}


def test_rules_sequences_times_and_request_numbers(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    tools = [{"type": "function", "function": {"name": "ls", "parameters": {}}}]
    with TestLLMServer(SCENARIO, log_path=log) as server:
        assert _text(server, "hi there") == "Hello!"  # 1
        first = _ask(server, "please retry me")  # 2
        assert (first.status_code, first.json()) == (503, {"error": {"message": "busy"}})
        assert _text(server, "retry me again") == "ok now"  # 3
        assert _text(server, "retry me more") == "ok now"  # 4: the last reply repeats
        big = _ask(server, "files?", model="big-1", tools=tools).json()  # 5
        assert big["choices"][0]["message"]["tool_calls"][0]["function"]["name"] == "ls"
        assert _ask(server, "anything").status_code == 500  # 6: the request-number rule
        assert _text(server, "files?", model="big-1", tools=tools) == "Default reply."  # 7
        events = post_sse(server.url, {"messages": [{"role": "user", "content": "x"}]}, CHAT)
        assert collect_openai(openai_chunks(events)).text == "streamed"  # 8
        native = post_sse(server.url, {"messages": []}, "/v1/messages")  # 9
        assert collect_anthropic(native).text == "native"
        httpx.get(server.url + "/health")
    records = server.requests
    assert [r["n"] for r in records] == [1, 2, 3, 4, 5, 6, 7, 8, 9, None]
    assert [r["rule"] for r in records] == [
        "greet",
        "flaky",
        "flaky",
        "flaky",
        3,
        2,
        "default",
        "streamed",
        "anthropic",
        None,
    ]
    assert [r["api"] for r in records][-3:] == ["openai", "anthropic", None]
    assert [r["stream"] for r in records][-3:] == [True, True, False]
    assert records[4]["model"] == "big-1" and records[4]["body"]["tools"] == tools
    assert records[0]["method"] == "POST" and records[0]["path"] == CHAT
    assert all(isinstance(r["ts"], float) for r in records)
    assert [json.loads(line) for line in log.read_text().splitlines()] == records


def test_request_rule_precedes_later_rules_but_not_earlier_ones() -> None:
    scenario = {
        "rules": [
            {"name": "first", "when": {"user": "special"}, "reply": {"text": "special"}},
            {"name": "second", "when": {"request": 2}, "reply": {"text": "two"}},
        ],
        "default": {"text": "d"},
    }
    with TestLLMServer(scenario) as server:
        assert [_text(server, u) for u in ["a", "b", "special", "special"]] == ["d", "two"] + [
            "special"
        ] * 2
        with TestLLMServer(scenario) as other:
            assert [_text(other, u) for u in ["a", "special"]] == ["d", "special"]


# --- prefix reuse ------------------------------------------------------------------------------


def test_prefix_reuse_is_logged_and_reported_as_cached_tokens() -> None:
    system = {"role": "system", "content": "You are a test." * 10}
    turn1 = [system, {"role": "user", "content": "first question"}]
    turn2 = [*turn1, {"role": "assistant", "content": "ok"}, {"role": "user", "content": "next"}]
    changed = [{"role": "system", "content": "Different"}, *turn2[1:]]
    with TestLLMServer({"default": {"text": "ok"}}) as server:
        usages = []
        for messages in (turn1, turn2, changed):
            body = {"messages": messages}
            usages.append(httpx.post(server.url + CHAT, json=body).json()["usage"])
    reuse = [r["prefix_reuse"] for r in server.requests]
    assert reuse[0] == {"chars": 0, "fraction": 0.0}
    serialised = [
        json.dumps({"tools": [], "system": None, "messages": m}, separators=(",", ":"))
        for m in (turn1, turn2, changed)
    ]
    # turn1 ends with '"}]}', turn2 continues with '"},{"role":"assistant"...'
    expected_chars = len(serialised[0]) - 2
    assert reuse[1]["chars"] == expected_chars
    assert reuse[1]["fraction"] == pytest.approx(expected_chars / len(serialised[1]))
    assert reuse[2]["chars"] == len(
        '{"tools":[],"system":null,"messages":[{"role":"system","content":"'
    )
    assert [u["prompt_tokens_details"]["cached_tokens"] for u in usages] == [
        0,
        reuse[1]["chars"] // 4,
        reuse[2]["chars"] // 4,
    ]
    assert usages[1]["prompt_tokens"] == -(-len(serialised[1]) // 4)


# --- lifecycle ---------------------------------------------------------------------------------


def test_keep_alive_serves_many_requests_on_one_connection() -> None:
    with TestLLMServer({"default": {"text": "ok"}}) as server, httpx.Client() as client:
        for _ in range(3):
            body = {"stream": True, "messages": []}
            with client.stream("POST", server.url + CHAT, json=body) as response:
                assert response.http_version == "HTTP/1.1"
                text = response.read().decode()
                assert text.endswith("data: [DONE]\n\n")
            client.get(server.url + "/health")
        pool = client._transport._pool  # type: ignore[attr-defined]
        assert len(pool.connections) == 1


def test_close_is_prompt_with_idle_and_stalled_connections() -> None:
    server = TestLLMServer({"default": {"text": "ab", "stall_after": 1, "stall_s": 30}})
    client = httpx.Client()
    client.get(server.url + "/health")  # leaves an idle keep-alive connection
    errors: list[Exception] = []

    def stalled() -> None:
        try:
            client.post(server.url + CHAT, json={"stream": True, "messages": []}, timeout=10)
        except httpx.HTTPError as exc:
            errors.append(exc)

    thread = threading.Thread(target=stalled)
    thread.start()
    while not server.requests[1:]:
        time.sleep(0.01)
    started = time.monotonic()
    server.close()
    server.close()  # idempotent
    thread.join(5)
    # Not a speed claim: close did not wait for the stalled stream. It takes about 0.1 s (the
    # server polls every 0.05 s); 5 s is generous and still below the client's 10 s timeout
    # and the stall's 30 s.
    assert time.monotonic() - started < 5
    assert len(errors) == 1 and isinstance(errors[0], httpx.RemoteProtocolError)
    client.close()


def test_concurrent_streams_are_served_in_parallel_with_unique_numbers() -> None:
    # One stream takes 4 x 0.25 s = 1 s; six served one after another would take 6 s.
    scenario = {"default": {"text": "abcd", "chunk_size": 1, "delay_ms": 250}}
    with TestLLMServer(scenario) as server:
        texts: list[str] = []

        def one() -> None:
            events = post_sse(server.url, {"messages": []}, CHAT)
            texts.append(collect_openai(openai_chunks(events)).text)

        threads = [threading.Thread(target=one) for _ in range(6)]
        started = time.monotonic()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(10)
        elapsed = time.monotonic() - started
    assert texts == ["abcd"] * 6
    # Not a speed claim: the streams overlapped. Together they take about 1 s (mostly sleeping,
    # so a busy CPU hardly stretches it); 3 s leaves room and is half of the serial 6 s.
    assert elapsed < 3
    assert sorted(r["n"] for r in server.requests) == [1, 2, 3, 4, 5, 6]
