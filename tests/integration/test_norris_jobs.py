"""`CMD&:` steps in Norris, against a real agent shell and a real model server: the job starts
and the run goes on, a step that proposes nothing waits for it, its result reaches the next
step, and what is still running when the run ends is stopped and said."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from aish.agent import gate
from aish.agent.events import Status
from aish.agent.norris import NorrisBounds, NorrisRun
from aish.agent.shell_facts import ShellFactsSource
from aish.conversation.context import Conversation
from aish.llm.types import ModelTarget
from aish.run.agent_shell import AgentShell
from tests.support import ScriptedFrontend

from ..conftest import ServeFn


def _steps(*texts: str) -> dict[str, Any]:
    return {"rules": [{"when": {}, "replies": [{"text": t} for t in texts]}]}


async def _run(url: str, workdir: Path, frontend: ScriptedFrontend) -> tuple[str, Conversation]:
    conversation = Conversation("You are aish.")
    shell = await AgentShell.start(str(workdir))
    try:
        run = NorrisRun(
            "build it",
            conversation,
            ModelTarget(name="local", endpoint=f"{url}/v1", model="testllm", max_retries=0),
            frontend,
            shell.run_authorized,
            lambda: shell.cwd,
            lambda kind, payload: None,
            gate.Policy("norris"),
            NorrisBounds(max_steps=6),
            shell_facts=ShellFactsSource(shell.session.state_report),
            jobs=shell,
        )
        result = await run.run()
    finally:
        await shell.close()
    return result.status, conversation


def _asked(server: Any) -> list[str]:
    return [
        json.dumps(r["body"]["messages"][-1]["content"])
        for r in server.requests
        if r["path"].endswith("/chat/completions")
    ]


async def test_a_background_step_goes_on_and_a_quiet_step_waits_for_it(
    serve: ServeFn, tmp_path: Path
) -> None:
    server = serve(
        _steps(
            'CMD&: sleep 1; echo bg-mark""er; exit 5\nCMD: echo meanwhile',
            "The build runs; waiting for it.",
            "GOAL: complete",
        )
    )
    # `exit 5` is not proven harmless: the job HALTs like any step, and proceeds on the word.
    frontend = ScriptedFrontend("proceed")
    status, _ = await _run(server.url, tmp_path, frontend)

    assert status == "done"
    assert not frontend.script
    said = [event.text for event in frontend.of(Status)]
    assert any("[1] started in the background" in line for line in said)
    assert any("waiting for background job(s) 1" in line for line in said)
    _, second, third = _asked(server)
    # The step after the start: the foreground command ran while the job went on.
    assert "meanwhile" in second and "background job 1 started" in second
    assert "bg-marker" not in second
    # The step after the wait has its exit status and output.
    assert "bg-marker" in third and "exit status 5" in third


async def test_jobs_running_when_the_run_ends_are_stopped_and_said(
    serve: ServeFn, tmp_path: Path
) -> None:
    server = serve(_steps("CMD&: sleep 30.37", "GOAL: complete"))
    status, conversation = await _run(server.url, tmp_path, ScriptedFrontend())
    assert status == "done"
    assert "[aish] background job(s) 1 stopped: the run ended" in conversation.notes


async def test_a_background_step_that_cannot_be_wrapped_is_refused_and_told(
    serve: ServeFn, tmp_path: Path
) -> None:
    server = serve(_steps("CMD&: cat <<EOF > notes", "GOAL: blocked no here-document"))
    status, _ = await _run(server.url, tmp_path, ScriptedFrontend())
    assert status == "blocked"
    assert "cannot run in the background: a here-document" in _asked(server)[1]
    assert not (tmp_path / "notes").exists()
