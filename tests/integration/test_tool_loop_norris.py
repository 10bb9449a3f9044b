"""Tool calls in Norris steps, against real parts: aish-testllm scripts the steps, the notes
MCP server (the official SDK over stdio) answers through `McpServers`, the real gate judges
each call in Norris or headless mode, `ToolRunner` runs it, commands run in a real agent shell.

The frontend is scripted (it records events and answers HALTs).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from aish.agent import gate
from aish.agent.events import Halt, Status, ToolCallFinished, ToolCallStarted
from aish.agent.norris import NorrisResult, NorrisRun
from aish.conversation.context import Conversation
from aish.llm.types import ModelTarget
from aish.mcp import McpServers
from aish.ui.agent_shell import AgentShell
from aish.ui.tool_runner import ToolRunner
from tests.support import ScriptedFrontend

from ..conftest import ServeFn
from .tool_loop_support import chat_requests, mcp_servers, notes_server

SYSTEM = "You are aish."
READ_TODO = {"name": "notes__read_note", "arguments": {"name": "todo"}}
WRITE_PLAN = {"name": "notes__write_note", "arguments": {"name": "plan", "text": "ship"}}
WRITE_PLAN_TEXT = 'notes__write_note {"name": "plan", "text": "ship"}'


def steps(*replies: dict[str, Any]) -> dict[str, Any]:
    """The nth step gets the nth reply (the last repeats)."""
    return {"rules": [{"when": {}, "replies": list(replies)}]}


@pytest.fixture
def notes(tmp_path: Path) -> Path:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "todo").write_text("buy milk\n")
    return folder


@pytest.fixture
async def servers(tmp_path: Path, notes: Path) -> AsyncIterator[McpServers]:
    tables = {"notes": notes_server(notes, trusted=True)}
    async with mcp_servers(tables, tmp_path / "logs") as started:
        yield started


async def run(
    url: str,
    frontend: ScriptedFrontend,
    servers: McpServers,
    workdir: Path,
    *,
    mode: gate.Mode = "norris",
    yes_safe: bool = False,
    log: list[tuple[str, dict[str, Any]]] | None = None,
    max_tool_calls: int = 8,
) -> tuple[NorrisResult, Conversation]:
    conversation = Conversation(SYSTEM)
    shell = await AgentShell.start(str(workdir))

    def record(kind: str, payload: Mapping[str, Any]) -> None:
        if log is not None:
            log.append((kind, dict(payload)))

    try:
        result = await NorrisRun(
            "keep my notes",
            conversation,
            ModelTarget("local", f"{url}/v1", "testllm", max_retries=0),
            frontend,
            shell.run_authorized,
            lambda: shell.cwd,
            record,
            gate.Policy(mode, yes_safe=yes_safe),
            tools=servers,
            run_tool=ToolRunner(servers).run_authorized,
            max_tool_calls=max_tool_calls,
            shell_facts=shell.facts,
        ).run()
    finally:
        await shell.close()
    return result, conversation


async def test_a_safe_tool_call_runs_unattended_and_its_result_feeds_the_next_step(
    serve: ServeFn, servers: McpServers, tmp_path: Path
) -> None:
    server = serve(
        steps(
            {"text": "Reading it.\nCMD: echo looked", "tool_calls": [READ_TODO]},
            {"text": "GOAL: complete the todo says buy milk"},
        )
    )
    frontend = ScriptedFrontend()
    log: list[tuple[str, dict[str, Any]]] = []
    result, conversation = await run(server.url, frontend, servers, tmp_path, log=log)
    assert (result.status, result.steps) == ("done", 2)
    assert frontend.halted == []
    assert frontend.of(ToolCallStarted) == [
        ToolCallStarted("notes__read_note", '{"name": "todo"}', "safe")
    ]
    # The result answers the call right after the reply; the command rides in the next step's
    # message, as commands do.
    messages = chat_requests(server)[1]["body"]["messages"]
    assert [m["role"] for m in messages[-3:]] == ["assistant", "tool", "user"]
    assert messages[-2]["content"].startswith("buy milk")
    assert "$ echo looked" in messages[-1]["content"]
    assert [m.role for m in conversation.history] == [
        "user",
        "assistant",
        "tool",
        "user",
        "assistant",
    ]
    # Resuming the session rebuilds the run's messages exactly.
    assert Conversation.replay(SYSTEM, log).history == conversation.history


async def test_a_destructive_tool_call_halts_and_proceed_runs_it(
    serve: ServeFn, servers: McpServers, notes: Path, tmp_path: Path
) -> None:
    server = serve(steps({"tool_calls": [WRITE_PLAN]}, {"text": "GOAL: complete"}))
    frontend = ScriptedFrontend("proceed")
    result, _ = await run(server.url, frontend, servers, tmp_path)
    assert result.status == "done"
    [(action, verdict)] = frontend.halted
    assert action == WRITE_PLAN_TEXT and verdict.level == "destructive"
    [halt] = frontend.of(Halt)
    assert (halt.step, halt.action) == (1, WRITE_PLAN_TEXT)
    assert (notes / "plan").read_text() == "ship"
    told = chat_requests(server)[1]["body"]["messages"][-2]
    assert told["role"] == "tool" and told["content"].startswith("wrote plan")


async def test_a_skipped_tool_call_is_answered_and_proposing_it_again_is_stuck(
    serve: ServeFn, servers: McpServers, notes: Path, tmp_path: Path
) -> None:
    server = serve(
        steps(
            {"tool_calls": [WRITE_PLAN, READ_TODO]}, {"text": "Again.", "tool_calls": [WRITE_PLAN]}
        )
    )
    frontend = ScriptedFrontend("skip")
    result, conversation = await run(server.url, frontend, servers, tmp_path)
    assert result.status == "stuck"
    assert result.reason == f"proposed again after it failed or was skipped: {WRITE_PLAN_TEXT}"
    assert len(frontend.halted) == 1 and not (notes / "plan").exists()
    assert frontend.of(ToolCallStarted) == []  # the read after the skip did not run either
    skipped, not_run = chat_requests(server)[1]["body"]["messages"][-3:-1]
    assert skipped["content"] == f"[aish] action skipped by user: {WRITE_PLAN_TEXT}"
    assert not_run["content"] == (
        '[aish] not run (after the skipped action): notes__read_note {"name": "todo"}'
    )
    # The second step's call was answered too when the run ended: nothing dangles.
    assert conversation.unanswered_tool_calls() == []
    assert conversation.history[-1].content == "[aish] not run: the step ended before this call ran"


async def test_headless_halts_on_a_tool_call_without_running_it(
    serve: ServeFn, servers: McpServers, notes: Path, tmp_path: Path
) -> None:
    server = serve(steps({"tool_calls": [WRITE_PLAN]}))
    frontend = ScriptedFrontend()
    result, conversation = await run(
        server.url, frontend, servers, tmp_path, mode="headless", yes_safe=True
    )
    assert (result.status, result.pending_action) == ("halted", WRITE_PLAN_TEXT)
    assert not (notes / "plan").exists()
    assert [h.action for h in frontend.of(Halt)] == [WRITE_PLAN_TEXT]
    assert conversation.unanswered_tool_calls() == []


async def test_a_tool_error_fails_the_step_and_the_rest_is_not_run(
    serve: ServeFn, servers: McpServers, notes: Path, tmp_path: Path
) -> None:
    broken = {"name": "notes__broken"}
    server = serve(
        steps(
            {"tool_calls": [broken, READ_TODO]},
            {"text": "GOAL: blocked the disk is on fire"},
        )
    )
    frontend = ScriptedFrontend("proceed")  # `broken` declares no annotations: it halts first
    result, _ = await run(server.url, frontend, servers, tmp_path)
    assert (result.status, result.reason) == ("blocked", "the disk is on fire")
    [finished] = frontend.of(ToolCallFinished)
    assert finished.is_error and finished.name == "notes__broken"
    error, not_run = chat_requests(server)[1]["body"]["messages"][-3:-1]
    assert error["content"].startswith("[tool error] ") and "disk is on fire" in error["content"]
    assert not_run["content"].startswith("[aish] not run (after the failure above): ")


async def test_unknown_tools_and_the_per_step_limit(
    serve: ServeFn, servers: McpServers, tmp_path: Path
) -> None:
    server = serve(
        steps(
            {"tool_calls": [READ_TODO, READ_TODO, {"name": "nope__nothing"}]},
            {"tool_calls": [{"name": "nope__nothing"}]},
            {"text": "GOAL: blocked no such tool"},
        )
    )
    frontend = ScriptedFrontend()
    result, _ = await run(server.url, frontend, servers, tmp_path, max_tool_calls=2)
    # Step 1: two reads run, the third call is over the limit; step 2: an unknown tool is an
    # error for the model and fails the step; then it gives up.
    assert (result.status, result.steps) == ("blocked", 3)
    assert len(frontend.of(ToolCallFinished)) == 2
    statuses = [e.text for e in frontend.of(Status)]
    assert "tool-call limit reached (2 calls in one step, mcp.max_tool_calls): 1 more not run" in (
        statuses
    )
    first = chat_requests(server)[1]["body"]["messages"]
    # Answered in the calls' order: two results, then the limit.
    assert [m["role"] for m in first[-5:]] == ["assistant", "tool", "tool", "tool", "user"]
    assert first[-3]["content"].startswith("buy milk")
    assert first[-2]["content"].startswith("[aish] not run: this request reached its limit of 2")
    second = chat_requests(server)[2]["body"]["messages"]
    assert second[-2]["content"] == (
        "[tool error] there is no tool named 'nope__nothing' here; nothing was run"
    )
