"""The tool sub-loop of a chat turn, against real parts: aish-testllm over HTTP scripts the
model's tool calls, real MCP servers (`mcp-server-time`, the SDK-built notes server) answer
them through `McpServers`, the real gate judges each call and `ToolRunner` runs it.

The frontend is scripted (it is the UI boundary: it answers the confirm prompt).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from aish.agent import gate
from aish.agent.chat import ChatTurn
from aish.agent.events import ToolCallFinished, ToolCallStarted
from aish.agent.gate import Authorization
from aish.agent.second_opinion import SecondOpinion
from aish.config.validation import validate_config
from aish.conversation.context import CommandRun, Conversation
from aish.llm.types import ModelTarget
from aish.mcp import McpServers
from aish.run.tool_calls import ToolRunner
from aish.session import preset_resolver
from tests.support import ScriptedFrontend

from ..conftest import ServeFn
from .tool_loop_support import chat_requests, mcp_servers, needs_time, notes_server, sent
from .tool_loop_support import time_server as time_table

pytestmark = needs_time

SYSTEM = "You are aish."
PARIS = '{"timezone": "Europe/Paris"}'


async def no_shell(authorization: Authorization) -> CommandRun:
    raise AssertionError("no command was meant to run")


class Turn:
    """A chat turn wired as the REPL wires it, with its session log kept."""

    def __init__(
        self,
        url: str,
        frontend: ScriptedFrontend,
        servers: McpServers | None,
        *,
        tools: bool = True,
        max_tool_calls: int = 8,
        auto_approve: Mapping[str, tuple[str, ...]] | None = None,
        second_opinion: SecondOpinion | None = None,
        fallback: ModelTarget | None = None,
    ) -> None:
        self.log: list[tuple[str, dict[str, Any]]] = []
        self.conversation = Conversation(SYSTEM)
        target = ModelTarget("local", f"{url}/v1", "testllm", max_retries=0, tools=tools)
        self.chat = ChatTurn(
            self.conversation,
            target,
            frontend,
            no_shell,
            self.record,
            policy=gate.Policy("interactive", auto_approve=auto_approve or {}),
            second_opinion=second_opinion,
            tools=servers,
            run_tool=ToolRunner(servers).run_authorized if servers is not None else None,
            max_tool_calls=max_tool_calls,
            fallback=fallback,
        )

    def record(self, kind: str, payload: Mapping[str, Any]) -> None:
        self.log.append((kind, dict(payload)))


@pytest.fixture
def notes(tmp_path: Path) -> Path:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "todo").write_text("buy milk\n")
    return folder


@pytest.fixture
async def time_only(tmp_path: Path) -> AsyncIterator[McpServers]:
    async with mcp_servers({"time": time_table(trusted=True)}, tmp_path / "logs") as servers:
        yield servers


@pytest.fixture
async def both(tmp_path: Path, notes: Path) -> AsyncIterator[McpServers]:
    tables = {"time": time_table(trusted=True), "notes": notes_server(notes, trusted=True)}
    async with mcp_servers(tables, tmp_path / "logs") as servers:
        yield servers


def tool_loop(*calls: dict[str, Any], answer_when: str, answer: str = "Done.") -> dict[str, Any]:
    """The first request gets `calls`; the request whose tool results match `answer_when`
    gets the text `answer`; any other, "You said: …"."""
    return {
        "rules": [
            {"name": "answer", "when": {"user": answer_when}, "reply": {"text": answer}},
            {
                "name": "call",
                "when": {"tools": True},
                "reply": {"tool_calls": list(calls)},
                "times": 1,
            },
        ]
    }


# ---- a call asked, run, answered --------------------------------------------------------------


async def test_a_tool_call_asks_runs_and_its_result_reaches_the_model(
    serve: ServeFn, time_only: McpServers
) -> None:
    server = serve(
        tool_loop(
            {"name": "time__get_current_time", "arguments": {"timezone": "Europe/Paris"}},
            answer_when="Europe/Paris",
            answer="It is evening in Paris.",
        )
    )
    frontend = ScriptedFrontend("yes")
    turn = Turn(server.url, frontend, time_only)
    outcome = await turn.chat.ask("what time is it in France?")

    # The gate asked (no auto_approve), showing the call and its verdict.
    assert [text for text, _ in frontend.asked] == [f"time__get_current_time {PARIS}"]
    assert frontend.asked[0][1].level == "safe"  # a trusted server's read-only tool
    first, second = chat_requests(server)
    # The real server's result reached the next request as a tool message, after the call.
    call_message, result_message = second["body"]["messages"][-2:]
    assert call_message["role"] == "assistant" and call_message["content"] is None
    [call] = call_message["tool_calls"]
    assert call["function"] == {
        "name": "time__get_current_time",
        "arguments": '{"timezone":"Europe/Paris"}',
    }
    assert result_message["role"] == "tool" and result_message["tool_call_id"] == call["id"]
    assert json.loads(result_message["content"])["timezone"] == "Europe/Paris"
    # No new user message: the follow-up is the first request plus the round, byte for byte.
    assert second["body"]["messages"][:-2] == first["body"]["messages"]
    assert second["body"]["tools"] == first["body"]["tools"]
    assert [t["function"]["name"] for t in first["body"]["tools"]] == [
        "time__convert_time",
        "time__get_current_time",
    ]
    # The whole first request (but its closing brackets) is the cached prefix of the second.
    assert second["prefix_reuse"]["chars"] >= len(sent(first)) - 2
    assert second["prefix_reuse"]["fraction"] > 0.7
    # The final text is the turn's reply, committed after the round.
    assert outcome.reply.text == "It is evening in Paris." and outcome.tool_calls == 1
    roles = [m.role for m in turn.conversation.history]
    assert roles == ["user", "assistant", "tool", "assistant"]
    assert turn.conversation.history[-1].content == "It is evening in Paris."
    started, finished = frontend.of(ToolCallStarted), frontend.of(ToolCallFinished)
    assert started == [ToolCallStarted("time__get_current_time", PARIS, "safe")]
    assert len(finished) == 1 and not finished[0].is_error
    assert "Europe/Paris" in finished[0].text and finished[0].duration_s >= 0

    # The next turn appends to the same prefix, and `aish --resume` rebuilds it exactly.
    await turn.chat.ask("thanks")
    third = chat_requests(server)[2]
    assert (
        third["body"]["messages"][: len(second["body"]["messages"])] == (second["body"]["messages"])
    )
    assert third["prefix_reuse"]["fraction"] > 0.8
    replayed = Conversation.replay(SYSTEM, turn.log)
    assert replayed.history == turn.conversation.history


async def test_the_loop_speaks_anthropic_too(serve: ServeFn, time_only: McpServers) -> None:
    server = serve(
        tool_loop(
            {"name": "time__get_current_time", "arguments": {"timezone": "Europe/Paris"}},
            answer_when="Europe/Paris",
        )
    )
    frontend = ScriptedFrontend("yes")
    turn = Turn(server.url, frontend, time_only)
    turn.chat.target = ModelTarget("claude", server.url, "testllm", api="anthropic", max_retries=0)
    outcome = await turn.chat.ask("what time is it in France?")
    assert outcome.reply.text == "Done."
    first, second = [r for r in server.requests if r["path"] == "/v1/messages"]
    assert second["body"]["tools"] == first["body"]["tools"]
    call_turn, result_turn = second["body"]["messages"][-2:]
    [use] = [b for b in call_turn["content"] if b["type"] == "tool_use"]
    assert use["input"] == {"timezone": "Europe/Paris"}
    [result] = result_turn["content"]
    assert result["type"] == "tool_result" and result["tool_use_id"] == use["id"]
    assert "Europe/Paris" in result["content"]


async def test_auto_approve_runs_a_trusted_read_only_tool_without_asking(
    serve: ServeFn, time_only: McpServers
) -> None:
    server = serve(
        tool_loop(
            {"name": "time__get_current_time", "arguments": {"timezone": "Europe/Paris"}},
            answer_when="Europe/Paris",
        )
    )
    frontend = ScriptedFrontend()
    turn = Turn(server.url, frontend, time_only, auto_approve={"time": ("get_*",)})
    await turn.chat.ask("time in France?")
    assert frontend.asked == []
    assert "[safe] time__get_current_time runs without asking (auto_approve)" in (
        frontend.statuses()
    )
    assert len(frontend.of(ToolCallFinished)) == 1
    assert turn.conversation.history[-1].content == "Done."


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("notes__write_note", {"name": "todo", "text": "gone"}),  # no annotations
        ("notes__drop_notes", {}),  # destructiveHint
    ],
)
async def test_a_tool_that_may_destroy_asks_even_when_auto_approved(
    serve: ServeFn, both: McpServers, notes: Path, tool: str, arguments: dict[str, Any]
) -> None:
    server = serve(tool_loop({"name": tool, "arguments": arguments}, answer_when="declined"))
    frontend = ScriptedFrontend("no")
    turn = Turn(server.url, frontend, both, auto_approve={"notes": ("*",)})
    await turn.chat.ask("clean up my notes")
    [(text, verdict)] = frontend.asked
    assert text.startswith(f"{tool} ") and verdict.level == "destructive"
    # Declined: nothing ran, and the model was told so in the call's own answer.
    assert (notes / "todo").read_text() == "buy milk\n"
    assert frontend.of(ToolCallStarted) == []
    told = chat_requests(server)[1]["body"]["messages"][-1]
    assert told["role"] == "tool"
    assert told["content"] == "[aish] not run: the user declined this call"
    assert f"not run: {text}" in frontend.statuses()
    assert turn.conversation.history[-1].content == "Done."


async def test_an_approved_write_really_writes(
    serve: ServeFn, both: McpServers, notes: Path
) -> None:
    call = {"name": "notes__write_note", "arguments": {"name": "plan", "text": "ship it"}}
    server = serve(tool_loop(call, answer_when="wrote plan"))
    turn = Turn(server.url, ScriptedFrontend("yes"), both)
    await turn.chat.ask("write my plan down")
    assert (notes / "plan").read_text() == "ship it"
    assert chat_requests(server)[1]["body"]["messages"][-1]["content"].startswith("wrote plan")


async def test_a_tool_error_reaches_the_model_marked_as_an_error(
    serve: ServeFn, both: McpServers
) -> None:
    server = serve(tool_loop({"name": "notes__broken"}, answer_when="disk is on fire"))
    frontend = ScriptedFrontend("yes")
    turn = Turn(server.url, frontend, both)
    await turn.chat.ask("try it")
    told = chat_requests(server)[1]["body"]["messages"][-1]["content"]
    assert told.startswith("[tool error] ") and "the disk is on fire" in told
    [finished] = frontend.of(ToolCallFinished)
    assert finished.is_error and "the disk is on fire" in finished.text
    assert turn.conversation.history[-1].content == "Done."


# ---- calls that cannot be made -----------------------------------------------------------------


async def test_malformed_arguments_and_unknown_tools_are_errors_for_the_model(
    serve: ServeFn, time_only: McpServers
) -> None:
    server = serve(
        tool_loop(
            {"name": "time__get_current_time", "arguments": '{"timezone": "Eur'},
            {"name": "files__delete_everything", "arguments": {}},
            answer_when="no tool named",
        )
    )
    frontend = ScriptedFrontend()
    turn = Turn(server.url, frontend, time_only)
    outcome = await turn.chat.ask("break things")
    assert frontend.asked == [] and frontend.of(ToolCallStarted) == []
    messages = chat_requests(server)[1]["body"]["messages"]
    bad_json, unknown = messages[-2:]
    assert bad_json["role"] == unknown["role"] == "tool"
    assert bad_json["content"].startswith("[tool error] the arguments are not a JSON object")
    assert unknown["content"] == (
        "[tool error] there is no tool named 'files__delete_everything' here; nothing was run"
    )
    assert outcome.reply.text == "Done." and outcome.error is None


# ---- the limit, cancelling ---------------------------------------------------------------------


async def test_the_tool_call_limit_stops_the_loop_with_one_status_line(
    serve: ServeFn, both: McpServers
) -> None:
    # A model that never stops calling: every request gets another call.
    server = serve(
        {"default": {"tool_calls": [{"name": "notes__read_note", "arguments": {"name": "todo"}}]}}
    )
    frontend = ScriptedFrontend()
    turn = Turn(
        server.url, frontend, both, max_tool_calls=2, auto_approve={"notes": ("read_note",)}
    )
    await turn.chat.ask("read it forever")
    assert len(chat_requests(server)) == 3  # the question, then one follow-up per call run
    assert len(frontend.of(ToolCallFinished)) == 2
    limit = [s for s in frontend.statuses() if s.startswith("tool-call limit")]
    assert limit == [
        "tool-call limit reached (2 calls this turn, mcp.max_tool_calls): 1 more not run"
    ]
    # Every call has its answer; the one over the limit says why it did not run.
    history = turn.conversation.history
    assert [m.role for m in history] == ["user"] + ["assistant", "tool"] * 3
    assert history[-1].content.startswith(
        "[aish] not run: this request reached its limit of 2 tool calls"
    )
    assert turn.conversation.unanswered_tool_calls() == []
    # The model hears about it with the next question, which follows the answers directly.
    await turn.chat.ask("what did you find?")
    asked_again = chat_requests(server)[3]["body"]["messages"]
    assert [m["role"] for m in asked_again[-2:]] == ["tool", "user"]


async def test_cancel_at_the_prompt_answers_every_call_and_proposes_nothing_more(
    serve: ServeFn, both: McpServers
) -> None:
    server = serve(
        {
            "default": {
                "text": "CMD: ls\n",
                "tool_calls": [
                    {"name": "notes__write_note", "arguments": {"name": "a", "text": "1"}},
                    {"name": "notes__write_note", "arguments": {"name": "b", "text": "2"}},
                ],
            }
        }
    )
    frontend = ScriptedFrontend("cancel")
    turn = Turn(server.url, frontend, both)
    outcome = await turn.chat.ask("write two notes")
    assert outcome.cancelled and outcome.commands == []
    assert len(frontend.asked) == 1 and len(chat_requests(server)) == 1
    answers = [m.content for m in turn.conversation.history if m.role == "tool"]
    assert answers == ["[aish] not run: the user cancelled this reply's calls"] * 2
    assert "cancelled: 2 tool call(s) not run" in frontend.statuses()


async def test_ctrl_c_during_a_call_leaves_every_call_answered(
    serve: ServeFn, both: McpServers
) -> None:
    calls = [
        {"name": "notes__wait", "arguments": {"seconds": 30}},
        {"name": "notes__read_note", "arguments": {"name": "todo"}},
    ]
    server = serve({"rules": [{"when": {}, "reply": {"tool_calls": calls}, "times": 1}]})
    frontend = ScriptedFrontend()
    turn = Turn(server.url, frontend, both, auto_approve={"notes": ("*",)})
    asking = asyncio.create_task(turn.chat.ask("wait for it"))
    while not frontend.of(ToolCallStarted):
        await asyncio.sleep(0.02)
    asking.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asking
    answers = [m.content for m in turn.conversation.history if m.role == "tool"]
    assert answers == [
        "[tool error] interrupted by the user before it finished",
        "[aish] not run: the user interrupted the turn",
    ]
    assert [e.is_error for e in frontend.of(ToolCallFinished)] == [True]
    # The next question is a request the API accepts, and `--resume` agrees.
    await turn.chat.ask("never mind")
    assert [m["role"] for m in chat_requests(server)[1]["body"]["messages"][-3:]] == [
        "tool",
        "tool",
        "user",
    ]
    assert Conversation.replay(SYSTEM, turn.log).history[:5] == turn.conversation.history[:5]


# ---- who gets tools ----------------------------------------------------------------------------


async def test_a_preset_without_tools_is_offered_none(
    serve: ServeFn, time_only: McpServers
) -> None:
    # A model that calls a tool anyway is told it was not called; nothing dangles.
    server = serve({"default": {"tool_calls": [{"name": "time__get_current_time"}]}})
    frontend = ScriptedFrontend()
    turn = Turn(server.url, frontend, time_only, tools=False)
    await turn.chat.ask("time?")
    await turn.chat.ask("again")
    first, second = chat_requests(server)
    assert "tools" not in first["body"] and "tools" not in second["body"]
    assert [m.role for m in turn.conversation.history] == ["user", "assistant"] * 2
    told = second["body"]["messages"][-1]["content"]
    assert "[aish] no tools are offered here; time__get_current_time was not called" in told
    assert frontend.asked == [] and frontend.of(ToolCallStarted) == []


async def test_without_servers_no_tools_are_offered(serve: ServeFn) -> None:
    server = serve({"default": {"text": "Hi."}})
    turn = Turn(server.url, ScriptedFrontend(), None)
    await turn.chat.ask("hello")
    assert "tools" not in chat_requests(server)[0]["body"]


# ---- the second opinion inside a round --------------------------------------------------------

# A trusted `append_note` only adds: `unknown`; auto-approved, so the second opinion decides
# whether it runs without asking. The chat's model would clear anything: it must never be asked.
APPEND_EGGS = {
    "rules": [
        {"name": "safety", "when": {"user": "aish safety check"}, "reply": {"text": "NO"}},
        {"name": "judged", "when": {"system": "^Detect destructive"}, "reply": {"text": "NO"}},
        {"name": "answer", "when": {"user": "appended|not run"}, "reply": {"text": "Noted."}},
        {
            "name": "call",
            "when": {"tools": True},
            "reply": {
                "tool_calls": [
                    {"name": "notes__append_note", "arguments": {"name": "todo", "text": "eggs"}}
                ]
            },
        },
    ]
}


@pytest.mark.parametrize("judge", ["none", "the chat's own model"])
async def test_an_auto_approved_unknown_call_asks_without_an_independent_judge(
    serve: ServeFn, both: McpServers, notes: Path, judge: str
) -> None:
    server = serve(APPEND_EGGS)
    # `fast` is the chat's model under another preset name (and `localhost`, not 127.0.0.1).
    same = {"endpoint": f"{server.url.replace('127.0.0.1', 'localhost')}/v1", "model": "testllm"}
    models = {"fast": same} if judge != "none" else {}
    settings = validate_config({"models": models})
    opinion = SecondOpinion.from_config(settings, preset_resolver(settings, {}))
    frontend = ScriptedFrontend("no")
    turn = Turn(
        server.url, frontend, both, auto_approve={"notes": ("append_*",)}, second_opinion=opinion
    )
    await turn.chat.ask("add eggs")

    [(action, verdict)] = frontend.asked  # no longer auto-run: the user was asked
    assert action.startswith("notes__append_note ")
    assert verdict.level == "unknown"
    assert verdict.reasons[-1].startswith("no independent judge configured: ")
    assert (notes / "todo").read_text() == "buy milk\n"  # the user said no
    assert [r["rule"] for r in chat_requests(server)] == ["call", "answer"]
    assert not any("runs without asking" in text for text in frontend.statuses())


async def test_an_independent_judge_clears_an_auto_approved_call_on_its_own_server(
    serve: ServeFn, both: McpServers, notes: Path
) -> None:
    server = serve(APPEND_EGGS)
    judge = serve({"rules": [{"when": {"system": "^Detect destructive"}, "reply": {"text": "NO"}}]})
    models = {"fast": {"endpoint": f"{judge.url}/v1", "model": "judge-model"}}
    settings = validate_config({"models": models})
    opinion = SecondOpinion.from_config(settings, preset_resolver(settings, {}))
    frontend = ScriptedFrontend()
    turn = Turn(
        server.url, frontend, both, auto_approve={"notes": ("append_*",)}, second_opinion=opinion
    )
    await turn.chat.ask("add eggs")

    assert frontend.asked == []
    assert (notes / "todo").read_text() == "buy milk\neggs\n"
    assert [r["rule"] for r in chat_requests(server)] == ["call", "answer"]
    [asked] = chat_requests(judge)
    assert asked["model"] == "judge-model" and "tools" not in asked["body"]
    # Its own two-message conversation: nothing of the chat reaches the judge.
    [system, command] = asked["body"]["messages"]
    assert system["role"] == "system" and command["role"] == "user"
    assert command["content"].startswith("notes__append_note ")
    assert "[unknown] notes__append_note runs without asking (auto_approve)" in (
        frontend.statuses()
    )


@pytest.mark.parametrize(("judge_model", "asked"), [("testllm", True), ("judge-model", False)])
async def test_a_fallback_that_answered_the_turn_is_not_its_judge(
    serve: ServeFn, both: McpServers, notes: Path, judge_model: str, asked: bool
) -> None:
    dead = serve({"default": {"text": "never"}})
    dead_url = dead.url
    dead.close()  # the turn's model cannot be reached: the fallback answers the turn
    rescue = serve(APPEND_EGGS)
    fallback = ModelTarget("cloud", f"{rescue.url}/v1", "testllm", max_retries=0)
    models = {"fast": {"endpoint": f"{rescue.url}/v1", "model": judge_model}}
    settings = validate_config({"models": models})
    opinion = SecondOpinion.from_config(settings, preset_resolver(settings, {}))
    frontend = ScriptedFrontend("no")
    turn = Turn(
        dead_url,
        frontend,
        both,
        auto_approve={"notes": ("append_*",)},
        second_opinion=opinion,
        fallback=fallback,
    )
    await turn.chat.ask("add eggs")

    assert any("retrying via cloud" in text for text in frontend.statuses())
    rules = [r["rule"] for r in chat_requests(rescue)]
    if asked:  # the judge would be the fallback, which proposed the call: the user decides
        assert len(frontend.asked) == 1
        assert frontend.asked[0][1].reasons[-1].startswith("no independent judge configured")
        assert rules == ["call", "answer"]
        assert (notes / "todo").read_text() == "buy milk\n"
    else:  # another model on the fallback's server judged it
        assert frontend.asked == []
        assert rules == ["call", "judged", "answer"]
        assert (notes / "todo").read_text() == "buy milk\neggs\n"
