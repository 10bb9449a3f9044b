"""Norris runs against a real model server (aish-testllm over HTTP) and a real agent shell.

The frontend is scripted (it is the UI boundary: it records events and answers HALTs); the
model, the gate, the second opinion and the shell the commands run in are the real ones.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from aish.agent import gate
from aish.agent.events import (
    CommandFinished,
    CommandStarted,
    Halt,
    NorrisEnded,
    NorrisStarted,
    NorrisStep,
    UsageRecorded,
)
from aish.agent.norris import NorrisBounds, NorrisResult, NorrisRun, norris_models
from aish.agent.second_opinion import SecondOpinion
from aish.agent.shell_facts import ShellFactsSource
from aish.config.schema import AishConfig
from aish.config.validation import validate_config
from aish.conversation.context import Conversation
from aish.llm.types import Message, ModelTarget
from aish.run.agent_shell import AgentShell
from aish.session import preset_resolver
from tests.support import ScriptedFrontend

from ..conftest import ServeFn
from ..processes import running

SYSTEM = "You are aish, an assistant inside the user's terminal."


def steps(*texts: str) -> dict[str, Any]:
    """A scenario whose nth request gets the nth text (the last one repeats)."""
    return {"rules": [{"when": {}, "replies": [{"text": t} for t in texts]}]}


def target(url: str, model: str = "testllm", name: str = "local") -> ModelTarget:
    return ModelTarget(name=name, endpoint=f"{url}/v1", model=model, max_retries=0)


def chat_requests(server: Any) -> list[dict[str, Any]]:
    return [r for r in server.requests if r["path"].endswith("/chat/completions")]


def last_user_text(request: dict[str, Any]) -> str:
    users = [m for m in request["body"]["messages"] if m["role"] == "user"]
    return str(users[-1]["content"])


async def run_norris(
    url: str,
    goal: str,
    workdir: Path,
    frontend: ScriptedFrontend,
    *,
    bounds: NorrisBounds | None = None,
    policy: gate.Policy | None = None,
    conversation: Conversation | None = None,
    second_opinion: SecondOpinion | None = None,
    executor: ModelTarget | None = None,
    planner: ModelTarget | None = None,
    tasks_max: int = 16,
    tasks: tuple[str, ...] = (),
    log: list[tuple[str, dict[str, Any]]] | None = None,
    fallback: ModelTarget | None = None,
) -> tuple[NorrisResult, Conversation]:
    conversation = conversation or Conversation(SYSTEM)
    shell = await AgentShell.start(str(workdir))

    def record(kind: str, payload: Mapping[str, Any]) -> None:
        if log is not None:
            log.append((kind, dict(payload)))

    try:
        run = NorrisRun(
            goal,
            conversation,
            executor or target(url),
            frontend,
            shell.run_authorized,
            lambda: shell.cwd,
            record,
            policy or gate.Policy("norris"),
            bounds or NorrisBounds(),
            second_opinion=second_opinion,
            planner=planner,
            tasks_max=tasks_max,
            tasks=tasks,
            planned_by="planner" if tasks else None,
            fallback=fallback,
            shell_facts=ShellFactsSource(shell.session.state_report),
        )
        result = await run.run()
    finally:
        await shell.close()
    return result, conversation


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    path = tmp_path / "work"
    path.mkdir()
    return path


# ---- the acceptance goal ---------------------------------------------------------------------


async def test_a_multi_step_goal_completes_unattended(serve: ServeFn, workdir: Path) -> None:
    week_ago = time.time() - 30 * 86400
    (workdir / "src").mkdir()
    for name in ("a.py", "src/b.py", "notes.txt"):
        (workdir / name).write_text("x\n")
    (workdir / "old.py").write_text("x\n")
    os.utime(workdir / "old.py", (week_ago, week_ago))
    server = serve(
        steps(
            "First I list them.\nCMD: find . -name '*.py' -mtime -7 -type f",
            "Now I count them.\nCMD: find . -name '*.py' -mtime -7 -type f | wc -l",
            "GOAL: complete\nThere are 2 Python files modified in the last week.",
        )
    )
    frontend = ScriptedFrontend()
    goal = "find all Python files modified in the last week and count them"
    result, conversation = await run_norris(server.url, goal, workdir, frontend)

    assert (result.status, result.steps) == ("done", 3)
    assert result.reason == "There are 2 Python files modified in the last week."
    assert frontend.halted == []  # read-only steps never stop for the user
    assert [e.command for e in frontend.of(CommandStarted)] == [
        "find . -name '*.py' -mtime -7 -type f",
        "find . -name '*.py' -mtime -7 -type f | wc -l",
    ]
    finished = frontend.of(CommandFinished)
    assert sorted(finished[0].output.split()) == ["./a.py", "./src/b.py"]
    assert finished[1].output.strip() == "2"
    # Each result reached the model in the next step's message.
    requests = chat_requests(server)
    assert len(requests) == 3
    assert "./src/b.py" in last_user_text(requests[1])
    assert "\n2\n" in last_user_text(requests[2])
    assert f"Goal: {goal}" in last_user_text(requests[0])
    # The run is in the conversation, and it ran in the agent's shell in the user's cwd.
    assert len(conversation.history) == 6
    assert result.cwd == str(workdir)
    ended = frontend.of(NorrisEnded)
    assert len(ended) == 1 and ended[0].status == "done" and ended[0].steps == 3
    assert ended[0].tokens > 0
    started = frontend.of(NorrisStarted)[0]
    assert started.goal == goal and "16 steps" in started.bounds
    assert [(s.step, s.max_steps) for s in frontend.of(NorrisStep)] == [(1, 16), (2, 16), (3, 16)]


async def test_the_agent_shell_leaves_the_users_shell_alone(serve: ServeFn, workdir: Path) -> None:
    (workdir / "sub").mkdir()
    server = serve(steps("CMD: cd sub", "CMD: pwd", "GOAL: complete"))
    frontend = ScriptedFrontend()
    before = os.getcwd()
    result, _ = await run_norris(server.url, "go to sub", workdir, frontend)
    assert result.status == "done"
    assert result.cwd == str(workdir / "sub")  # the agent's final cwd is reported
    assert frontend.of(CommandFinished)[1].output.strip() == str(workdir / "sub")
    assert os.getcwd() == before


# ---- HALT ------------------------------------------------------------------------------------


async def test_rm_rf_halts_and_proceed_runs_it(serve: ServeFn, workdir: Path) -> None:
    (workdir / "x").mkdir()
    (workdir / "x" / "f").write_text("data")
    server = serve(steps(f"CMD: rm -rf {workdir}/x", "GOAL: complete removed"))
    frontend = ScriptedFrontend("proceed")
    result, _ = await run_norris(server.url, "remove x", workdir, frontend)
    assert result.status == "done"
    assert [action for action, _ in frontend.halted] == [f"rm -rf {workdir}/x"]
    assert frontend.halted[0][1].level == "destructive"
    halts = frontend.of(Halt)
    assert [(h.step, h.max_steps, h.action) for h in halts] == [(1, 16, f"rm -rf {workdir}/x")]
    assert halts[0].reasons
    assert not (workdir / "x").exists()


async def test_skip_tells_the_model_and_lets_it_replan(serve: ServeFn, workdir: Path) -> None:
    (workdir / "x").mkdir()
    server = serve(
        steps(f"CMD: rm -rf {workdir}/x\nCMD: ls", "Then I cannot.\nGOAL: blocked x must stay")
    )
    frontend = ScriptedFrontend("skip")
    result, _ = await run_norris(server.url, "remove x", workdir, frontend)
    assert (result.status, result.reason) == ("blocked", "x must stay")
    assert (workdir / "x").exists()
    told = last_user_text(chat_requests(server)[1])
    assert f"[aish] action skipped by user: rm -rf {workdir}/x" in told
    assert "[aish] not run (after the skipped action): ls" in told
    assert frontend.of(CommandStarted) == []
    assert f"skipped: rm -rf {workdir}/x" in frontend.statuses()


async def test_abort_ends_the_run_with_the_conversation_intact(
    serve: ServeFn, workdir: Path
) -> None:
    (workdir / "x").mkdir()
    server = serve(steps(f"Removing it.\nCMD: rm -rf {workdir}/x", "GOAL: complete"))
    frontend = ScriptedFrontend("abort")
    conversation = Conversation(SYSTEM)
    conversation.history += [Message("user", "hello"), Message("assistant", "hi")]
    result, conversation = await run_norris(
        server.url, "remove x", workdir, frontend, conversation=conversation
    )
    assert result.status == "aborted"
    assert (workdir / "x").exists()
    assert len(chat_requests(server)) == 1
    assert [m.role for m in conversation.history] == ["user", "assistant"] * 2
    assert conversation.history[-1].content == f"Removing it.\nCMD: rm -rf {workdir}/x"
    assert frontend.of(NorrisEnded)[0].status == "aborted"


@pytest.mark.parametrize(
    "command",
    [
        "dd if=/dev/zero of=/dev/sdz bs=1M count=1",
        "find . -delete",
        "truncate -s 0 f",
    ],
)
async def test_destructive_commands_halt(serve: ServeFn, workdir: Path, command: str) -> None:
    (workdir / "f").write_text("keep me\n")
    server = serve(steps(f"CMD: {command}", "GOAL: blocked the user said no"))
    frontend = ScriptedFrontend("skip")
    result, _ = await run_norris(server.url, "clean up", workdir, frontend)
    assert [action for action, _ in frontend.halted] == [command]
    assert frontend.halted[0][1].level == "destructive"
    assert result.status == "blocked"
    assert (workdir / "f").read_text() == "keep me\n"


# The proposer clears anything it is asked about, in either form of the question: asking it
# would be self-approval, so any request it logs with one of these rules is a failure.
SELF_APPROVAL = [
    {"name": "self-approval", "when": {"user": "aish safety check"}, "reply": {"text": "NO"}},
    {"name": "self-approval", "when": {"system": "^Detect destructive"}, "reply": {"text": "NO"}},
]


def executor_server(serve: ServeFn, *texts: str) -> Any:
    """The executor: the steps `texts` in turn, and NO to any safety question."""
    return serve({"rules": [*SELF_APPROVAL, steps(*texts)["rules"][0]]})


def judged_by(url: str, model: str = "judge-model") -> SecondOpinion:
    models = {"fast": {"endpoint": f"{url}/v1", "model": model, "max_retries": 0}}
    settings = validate_config({"models": models})
    return SecondOpinion.from_config(settings, preset_resolver(settings, {}))


def tool_script(workdir: Path) -> Path:
    script = workdir / "tool.sh"
    script.write_text("#!/bin/sh\ntouch tool-ran\necho tool ran\n")
    script.chmod(0o755)
    return workdir / "tool-ran"


async def test_the_second_opinion_clears_or_halts_unknown_commands(
    serve: ServeFn, workdir: Path
) -> None:
    executor = executor_server(
        serve, "CMD: ./tool.sh", "CMD: frobnicate --all", "GOAL: blocked not allowed"
    )
    judge = serve(
        {
            "rules": [
                {"when": {"user": "^frobnicate"}, "reply": {"text": "YES"}},
                {"when": {}, "reply": {"text": "NO"}},
            ]
        }
    )
    tool_ran = tool_script(workdir)
    frontend = ScriptedFrontend("skip")
    result, _ = await run_norris(
        executor.url, "use the tool", workdir, frontend, second_opinion=judged_by(judge.url)
    )
    assert result.status == "blocked"
    assert tool_ran.exists()  # cleared by the judge's NO
    assert frontend.of(CommandFinished)[0].output.strip() == "tool ran"
    assert [action for action, _ in frontend.halted] == ["frobnicate --all"]
    assert "second opinion: YES" in frontend.halted[0][1].reasons[-1]
    categories = {e.category for e in frontend.of(UsageRecorded)}
    assert categories == {"norris", "safety"}
    # The judge was asked both questions, in its own short conversation; the executor none.
    assert [r["body"]["messages"][-1]["content"] for r in chat_requests(judge)] == [
        "./tool.sh",
        "frobnicate --all",
    ]
    assert "self-approval" not in {r["rule"] for r in chat_requests(executor)}
    [started] = frontend.of(NorrisStarted)
    assert started.judge == "second opinion: fast (judge-model)"


async def test_without_an_independent_judge_unknown_steps_halt(
    serve: ServeFn, workdir: Path
) -> None:
    # No `fast` preset, and the executor would say NO: it is never asked.
    executor = executor_server(serve, "CMD: ./tool.sh", "GOAL: blocked not allowed")
    tool_ran = tool_script(workdir)
    frontend = ScriptedFrontend("skip")
    settings = AishConfig()
    opinion = SecondOpinion.from_config(settings, preset_resolver(settings, {}))
    result, _ = await run_norris(
        executor.url, "use the tool", workdir, frontend, second_opinion=opinion
    )
    assert result.status == "blocked"
    assert not tool_ran.exists()
    [(action, verdict)] = frontend.halted
    assert action == "./tool.sh" and verdict.level == "unknown"
    assert verdict.reasons[-1] == (
        "no independent judge configured: no preset 'fast' for safety.llm_model"
    )
    assert "self-approval" not in {r["rule"] for r in chat_requests(executor)}
    assert {e.category for e in frontend.of(UsageRecorded)} == {"norris"}
    [started] = frontend.of(NorrisStarted)
    assert started.judge == (
        "no independent second opinion: unknown steps halt — no preset 'fast' for safety.llm_model"
    )


@pytest.mark.parametrize("who", ["executor", "preplanner"])
async def test_a_judge_preset_that_is_a_proposer_is_not_asked(
    serve: ServeFn, workdir: Path, who: str
) -> None:
    # `fast` names the executor's (or the preplanner's) own model on its own server.
    executor = executor_server(serve, "CMD: ./tool.sh", "GOAL: blocked not allowed")
    planner_server = serve({"rules": SELF_APPROVAL})
    tool_ran = tool_script(workdir)
    frontend = ScriptedFrontend("skip")
    if who == "executor":
        opinion = judged_by(executor.url.replace("127.0.0.1", "localhost"), "testllm")
    else:
        opinion = judged_by(planner_server.url, "planner-model")
    planner = target(planner_server.url, "planner-model", name="cloud")
    result, _ = await run_norris(
        executor.url,
        "use the tool",
        workdir,
        frontend,
        second_opinion=opinion,
        planner=planner,
        tasks=("use the tool", "report"),  # planned already: the planner is not asked again
    )
    assert result.status == "blocked" and not tool_ran.exists()
    [(_, verdict)] = frontend.halted
    assert verdict.level == "unknown"
    assert verdict.reasons[-1].startswith(
        "no independent judge configured: safety.llm_model 'fast' is the same model as "
        + ("local" if who == "executor" else "cloud")
    )
    assert planner_server.requests == []
    assert "self-approval" not in {r["rule"] for r in chat_requests(executor)}
    [started] = frontend.of(NorrisStarted)
    assert started.judge.startswith("no independent second opinion: unknown steps halt — ")


async def test_a_fallback_that_answered_the_step_is_not_its_judge(
    serve: ServeFn, workdir: Path
) -> None:
    dead = serve({})
    dead_url = dead.url
    dead.close()  # the executor cannot be reached: each step falls back
    rescue = executor_server(serve, "CMD: ./tool.sh", "GOAL: blocked not allowed")
    tool_ran = tool_script(workdir)
    frontend = ScriptedFrontend("skip")
    result, _ = await run_norris(
        dead_url,
        "use the tool",
        workdir,
        frontend,
        second_opinion=judged_by(rescue.url, "testllm"),  # the fallback's own model
        fallback=target(rescue.url, name="cloud"),
    )
    assert result.status == "blocked" and not tool_ran.exists()
    # Said at the start: the judge is neither the executor nor a preplanner …
    [started] = frontend.of(NorrisStarted)
    assert started.judge == "second opinion: fast (testllm)"
    # … but the fallback answered the step, so it does not judge that step's actions.
    [(_, verdict)] = frontend.halted
    assert verdict.reasons[-1].startswith(
        "no independent judge configured: safety.llm_model 'fast' is the same model as cloud"
    )
    assert "self-approval" not in {r["rule"] for r in chat_requests(rescue)}


# ---- how runs end ----------------------------------------------------------------------------


async def test_a_reply_without_action_or_goal_line_is_stalled(
    serve: ServeFn, workdir: Path
) -> None:
    server = serve(steps("I would look at the files first."))
    result, _ = await run_norris(server.url, "tidy up", workdir, ScriptedFrontend())
    assert (result.status, result.steps) == ("stalled", 1)


async def test_goal_complete_runs_that_replys_actions_first(serve: ServeFn, workdir: Path) -> None:
    server = serve(steps("CMD: touch done.txt\nGOAL: complete made it"))
    frontend = ScriptedFrontend("proceed")
    result, conversation = await run_norris(server.url, "make done.txt", workdir, frontend)
    assert (result.status, result.steps) == ("done", 1)
    assert (workdir / "done.txt").exists()
    assert conversation.pending[0].command == "touch done.txt"  # told at the next turn


async def test_goal_complete_after_a_failed_action_lets_the_model_see_it_first(
    serve: ServeFn, workdir: Path
) -> None:
    server = serve(steps("CMD: ls missing-dir\nGOAL: complete listed", "GOAL: blocked it is gone"))
    result, _ = await run_norris(server.url, "list it", workdir, ScriptedFrontend())
    assert (result.status, result.steps) == ("blocked", 2)
    assert "No such file or directory" in last_user_text(chat_requests(server)[1])


async def test_goal_complete_after_a_skip_is_not_done(serve: ServeFn, workdir: Path) -> None:
    server = serve(steps("CMD: rm -rf build\nGOAL: complete removed", "GOAL: blocked kept"))
    result, _ = await run_norris(server.url, "clean", workdir, ScriptedFrontend("skip"))
    assert (result.status, result.steps) == ("blocked", 2)


async def test_a_failed_action_may_be_retried_after_a_change(serve: ServeFn, workdir: Path) -> None:
    server = serve(
        steps("CMD: ls data", "CMD: mkdir data", "CMD: ls data", "GOAL: complete made it")
    )
    frontend = ScriptedFrontend("proceed")
    result, _ = await run_norris(server.url, "make data", workdir, frontend)
    assert (result.status, result.steps) == ("done", 4)
    assert [e.exit_status for e in frontend.of(CommandFinished)] == [2, 0, 0]


async def test_time_at_a_halt_is_the_users_not_the_runs(serve: ServeFn, workdir: Path) -> None:
    (workdir / "x").mkdir()
    server = serve(steps("CMD: rm -rf x && sleep 0.5 && echo removed", "GOAL: complete"))
    frontend = ScriptedFrontend("proceed", think_s=1.5)  # longer than the run's wall clock
    result, _ = await run_norris(
        server.url, "remove x", workdir, frontend, bounds=NorrisBounds(wall_clock_s=1.0)
    )
    assert result.status == "done"
    finished = frontend.of(CommandFinished)[0]
    assert (finished.exit_status, finished.output.strip(), finished.notice) == (0, "removed", None)


async def test_the_step_limit_ends_the_run(serve: ServeFn, workdir: Path) -> None:
    server = serve(steps("CMD: ls", "CMD: pwd", "CMD: ls -a"))
    result, _ = await run_norris(
        server.url, "loop", workdir, ScriptedFrontend(), bounds=NorrisBounds(max_steps=3)
    )
    assert (result.status, result.steps) == ("budget_exhausted", 3)
    assert result.reason == "step limit reached (3 steps)"
    assert len(chat_requests(server)) == 3


async def test_the_token_cap_ends_the_run(serve: ServeFn, workdir: Path) -> None:
    server = serve(steps("CMD: ls", "CMD: pwd", "CMD: ls -a"))
    result, _ = await run_norris(
        server.url, "loop", workdir, ScriptedFrontend(), bounds=NorrisBounds(token_cap=1)
    )
    assert (result.status, result.steps) == ("budget_exhausted", 1)
    assert "token cap" in result.reason


async def test_the_wall_clock_limit_ends_the_run(serve: ServeFn, workdir: Path) -> None:
    server = serve(steps("CMD: sleep 0.7", "CMD: sleep 0.8", "CMD: sleep 0.9"))
    started = time.monotonic()
    result, _ = await run_norris(
        server.url, "wait", workdir, ScriptedFrontend(), bounds=NorrisBounds(wall_clock_s=1.0)
    )
    assert result.status == "budget_exhausted"
    assert "wall-clock limit reached (1s)" in result.reason
    # Not a speed claim: the run stopped at its limit. It takes about a second; 5 s is generous
    # and still well below the ~14 s the 16 default steps of these sleeps would take.
    assert time.monotonic() - started < 5


async def test_the_same_failed_action_again_is_stuck(serve: ServeFn, workdir: Path) -> None:
    server = serve(steps("CMD: ls missing-dir", "Again.\nCMD: ls  missing-dir"))
    result, _ = await run_norris(server.url, "look", workdir, ScriptedFrontend())
    assert result.status == "stuck"
    assert result.reason == "proposed again after it failed or was skipped: ls  missing-dir"
    assert result.steps == 2


async def test_the_same_skipped_action_again_is_stuck(serve: ServeFn, workdir: Path) -> None:
    server = serve(steps("CMD: rm -rf old", "CMD: rm -rf old"))
    frontend = ScriptedFrontend("skip")
    result, _ = await run_norris(server.url, "clean", workdir, frontend)
    assert result.status == "stuck"
    assert len(frontend.halted) == 1  # the user is not asked twice about the same thing


async def test_consecutive_skips_end_the_run(serve: ServeFn, workdir: Path) -> None:
    server = serve(steps("CMD: rm -rf a", "CMD: rm -rf b", "CMD: rm -rf c"))
    frontend = ScriptedFrontend("skip", "skip", "skip")
    result, _ = await run_norris(
        server.url, "clean", workdir, frontend, bounds=NorrisBounds(skip_budget=2)
    )
    assert result.status == "budget_exhausted"
    assert result.reason == "2 actions skipped in a row (norris.skip_budget)"
    assert len(frontend.halted) == 2


async def test_a_hanging_command_hits_its_timeout_and_the_run_goes_on(
    serve: ServeFn, workdir: Path
) -> None:
    server = serve(steps("CMD: sleep 60", "It hung.\nGOAL: complete gave up waiting"))
    frontend = ScriptedFrontend()
    started = time.monotonic()
    result, _ = await run_norris(
        server.url, "wait", workdir, frontend, bounds=NorrisBounds(command_timeout_s=0.5)
    )
    assert result.status == "done"
    # Not a speed claim: the run did not wait for the command. It takes about a second (the
    # 0.5 s timeout and two replies); 10 s is generous and still well below the sleep's 60 s.
    assert time.monotonic() - started < 10
    finished = frontend.of(CommandFinished)[0]
    assert finished.exit_status != 0
    assert finished.notice and "0.5s per-command timeout" in finished.notice
    assert "0.5s per-command timeout" in last_user_text(chat_requests(server)[1])


async def test_ctrl_c_aborts_the_run_and_stops_its_command(serve: ServeFn, workdir: Path) -> None:
    server = serve(steps("CMD: sleep 61.25", "GOAL: complete"))
    frontend = ScriptedFrontend()
    task = asyncio.create_task(run_norris(server.url, "wait", workdir, frontend))
    while not frontend.of(CommandStarted) and not task.done():
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.3)
    assert running("sleep 61.25")
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert frontend.of(NorrisEnded)[0].status == "aborted"
    assert not running("sleep 61.25")


async def test_an_unreachable_model_fails_the_run(workdir: Path) -> None:
    result, _ = await run_norris("http://127.0.0.1:9", "x", workdir, ScriptedFrontend())
    assert result.status == "failed"


# ---- headless --------------------------------------------------------------------------------


async def test_headless_with_yes_safe_runs_safe_steps_and_halts_on_the_rest(
    serve: ServeFn, workdir: Path
) -> None:
    (workdir / "x").mkdir()
    server = serve(steps("CMD: ls", f"CMD: rm -rf {workdir}/x", "GOAL: complete"))
    frontend = ScriptedFrontend()
    result, _ = await run_norris(
        server.url,
        "clean",
        workdir,
        frontend,
        policy=gate.Policy("headless", yes_safe=True),
    )
    assert (result.status, result.pending_action) == ("halted", f"rm -rf {workdir}/x")
    assert frontend.halted == []  # nobody was asked: there is nobody
    assert [e.command for e in frontend.of(CommandStarted)] == ["ls"]
    assert frontend.of(Halt)[0].action == f"rm -rf {workdir}/x"
    assert (workdir / "x").exists()


async def test_headless_without_yes_safe_runs_nothing(serve: ServeFn, workdir: Path) -> None:
    server = serve(steps("CMD: ls", "GOAL: complete"))
    frontend = ScriptedFrontend()
    result, _ = await run_norris(
        server.url, "look", workdir, frontend, policy=gate.Policy("headless")
    )
    assert (result.status, result.pending_action) == ("halted", "ls")
    assert frontend.of(CommandStarted) == []


# ---- prompt layout ---------------------------------------------------------------------------


async def test_an_eight_step_run_keeps_the_prefix(serve: ServeFn, workdir: Path) -> None:
    for index in range(40):
        (workdir / f"module_{index:02d}.py").write_text("x = 1\n" * index)
    listing = "\n".join(f"-rw-r--r-- 1 dev dev {i * 6:>5} module_{i:02d}.py" for i in range(40))
    readme = "\n".join(f"Module {i:02d} holds part {i} of the parser." for i in range(80))
    conversation = Conversation(SYSTEM)
    # A session that has been going for a while: the user looked at the project first.
    conversation.history += [
        Message(
            "user",
            f"[aish context]\n$ ls -l\n{listing}\n$ cat README\n{readme}\n"
            "[end of aish context]\n\nwhat is here?",
        ),
        Message(
            "assistant", "A Python project with 40 small modules, module_00.py to module_39.py."
        ),
    ]
    commands = [
        "ls module_0*",
        "wc -l module_01.py",
        "head -n 3 module_02.py",
        "grep -c x module_03.py",
        "wc -c module_04.py",
        "ls module_1*",
        "cat module_05.py",
    ]
    server = serve(steps(*(f"Next.\nCMD: {c}" for c in commands), "GOAL: complete looked"))
    result, _ = await run_norris(
        server.url, "look at the modules", workdir, ScriptedFrontend(), conversation=conversation
    )
    assert (result.status, result.steps) == ("done", 8)
    requests = chat_requests(server)
    assert len(requests) == 8
    system_prompts = {r["body"]["messages"][0]["content"] for r in requests}
    assert system_prompts == {SYSTEM}  # Norris never touches the system prompt
    for index, request in enumerate(requests[1:], start=2):
        assert request["prefix_reuse"]["fraction"] >= 0.9, (index, request["prefix_reuse"])
        previous = requests[index - 2]["body"]["messages"]
        assert request["body"]["messages"][: len(previous)] == previous  # append-only
        assert f"Step {index} of at most 16." in last_user_text(request)
        assert "Goal: look at the modules" in last_user_text(request)


# ---- preplanner and executor -----------------------------------------------------------------


def planned(url: str, **norris: Any) -> AishConfig:
    return validate_config(
        {
            "models": {
                "local": {"endpoint": f"{url}/v1", "model": "local-exec", "max_retries": 0},
                "cloud": {"endpoint": f"{url}/v1", "model": "cloud-planner", "max_retries": 0},
            },
            "norris": {"preplanner": "cloud", "executor": "local", **norris},
        }
    )


def planning_server(serve: ServeFn, plan_text: str, *step_texts: str) -> Any:
    return serve(
        {
            "rules": [
                {"when": {"model": "cloud-planner"}, "reply": {"text": plan_text}},
                {"when": {"model": "local-exec"}, "replies": [{"text": t} for t in step_texts]},
            ]
        }
    )


async def launch(
    config: AishConfig, goal: str, workdir: Path, frontend: ScriptedFrontend, active: ModelTarget
) -> NorrisResult:
    models = norris_models(config, active, preset_resolver(config, {}), frontend.render)
    result, _ = await run_norris(
        "",
        goal,
        workdir,
        frontend,
        executor=models.executor,
        planner=models.planner,
        tasks_max=config.norris.tasks_max,
    )
    return result


async def test_the_preplanner_plans_and_the_executor_steps_through_the_tasks(
    serve: ServeFn, workdir: Path
) -> None:
    server = planning_server(
        serve,
        "TASK: list the Python files\nTASK: count them",
        "CMD: ls",
        "CMD: ls | wc -l",
        "CMD: pwd",
    )
    config = planned(server.url)
    frontend = ScriptedFrontend()
    active = target(server.url, "some-other-model", name="other")
    result = await launch(config, "count the files", workdir, frontend, active)
    assert result.status == "tasks_complete"
    assert result.steps == 2
    assert "preplanned 2 tasks via cloud" in frontend.statuses()
    started = frontend.of(NorrisStarted)[0]
    assert started.tasks == ("list the Python files", "count them")
    assert (started.executor, started.preplanner) == ("local", "cloud")
    assert [(s.task, s.task_index, s.task_count) for s in frontend.of(NorrisStep)] == [
        ("list the Python files", 1, 2),
        ("count them", 2, 2),
    ]
    requests = chat_requests(server)
    assert [r["body"]["model"] for r in requests] == ["cloud-planner", "local-exec", "local-exec"]
    assert last_user_text(requests[0]) == "count the files"
    assert "Current task 1/2: list the Python files" in last_user_text(requests[1])
    assert "Current task 2/2: count them" in last_user_text(requests[2])
    categories = [e.category for e in frontend.of(UsageRecorded)]
    assert categories == ["norris-preplan", "norris", "norris"]


async def test_a_skipped_task_advances_to_the_next(serve: ServeFn, workdir: Path) -> None:
    server = planning_server(
        serve, "TASK: delete the cache\nTASK: list what is left", "CMD: rm -rf cache", "CMD: ls"
    )
    frontend = ScriptedFrontend("skip")
    result = await launch(planned(server.url), "tidy", workdir, frontend, target(server.url))
    assert result.status == "tasks_complete"
    assert [s.task for s in frontend.of(NorrisStep)] == ["delete the cache", "list what is left"]


async def test_a_failed_step_stays_on_its_task(serve: ServeFn, workdir: Path) -> None:
    server = planning_server(
        serve, "TASK: look at the logs\nTASK: report", "CMD: ls logs", "CMD: ls", "CMD: pwd"
    )
    frontend = ScriptedFrontend()
    result = await launch(planned(server.url), "look", workdir, frontend, target(server.url))
    assert result.status == "tasks_complete"
    assert [s.task_index for s in frontend.of(NorrisStep)] == [1, 1, 2]


async def test_an_over_long_plan_is_capped(serve: ServeFn, workdir: Path) -> None:
    plan = "\n".join(f"TASK: step number {i}" for i in range(1, 6))
    server = planning_server(serve, plan, "GOAL: complete")
    frontend = ScriptedFrontend()
    config = planned(server.url, tasks_max=3)
    result = await launch(config, "many things", workdir, frontend, target(server.url))
    assert result.status == "done"
    assert frontend.of(NorrisStarted)[0].tasks == (
        "step number 1",
        "step number 2",
        "step number 3",
    )
    assert any("keeping the first 3" in s for s in frontend.statuses())


async def test_a_noisy_plan_is_read(serve: ServeFn, workdir: Path) -> None:
    plan = "Here is the plan:\n```\n1. **TASK:** look around\n2. TASK: report\n```\nGood luck!"
    server = planning_server(serve, plan, "GOAL: complete")
    frontend = ScriptedFrontend()
    await launch(planned(server.url), "look", workdir, frontend, target(server.url))
    assert frontend.of(NorrisStarted)[0].tasks == ("look around", "report")


async def test_an_unreachable_preplanner_means_a_single_model_run(
    serve: ServeFn, workdir: Path
) -> None:
    server = serve(steps("CMD: ls", "GOAL: complete"))
    config = validate_config(
        {
            "models": {
                "local": {"endpoint": f"{server.url}/v1", "model": "testllm", "max_retries": 0},
                "cloud": {
                    "endpoint": "http://127.0.0.1:9/v1",
                    "model": "planner",
                    "max_retries": 0,
                    "connect_timeout_s": 1,
                },
            },
            "norris": {"preplanner": "cloud"},
        }
    )
    frontend = ScriptedFrontend()
    active = target(server.url)
    result = await launch(config, "look", workdir, frontend, active)
    assert result.status == "done"
    assert any(s.startswith("preplan failed: ") for s in frontend.statuses())
    assert any(s.endswith("; running single-model") for s in frontend.statuses())
    assert frontend.of(NorrisStarted)[0].tasks == ()
    assert [r["body"]["model"] for r in chat_requests(server)] == ["testllm", "testllm"]


async def test_a_missing_executor_preset_falls_back_to_the_active_model(
    serve: ServeFn, workdir: Path
) -> None:
    server = serve(steps("GOAL: complete"))
    config = validate_config(
        {
            "models": {"local": {"endpoint": f"{server.url}/v1", "model": "testllm"}},
            "norris": {"executor": "gone"},
        }
    )
    frontend = ScriptedFrontend()
    models = norris_models(config, target(server.url), preset_resolver(config, {}), frontend.render)
    assert models.executor.name == "local"
    assert frontend.statuses() == [
        "no model preset 'gone' (norris.executor); the steps run on local"
    ]
