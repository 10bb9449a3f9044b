"""aish-testllm scenario validation, request views and rule matching (no HTTP)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from aish_testllm.chat_request import BadRequest, ChatRequest, parse_chat_request
from aish_testllm.matching import Matcher, when_matches
from aish_testllm.scenario import (
    DEFAULT_SCENARIO,
    Reply,
    ScenarioError,
    load_scenario,
    parse_scenario,
)

DOC_EXAMPLE: dict[str, Any] = {
    "models": ["testllm"],
    "loading_s": 0,
    "rules": [
        {"name": "greet", "when": {"user": "^hi\\b"}, "reply": {"text": "Hello!"}},
        {
            "name": "flaky",
            "when": {"user": "retry me"},
            "replies": [{"status": 503, "body": {"error": {"message": "busy"}}}, {"text": "ok"}],
        },
        {"when": {"request": 3}, "reply": {"status": 500}},
        {
            "when": {"tools": True, "model": "big"},
            "reply": {"tool_calls": [{"name": "ls", "arguments": {"path": "."}}]},
            "times": 1,
        },
    ],
    "default": {"text": "Default reply."},
}


def _openai(user: str = "hi", **body: Any) -> ChatRequest:
    return parse_chat_request("openai", {"messages": [{"role": "user", "content": user}], **body})


# --- validation -----------------------------------------------------------------------------


def test_the_documented_example_and_the_builtin_default_are_valid() -> None:
    scenario = parse_scenario(DOC_EXAMPLE)
    assert [r.label for r in scenario.rules] == ["greet", "flaky", 2, 3]
    assert scenario.rules[1].replies[0].status == 503
    assert scenario.rules[3].times == 1
    assert parse_scenario(DEFAULT_SCENARIO).default is not None


def test_empty_scenario_gets_defaults() -> None:
    scenario = parse_scenario({})
    assert scenario.models == ("testllm",)
    assert (scenario.loading_s, scenario.rules, scenario.default) == (0.0, (), None)
    assert Reply().chunk_size == 16 and Reply().effective_finish_reason == "stop"


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ([], "scenario: expected an object"),
        ({"rule": []}, "scenario: unknown key 'rule'"),
        ({"models": []}, "models: must name at least one model"),
        ({"rules": [{"reply": {"txt": "x"}}]}, "rules[0].reply: unknown key 'txt'"),
        (
            {"rules": [{"reply": {}}, {"replies": [{}, {"delay": 1}]}]},
            "rules[1].replies[1]: unknown key 'delay'",
        ),
        ({"rules": [{"reply": {}, "after": 1}]}, "rules[0]: unknown key 'after'"),
        ({"rules": [{"when": {"usr": "x"}, "reply": {}}]}, "rules[0].when: unknown key 'usr'"),
        ({"rules": [{"when": {"user": "("}, "reply": {}}]}, "rules[0].when.user: invalid regular"),
        ({"rules": [{"when": {"request": 0}, "reply": {}}]}, "rules[0].when.request: must be >= 1"),
        ({"rules": [{"when": {"api": "gemini"}, "reply": {}}]}, "rules[0].when.api: must be one"),
        ({"rules": [{"when": {"tools": 1}, "reply": {}}]}, "rules[0].when.tools: expected true"),
        ({"rules": [{}]}, "rules[0]: needs exactly one of 'reply' or 'replies'"),
        ({"rules": [{"reply": {}, "replies": [{}]}]}, "needs exactly one of"),
        ({"rules": [{"replies": []}]}, "rules[0].replies: expected a non-empty list"),
        ({"default": {"chunk_size": 0}}, "default.chunk_size: must be >= 1"),
        ({"default": {"chunk_size": True}}, "default.chunk_size: expected an integer, got bool"),
        ({"default": {"text": 3}}, "default.text: expected a string, got int"),
        ({"default": {"body": {}}}, "default: 'body' requires 'status'"),
        ({"default": {"stall_after": 1}}, "default: 'stall_after' requires 'stall_s'"),
        ({"default": {"cut_mid_json": True}}, "default: 'cut_mid_json' requires 'cut_after'"),
        ({"default": {"raw": ["x"], "text": "y"}}, "'raw' cannot be combined with 'text'"),
        ({"default": {"status": 500, "cut_after": 1}}, "'status' cannot be combined"),
        ({"default": {"tool_style": "split"}}, "default.tool_style: must be one of"),
        ({"default": {"error_style": "x", "error_after": 1}}, "default.error_style: must be one"),
        ({"default": {"comments": ["ping"]}}, "default.comments[0]: an SSE comment"),
        ({"default": {"usage": {"tokens": 1}}}, "default.usage: unknown key 'tokens'"),
        ({"default": {"headers": {"X": [1]}}}, "default.headers.X: header values"),
        ({"default": {"tool_calls": [{"arguments": {}}]}}, "default.tool_calls[0]: missing 'name'"),
        (
            {"default": {"tool_calls": [{"name": "ls", "args": {}}]}},
            "default.tool_calls[0]: unknown key 'args'",
        ),
    ],
)
def test_invalid_scenarios_name_the_place_and_the_problem(document: Any, message: str) -> None:
    with pytest.raises(ScenarioError) as caught:
        parse_scenario(document)
    assert message in str(caught.value)


def test_load_scenario_reports_json_position_and_unreadable_files(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{\n  "rules": [,]\n}')
    with pytest.raises(ScenarioError, match=r"invalid JSON at line 2 column 13"):
        load_scenario(bad)
    with pytest.raises(ScenarioError, match="cannot read file"):
        load_scenario(tmp_path / "missing.json")
    good = tmp_path / "good.json"
    good.write_text(json.dumps(DOC_EXAMPLE))
    assert len(load_scenario(good).rules) == 4


# --- request views --------------------------------------------------------------------------


def test_openai_view_uses_text_parts_system_messages_tools_and_stream_options() -> None:
    request = parse_chat_request(
        "openai",
        {
            "model": "m1",
            "stream": True,
            "stream_options": {"include_usage": True},
            "tools": [{"type": "function", "function": {"name": "ls"}}],
            "messages": [
                {"role": "system", "content": "be terse"},
                {"role": "user", "content": "old"},
                {"role": "assistant", "content": "x"},
                {
                    "role": "user",
                    "content": [{"type": "text", "text": "a "}, {"type": "image_url"}, "b"],
                },
            ],
        },
    )
    assert (request.api, request.model, request.stream, request.include_usage) == (
        "openai",
        "m1",
        True,
        True,
    )
    assert (request.user_text, request.system_text, request.has_tools) == ("a b", "be terse", True)
    assert request.prompt.startswith('{"tools":[{"type":"function"')


def test_openai_trailing_tool_messages_count_as_the_user_turn() -> None:
    request = parse_chat_request(
        "openai",
        {
            "messages": [
                {"role": "user", "content": "list"},
                {"role": "assistant", "tool_calls": []},
                {"role": "tool", "content": "a.txt\n"},
                {"role": "tool", "content": [{"type": "text", "text": "b.txt"}]},
            ]
        },
    )
    assert request.user_text == "a.txt\nb.txt"


def test_anthropic_view_reads_system_blocks_and_tool_results() -> None:
    request = parse_chat_request(
        "anthropic",
        {
            "model": "claude",
            "system": [{"type": "text", "text": "sys A"}, {"type": "text", "text": " B"}],
            "tools": [],
            "messages": [
                {"role": "user", "content": "list files"},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "ls"}]},
                {
                    "role": "user",
                    "content": [
                        {"type": "tool_result", "tool_use_id": "t", "content": "a.txt"},
                        {
                            "type": "tool_result",
                            "tool_use_id": "u",
                            "content": [{"type": "text", "text": " b.txt"}],
                        },
                    ],
                },
            ],
        },
    )
    assert (request.user_text, request.system_text, request.has_tools) == (
        "a.txt b.txt",
        "sys A B",
        False,
    )
    assert request.prompt.startswith('{"tools":[],"system":[{"type":"text"')


@pytest.mark.parametrize("body", [[], {"messages": "hi"}, {"tools": {}}])
def test_unusable_bodies_are_bad_requests(body: Any) -> None:
    with pytest.raises(BadRequest):
        parse_chat_request("openai", body)


# --- matching -------------------------------------------------------------------------------


def _when(**when: Any) -> Any:
    return parse_scenario({"rules": [{"when": when, "reply": {}}]}).rules[0].when


def test_each_when_key() -> None:
    plain = _openai("hi there", model="big-model", stream=True)
    assert when_matches(_when(), plain, 1)
    assert when_matches(_when(user="^hi\\b"), plain, 1)
    assert not when_matches(_when(user="^there"), plain, 1)
    assert when_matches(_when(model="big"), plain, 1)
    assert not when_matches(_when(model="^small"), plain, 1)
    assert when_matches(_when(request=2), plain, 2)
    assert not when_matches(_when(request=2), plain, 3)
    assert when_matches(_when(tools=False), plain, 1)
    assert not when_matches(_when(tools=True), plain, 1)
    assert when_matches(_when(api="openai"), plain, 1)
    assert not when_matches(_when(api="anthropic"), plain, 1)
    assert when_matches(_when(stream=True), plain, 1)
    assert not when_matches(_when(stream=False), plain, 1)
    system = parse_chat_request(
        "openai", {"messages": [{"role": "system", "content": "You are aish"}]}
    )
    assert when_matches(_when(system="aish"), system, 1)
    assert not when_matches(_when(system="aish"), plain, 1)
    assert when_matches(_when(user="hi", stream=True, api="openai"), plain, 1)
    assert not when_matches(_when(user="hi", stream=False), plain, 1)


def test_sequences_repeat_the_last_reply_and_times_limits_a_rule() -> None:
    matcher = Matcher(
        parse_scenario(
            {
                "rules": [
                    {"name": "once", "when": {"user": "x"}, "reply": {"text": "1"}, "times": 1},
                    {
                        "name": "seq",
                        "when": {"user": "x"},
                        "replies": [{"text": "a"}, {"text": "b"}],
                    },
                ],
                "default": {"text": "d"},
            }
        )
    )
    picks = [matcher.select(_openai(user)) for user in ["x", "x", "y", "x", "x"]]
    assert [(s.n, s.rule, s.reply.text) for s in picks] == [
        (1, "once", "1"),
        (2, "seq", "a"),
        (3, "default", "d"),
        (4, "seq", "b"),
        (5, "seq", "b"),
    ]


def test_times_zero_disables_and_no_default_echoes() -> None:
    matcher = Matcher(parse_scenario({"rules": [{"reply": {"text": "never"}, "times": 0}]}))
    selection = matcher.select(_openai("ping?"))
    assert (selection.rule, selection.reply.text) == ("default", "You said: ping?")
