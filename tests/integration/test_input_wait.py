"""Steps that wait for terminal input, against a real agent shell (bash on a PTY), a real model
server (aish-testllm over HTTP) and, for `aish goal`, a real aish process.

Nobody is at these terminals: a step that waits for input HALTs with "needs your input" and
the prompt text (`aish goal` exits 3), a slow step is left to finish, and sudo's askpass
question (a FAKE sudo, see tests/support/fake_sudo.py) halts instead of waiting. The REPL's
`[t]ake over` and the password typed on aish's prompt are in tests/e2e/test_input_wait_e2e.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from aish.agent import gate
from aish.agent.events import CommandFinished, Halt
from aish.agent.norris import NorrisBounds, NorrisRun
from aish.agent.norris.input_halt import TakeOverAnswer
from aish.agent.shell_facts import ShellFactsSource
from aish.conversation.context import Conversation
from aish.llm.types import ModelTarget
from aish.run.agent_shell import AgentShell
from aish.run.input_wait import InputWait
from tests.support import ScriptedFrontend
from tests.support.fake_sudo import install_fake_sudo

from ..conftest import ServeFn

PASSWORD_STEP = "read -s -p 'Password: ' pw; echo \"got ${#pw}\""
QUESTION_STEP = "read -p 'Overwrite? [y/N] ' answer; echo \"$answer\""

# The step timeout is 600 s: an end within the subprocess timeout (60 s) is the wait noticed,
# not the step timed out (the noticing itself takes about half a second: bench/input_wait.py).
NO_TIMEOUT_TO_REACH = NorrisBounds(command_timeout_s=600)


def _steps(*texts: str) -> dict[str, Any]:
    return {"rules": [{"when": {}, "replies": [{"text": t} for t in texts]}]}


def _target(url: str) -> ModelTarget:
    return ModelTarget(name="local", endpoint=f"{url}/v1", model="testllm", max_retries=0)


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    path = tmp_path / "work"
    path.mkdir()
    return path


# ---- aish goal -------------------------------------------------------------------------------


def _goal(xdg_home: Path, url: str, workdir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    config = xdg_home / "config" / "aish" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        f'default_model = "local"\n[models.local]\nendpoint = "{url}/v1"\nmodel = "testllm"\n'
        "max_retries = 0\n[norris]\ncommand_timeout_s = 600\n"
    )
    return subprocess.run(
        [sys.executable, "-m", "aish", "goal", "--yes-safe", *args, "log in"],
        cwd=workdir,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,  # far below the 600 s step timeout: see NO_TIMEOUT_TO_REACH
        env=os.environ.copy(),
    )


def test_goal_halts_with_exit_3_and_the_prompt_text(
    serve: ServeFn, xdg_home: Path, workdir: Path
) -> None:
    server = serve(_steps(f"CMD: {PASSWORD_STEP}", "GOAL: complete"))
    result = _goal(xdg_home, server.url, workdir)

    assert result.returncode == 3, result.stderr
    assert result.stderr.splitlines()[:3] == [
        f"aish: HALT at step 1/16: {PASSWORD_STEP}",
        "  reason: needs your input: Password:",
        "  stopped: it waited for terminal input and nobody is at this terminal "
        "(in aish's REPL, `[t]ake over` hands you its terminal)",
    ]
    assert "norris halted: needs your input: Password:" in result.stdout
    requests = [r for r in server.requests if r["path"].endswith("/chat/completions")]
    assert len(requests) == 1  # halted: the model is not asked again


def test_goal_json_ends_halted_with_the_pending_step(
    serve: ServeFn, xdg_home: Path, workdir: Path
) -> None:
    server = serve(_steps(f"CMD: {QUESTION_STEP}", "GOAL: complete"))
    result = _goal(xdg_home, server.url, workdir, "--json")

    assert result.returncode == 3, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    halt = next(e for e in events if e["type"] == "halt")
    assert (halt["level"], halt["reasons"]) == ("input", ["needs your input: Overwrite? [y/N]"])
    end = events[-1]
    assert (end["type"], end["status"]) == ("norris_end", "halted")
    assert end["reason"] == "needs your input: Overwrite? [y/N]"
    assert end["pending_action"] == QUESTION_STEP


# ---- the run, with nobody to answer ---------------------------------------------------------


async def _run(
    url: str,
    workdir: Path,
    frontend: ScriptedFrontend,
    *,
    env: dict[str, str] | None = None,
) -> tuple[str, str, Conversation]:
    conversation = Conversation("You are aish.")
    shell = await AgentShell.start(str(workdir), env=env)
    try:
        run = NorrisRun(
            "log in",
            conversation,
            _target(url),
            frontend,
            shell.run_authorized,
            lambda: shell.cwd,
            lambda kind, payload: None,
            gate.Policy("norris"),
            NO_TIMEOUT_TO_REACH,
            shell_facts=ShellFactsSource(shell.session.state_report),
        )
        result = await run.run()
    finally:
        await shell.close()
    return result.status, result.reason, conversation


async def test_a_slow_step_is_not_taken_for_a_wait(serve: ServeFn, workdir: Path) -> None:
    server = serve(_steps("CMD: sleep 1.5; echo slept", "GOAL: complete"))
    frontend = ScriptedFrontend()
    status, _, _ = await _run(server.url, workdir, frontend)

    assert status == "done"
    assert not frontend.of(Halt)
    [finished] = frontend.of(CommandFinished)
    assert (finished.exit_status, finished.output, finished.notice) == (0, "slept", None)


async def test_without_a_person_the_run_halts_at_the_wait(serve: ServeFn, workdir: Path) -> None:
    # A frontend that cannot hand over its terminal (this one, `aish goal`'s) halts the run.
    server = serve(_steps(f"CMD: {PASSWORD_STEP}", "GOAL: complete"))
    frontend = ScriptedFrontend()
    status, reason, conversation = await _run(server.url, workdir, frontend)

    assert (status, reason) == ("halted", "needs your input: Password:")
    [halt] = frontend.of(Halt)
    assert (halt.level, halt.action) == ("input", PASSWORD_STEP)
    # The next question tells the model why the run stopped.
    assert conversation.notes[-1] == (
        "[aish] the autonomous run ended (halted): needs your input: Password:"
    )


async def test_sudos_askpass_question_halts_without_a_person(
    serve: ServeFn, workdir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = install_fake_sudo(tmp_path / "fake-sudo-bin", "s3cret")
    monkeypatch.setenv("AISH_TRUSTED_SUDO", str(fake))  # aish answers only sudo's askpass
    fake = fake.parent
    env = {**os.environ, "PATH": f"{fake}:{os.environ['PATH']}"}
    server = serve(_steps("CMD: sudo true && echo root-ok", "GOAL: complete"))
    # The fake sudo is no system program: the gate halts it first, and the user proceeds.
    frontend = ScriptedFrontend("proceed")
    status, reason, _ = await _run(server.url, workdir, frontend, env=env)

    assert status == "halted"
    assert reason.startswith("needs your input: [sudo] password for ")
    halts = frontend.of(Halt)
    assert [h.level for h in halts] == ["unknown", "input"]


class _Person(ScriptedFrontend):
    """A frontend with someone who types the password whenever asked (and records who asked)."""

    def __init__(self, *script: Any) -> None:
        super().__init__(*script)
        self.passwords_asked: list[tuple[str, str]] = []

    async def input_action(self, action: str, wait: InputWait) -> TakeOverAnswer:
        return "stop"

    async def ask_password(self, prompt: str, command: str) -> str | None:
        self.passwords_asked.append((prompt, command))
        return SECRET


SECRET = "s3cret-askpass"


async def test_a_step_that_runs_sudo_askpass_itself_never_gets_the_password(
    serve: ServeFn, workdir: Path
) -> None:
    # The attack: a program a step runs finds $SUDO_ASKPASS and prints what it answers.
    step = 'sh -c \'pw=$("$SUDO_ASKPASS" "[sudo] password for me: "); echo "rc=$? pw=$pw"\''
    server = serve(_steps(f"CMD: {step}", "GOAL: complete"))
    person = _Person("proceed")
    status, _, conversation = await _run(server.url, workdir, person)

    assert status == "done"
    assert person.passwords_asked == []  # refused before anyone was asked
    [finished] = person.of(CommandFinished)
    assert finished.output.splitlines()[-1] == "rc=1 pw="
    assert "refused: only sudo may ask aish for a password" in finished.output
    told = "\n".join(str(r["body"]) for r in server.requests)
    assert SECRET not in told
    assert SECRET not in str((conversation.history, conversation.pending, conversation.notes))


async def test_sudo_gets_the_password_and_the_question_names_the_step(
    serve: ServeFn, workdir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = install_fake_sudo(tmp_path / "fake-sudo-bin", SECRET)
    monkeypatch.setenv("AISH_TRUSTED_SUDO", str(fake))
    env = {**os.environ, "PATH": f"{fake.parent}:{os.environ['PATH']}"}
    step = "sudo true && echo root-ok"
    server = serve(_steps(f"CMD: {step}", "GOAL: complete"))
    person = _Person("proceed")
    status, _, _ = await _run(server.url, workdir, person, env=env)

    assert status == "done"
    assert [command for _, command in person.passwords_asked] == [step]
    [finished] = person.of(CommandFinished)
    assert (finished.exit_status, finished.output) == (0, "root-ok")
    assert SECRET not in "\n".join(str(r["body"]) for r in server.requests)


async def test_the_agent_shell_runs_sudo_as_sudo_dash_a_the_gate_sees_it(workdir: Path) -> None:
    shell = await AgentShell.start(str(workdir))
    try:
        assert shell.askpass is not None
        program = shell.askpass.program
        report = await shell.session.state_report()
        # An alias in the shell's tables: the gate judges `sudo -A -k …`, which is what runs
        # (-k: no cached credential, so every sudo step asks the user).
        assert report.aliases["sudo"] == "sudo -A -k"
        exported = await shell.session.exported_environment()
        assert exported["SUDO_ASKPASS"] == str(program)
        assert "AISH_SUDO_ASKPASS" not in exported  # the rc's word, gone once read
        verdict = await gate.assess(
            gate.ProposedCommand("sudo rm -rf /srv/x"),
            gate.Policy("norris"),
            None,
            ShellFactsSource(shell.session.state_report),
        )
        assert verdict.verdict.level == "destructive"
    finally:
        await shell.close()
    assert not program.exists()
