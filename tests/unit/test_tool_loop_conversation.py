"""Tool rounds in the conversation: append-only, every call answered, replayed exactly."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pytest

from aish.agent.toolbox import PreparedCall, answer_text, prepare, preview, with_distinct_ids
from aish.conversation.context import CALL_STOPPED, CALL_WAITS, Conversation
from aish.conversation.system_prompt import PromptFacts, render_system_prompt
from aish.llm import anthropic_protocol, openai_protocol
from aish.llm.types import Message, ModelTarget, ToolCall, ToolSpec

CALL_A = ToolCall("call_1", "time__get_current_time", '{"timezone": "UTC"}')
CALL_B = ToolCall("call_2", "notes__read_note", '{"name": "todo"}')


def _serialised(messages: Sequence[Message]) -> str:
    return json.dumps([m.__dict__ for m in messages], default=str)


def _round(conversation: Conversation) -> list[Message]:
    """Ask, and commit a reply with two calls; the request that was sent."""
    newest = conversation.user_message("what time is it?")
    sent = conversation.request(newest)
    conversation.commit(newest, "Let me look.", tool_calls=(CALL_A, CALL_B))
    return sent


def test_a_round_is_the_reply_with_its_calls_then_one_answer_per_call() -> None:
    conversation = Conversation("S")
    asked = _serialised(_round(conversation))
    assert conversation.unanswered_tool_calls() == [CALL_A, CALL_B]
    assert not conversation.awaits_reply
    with pytest.raises(ValueError):
        conversation.follow_up_request()  # a call without its answer: no request yet
    conversation.answer_tool_call("call_1", "12:00")
    assert conversation.unanswered_tool_calls() == [CALL_B]
    with pytest.raises(ValueError):
        conversation.answer_tool_call("call_1", "again")  # answered once only
    conversation.answer_tool_call("call_2", "buy milk")
    assert conversation.awaits_reply
    follow_up = conversation.follow_up_request()
    assert [m.role for m in follow_up] == ["system", "user", "assistant", "tool", "tool"]
    assert follow_up[2].tool_calls == (CALL_A, CALL_B)
    assert [(m.tool_call_id, m.content) for m in follow_up[3:]] == [
        ("call_1", "12:00"),
        ("call_2", "buy milk"),
    ]
    # Append-only: what was sent before is a prefix of the follow-up.
    assert _serialised(follow_up).startswith(asked[:-1])
    conversation.commit_follow_up("Noon, and buy milk.")
    assert not conversation.awaits_reply
    assert conversation.history[-1] == Message("assistant", "Noon, and buy milk.")
    with pytest.raises(ValueError):
        conversation.commit_follow_up("twice")


def test_a_side_request_during_a_round_answers_the_open_calls_for_itself_only() -> None:
    conversation = Conversation("S")
    _round(conversation)
    conversation.answer_tool_call("call_1", "12:00")
    history = list(conversation.history)
    side = conversation.request(Message("user", "is this destructive?"))
    assert [m.role for m in side[-3:]] == ["tool", "tool", "user"]
    assert side[-2] == Message("tool", CALL_WAITS, tool_call_id="call_2")
    assert conversation.history == history


def test_a_cut_reply_keeps_no_calls_and_ids_must_be_distinct() -> None:
    conversation = Conversation("S")
    conversation.commit(conversation.user_message("q"), "part", cut=True, tool_calls=(CALL_A,))
    assert conversation.history[-1].tool_calls == ()
    assert conversation.unanswered_tool_calls() == []
    with pytest.raises(ValueError):
        conversation.commit(conversation.user_message("q"), "", tool_calls=(CALL_A, CALL_A))


def test_distinct_ids_for_servers_that_send_none_or_the_same_twice() -> None:
    calls = [ToolCall("", "a", "{}"), ToolCall("x", "b", "{}"), ToolCall("x", "c", "{}")]
    fixed = with_distinct_ids(calls)
    assert len({call.id for call in fixed}) == 3
    assert fixed[1] is calls[1] and [c.name for c in fixed] == ["a", "b", "c"]


# ---- replay ----------------------------------------------------------------------------------


def _logged_round() -> list[tuple[str, Mapping[str, Any]]]:
    calls = [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in (CALL_A, CALL_B)]
    return [
        ("user", {"text": "what time?", "message": "what time?", "cwd": "/w"}),
        ("assistant", {"text": "Let me look.", "cut": False, "tool_calls": calls}),
        ("tool_result", {"call_id": "call_1", "name": CALL_A.name, "message": "12:00"}),
        ("tool_result", {"call_id": "call_2", "name": CALL_B.name, "message": "buy milk"}),
    ]


def test_replay_rebuilds_a_round_and_its_follow_up() -> None:
    turns = [*_logged_round(), ("assistant", {"text": "Noon.", "cut": False, "after_tools": True})]
    conversation = Conversation.replay("S", turns)
    assert [m.role for m in conversation.history] == [
        "user",
        "assistant",
        "tool",
        "tool",
        "assistant",
    ]
    assert conversation.history[1].tool_calls == (CALL_A, CALL_B)
    assert conversation.history[-1].content == "Noon."
    assert conversation.as_seen_by_model()[1:] == conversation.history


def test_replay_of_a_round_aish_died_in_answers_every_call() -> None:
    conversation = Conversation.replay("S", _logged_round()[:3])
    assert conversation.history[-1] == Message("tool", CALL_STOPPED, tool_call_id="call_2")
    assert conversation.awaits_reply  # the next question follows the answers
    # Died while the follow-up streamed: what was shown is kept, marked cut.
    died = [*_logged_round(), ("assistant_delta", {"text": "It is no"})]
    conversation = Conversation.replay("S", died)
    assert conversation.history[-1].content == "It is no\n[reply cut short]"
    # Died before any answer, then the user asked again: the round is closed first.
    again = [*_logged_round()[:2], ("user", {"message": "hello?"})]
    again.append(("assistant", {"text": "Hi."}))
    conversation = Conversation.replay("S", again)
    roles = [m.role for m in conversation.history]
    assert roles == ["user", "assistant", "tool", "tool", "user", "assistant"]


# ---- what the model reads ----------------------------------------------------------------------


@dataclass(frozen=True)
class _Tool:
    qualified: str
    server: str
    name: str
    annotations: Mapping[str, Any] | None = None
    trusted: bool = False
    held: str = ""


@dataclass(frozen=True)
class _Result:
    text: str
    is_error: bool = False
    duration_s: float = 0.1


class _Catalogue:
    """A fixed catalogue: `prepare` only looks tools up."""

    def __init__(self, *tools: _Tool) -> None:
        self._tools = {tool.qualified: tool for tool in tools}

    def tools(self) -> list[_Tool]:
        return list(self._tools.values())

    def refresh(self) -> bool:
        return False

    def find(self, qualified: str) -> _Tool | None:
        return self._tools.get(qualified)

    async def call(self, tool: _Tool, arguments: Mapping[str, Any]) -> _Result:
        raise AssertionError("prepare never calls a tool")


def test_prepare_turns_a_call_into_the_gates_action_or_an_error_for_the_model() -> None:
    tool = _Tool("my-srv__get", "my.srv", "get", {"readOnlyHint": True}, trusted=True)
    catalogue = _Catalogue(tool)
    prepared = prepare(ToolCall("c", "my-srv__get", '{"b": 1, "a": [2]}'), catalogue)
    assert isinstance(prepared, PreparedCall)
    action = prepared.action
    assert (action.server, action.tool, dict(action.arguments)) == (
        "my.srv",
        "get",
        {"b": 1, "a": [2]},
    )
    assert action.annotations == {"readOnlyHint": True} and action.server_trusted
    # The key does not care how the model spaced or ordered its JSON.
    again = prepare(ToolCall("d", "my-srv__get", '{"a":[2],"b":1}'), catalogue)
    assert isinstance(again, PreparedCall) and again.key == prepared.key
    assert prepare(ToolCall("c", "my-srv__get", "[1]"), catalogue) == (
        "[tool error] the arguments are not a JSON object (tool arguments are not a JSON "
        "object); nothing was run"
    )
    assert str(prepare(ToolCall("c", "my-srv__get", "{oops"), catalogue)).startswith(
        "[tool error] the arguments are not a JSON object (Expecting property name"
    )
    assert prepare(ToolCall("c", "x__y", "{}"), catalogue) == (
        "[tool error] there is no tool named 'x__y' here; nothing was run"
    )
    empty = prepare(ToolCall("c", "my-srv__get", ""), catalogue)
    assert isinstance(empty, PreparedCall) and dict(empty.action.arguments) == {}


def test_results_as_the_model_reads_them_and_as_the_user_sees_them() -> None:
    assert answer_text(_Result("12:00")) == "12:00"
    assert answer_text(_Result("no such zone", is_error=True)) == "[tool error] no such zone"
    assert answer_text(_Result("")) == "[no output]"
    assert preview("a\nb\nc\nd\ne\n") == "a\nb\nc\nd\n…"
    assert preview("x" * 500).endswith("…") and len(preview("x" * 500)) == 240


def test_the_system_prompt_says_tools_may_come_and_stays_fixed() -> None:
    with_tools = render_system_prompt(PromptFacts("Linux", "bash", tools=True))
    without = render_system_prompt(PromptFacts("Linux", "bash"))
    assert with_tools.startswith(without) and "Tools may be offered" in with_tools
    assert "Tools" not in without


def test_both_apis_carry_a_round_and_the_next_question() -> None:
    conversation = Conversation("S")
    _round(conversation)
    conversation.answer_tool_call("call_1", "12:00")
    conversation.answer_tool_call("call_2", "[tool error] gone")
    request = conversation.request(Message("user", "next step"))
    target = ModelTarget("t", "http://127.0.0.1:1/v1", "m")
    openai = openai_protocol.request_body(target, request, None)["messages"]
    assert [m["role"] for m in openai] == ["system", "user", "assistant", "tool", "tool", "user"]
    # With tools offered (as when the round happened); without, Anthropic gets the round as
    # text (see test_request_bodies).
    tools = [ToolSpec("time__now", "", {"type": "object"})]
    anthropic = anthropic_protocol.request_body(target, request, tools)["messages"]
    assert [m["role"] for m in anthropic] == ["user", "assistant", "user"]
    results = anthropic[2]["content"]
    assert [block["type"] for block in results] == ["tool_result", "tool_result", "text"]
    assert [block["type"] for block in anthropic[1]["content"]] == ["text", "tool_use", "tool_use"]
