"""Norris under the user's permission policy, against aish-testllm over HTTP and a real agent
shell: a denied step is never run and never asked about — the model is told which rule refused
it and re-plans; an ask rule halts a step that is proven read-only."""

from __future__ import annotations

from pathlib import Path

import pytest

from aish.agent import gate
from aish.agent.events import CommandStarted
from aish.safety.rules.user import UserRules
from tests.support import ScriptedFrontend

from ..conftest import ServeFn
from .test_norris import chat_requests, last_user_text, run_norris, steps


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    path = tmp_path / "work"
    path.mkdir()
    return path


async def test_a_denied_step_is_refused_and_the_model_is_told(
    serve: ServeFn, workdir: Path
) -> None:
    (workdir / "x").mkdir()
    server = serve(
        steps(
            f"CMD: cd {workdir} && sudo rm -rf x\nCMD: ls",
            "CMD: ls",
            "GOAL: blocked the user's policy forbids it",
        )
    )
    frontend = ScriptedFrontend()  # no answers: nobody may be asked
    policy = gate.Policy("norris", user_rules=UserRules(deny=("rm",)))
    result, _ = await run_norris(server.url, "remove x", workdir, frontend, policy=policy)
    assert (result.status, result.reason) == ("blocked", "the user's policy forbids it")
    assert (workdir / "x").exists() and frontend.halted == []
    told = last_user_text(chat_requests(server)[1])
    assert (
        f"[aish] action denied by the user's policy, not run: cd {workdir} && sudo rm -rf x "
        "(denied by your rule safety.deny `rm`: rm -rf x)"
    ) in told
    assert "[aish] not run (after the denied action): ls" in told
    started = [e.command for e in frontend.of(CommandStarted)]
    assert started == ["ls"]  # the re-planned step ran; the denied one never started


async def test_an_ask_rule_halts_a_read_only_step(serve: ServeFn, workdir: Path) -> None:
    server = serve(steps("CMD: ls -la", "GOAL: complete listed"))
    frontend = ScriptedFrontend("proceed")
    policy = gate.Policy("norris", user_rules=UserRules(ask=("ls",)))
    result, _ = await run_norris(server.url, "list", workdir, frontend, policy=policy)
    assert result.status == "done"
    ((action, verdict),) = frontend.halted
    assert (action, verdict.level) == ("ls -la", "safe")
    assert verdict.reasons[0] == "asks first by your rule safety.ask `ls`: ls -la"
