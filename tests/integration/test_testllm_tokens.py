"""aish-testllm token counts over real HTTP: `chars_per_token`, `/tokenize`, `/apply-template`."""

from __future__ import annotations

import json
import math
import time
from typing import Any

import httpx
import pytest

from aish_testllm.prefix import serialise_prompt
from aish_testllm.scenario import ScenarioError, parse_scenario
from aish_testllm.server import TestLLMServer
from aish_testllm.tokens import estimate_tokens, tokenize

CHAT = "/v1/chat/completions"
SYSTEM = {"role": "system", "content": "You answer questions about shells. " * 8}
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "read_file",
            "description": "Read a file",
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
        },
    }
]


def _chat(server: TestLLMServer, messages: list[Any], **body: Any) -> dict[str, Any]:
    response = httpx.post(server.url + CHAT, json={"model": "m", "messages": messages, **body})
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()
    return result


def _token_count(server: TestLLMServer, content: str) -> int:
    response = httpx.post(server.url + "/tokenize", json={"content": content, "add_special": True})
    assert response.status_code == 200
    return len(response.json()["tokens"])


# --- the stand-in tokenizer --------------------------------------------------------------------


@pytest.mark.parametrize("ratio", [1, 2.5, 3, 3.3, 4, 7.25])
def test_tokenize_length_always_equals_the_usage_count(ratio: float) -> None:
    for length in range(0, 60):
        text = "".join(chr(97 + i % 26) for i in range(length))
        assert (
            len(tokenize(text, ratio))
            == estimate_tokens(length, ratio)
            == math.ceil(length / ratio)
        )


def test_default_tokenize_is_unchanged_four_character_pieces() -> None:
    text = "0123456789abcdefghij-"
    assert tokenize(text) == tokenize(text, 4.0)
    assert [tokenize(text[i : i + 4]) for i in range(0, len(text), 4)] == [
        [t] for t in tokenize(text)
    ]
    assert tokenize("abcd", 2) == tokenize("ab", 2) + tokenize("cd", 2)


def test_chars_per_token_is_validated() -> None:
    assert parse_scenario({}).chars_per_token == 4.0
    assert parse_scenario({"chars_per_token": 2.5}).chars_per_token == 2.5
    assert parse_scenario({"chars_per_token": 3}).chars_per_token == 3.0
    for bad, problem in (
        (0, "must be a finite number > 0, got 0"),
        (-1.5, "must be a finite number > 0"),
        (float("nan"), "must be a finite number > 0"),
        ("3", "expected a number, got str"),
        (True, "expected a number, got bool"),
        (None, "expected a number, got null"),
    ):
        with pytest.raises(ScenarioError) as caught:
            parse_scenario({"chars_per_token": bad})
        assert str(caught.value).startswith("chars_per_token: ")
        assert problem in str(caught.value)


# --- chars_per_token over HTTP -----------------------------------------------------------------


def test_chars_per_token_scales_prompt_completion_and_cached_tokens() -> None:
    turn1 = [SYSTEM, {"role": "user", "content": "first question"}]
    turn2 = [*turn1, {"role": "assistant", "content": "abcdefgh"}, {"role": "user", "content": "x"}]
    with TestLLMServer({"chars_per_token": 2.5, "default": {"text": "abcdefgh"}}) as server:
        usages = [_chat(server, turn1)["usage"], _chat(server, turn2)["usage"]]
        assert _token_count(server, "123456789") == 4  # ceil(9 / 2.5)
    reuse = [r["prefix_reuse"]["chars"] for r in server.requests if r["n"] is not None]
    for usage, messages in zip(usages, (turn1, turn2), strict=True):
        assert usage["prompt_tokens"] == math.ceil(
            len(serialise_prompt(None, None, messages)) / 2.5
        )
        assert usage["completion_tokens"] == 4  # ceil(8 / 2.5)
    assert [u["prompt_tokens_details"]["cached_tokens"] for u in usages] == [
        0,
        math.floor(reuse[1] / 2.5),
    ]


def test_chars_per_token_applies_to_the_anthropic_endpoint() -> None:
    body: dict[str, Any] = {
        "model": "m",
        "max_tokens": 50,
        "system": "Be brief.",
        "messages": [{"role": "user", "content": [{"type": "text", "text": "hello there"}]}],
    }
    with TestLLMServer({"chars_per_token": 3, "default": {"text": "0123456789"}}) as server:
        usage = httpx.post(server.url + "/v1/messages", json=body).json()["usage"]
    prompt = serialise_prompt(None, body["system"], body["messages"])
    assert usage["input_tokens"] + usage["cache_read_input_tokens"] == math.ceil(len(prompt) / 3)
    assert usage["output_tokens"] == 4  # ceil(10 / 3)


# --- /apply-template ---------------------------------------------------------------------------


@pytest.mark.parametrize("ratio", [None, 2.5])
def test_apply_template_then_tokenize_gives_the_chat_prompt_tokens(ratio: float | None) -> None:
    messages = [
        SYSTEM,
        {"role": "user", "content": "list the files, with ünïcode"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "read_file", "arguments": '{"path":"a"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "line 1\nline 2\n"},
    ]
    scenario: dict[str, Any] = {"default": {"text": "done"}}
    if ratio is not None:
        scenario["chars_per_token"] = ratio
    with TestLLMServer(scenario) as server:
        for tools in (None, TOOLS):
            extra = {"tools": tools} if tools else {}
            rendered = httpx.post(
                server.url + "/apply-template", json={"messages": messages, **extra}
            )
            assert rendered.status_code == 200
            prompt = rendered.json()["prompt"]
            assert prompt == serialise_prompt(tools, None, messages)
            reported = _chat(server, messages, stream=False, **extra)["usage"]["prompt_tokens"]
            assert _token_count(server, prompt) == reported
    logged = [(r["path"], r["n"]) for r in server.requests]
    assert logged[:3] == [("/apply-template", None), (CHAT, 1), ("/tokenize", None)]
    assert server.requests[0]["body"]["messages"] == messages


def test_apply_template_rejects_bad_bodies_and_waits_for_loading() -> None:
    with TestLLMServer({"loading_s": 0.3}) as server:
        loading = httpx.post(server.url + "/apply-template", json={"messages": []})
        assert loading.status_code == 503
        assert httpx.post(server.url + "/tokenize", json={"content": "x"}).status_code == 503
        time.sleep(0.35)
        for body in ({"messages": "hi"}, {"messages": [], "tools": {}}, [1]):
            bad = httpx.post(server.url + "/apply-template", json=body)
            assert bad.status_code == 400
            assert "Invalid request" in bad.json()["error"]["message"]
        bad = httpx.post(server.url + "/apply-template", content=b"{not json")
        assert bad.status_code == 400
        empty = httpx.post(server.url + "/apply-template", json={})
        assert empty.json() == {
            "prompt": json.dumps(
                {"tools": [], "system": None, "messages": []}, separators=(",", ":")
            )
        }
        assert httpx.get(server.url + "/apply-template").status_code == 404
    assert all(r["n"] is None for r in server.requests)
