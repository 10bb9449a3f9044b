"""Norris in the real REPL: `:norris …`, HALTs answered with one key, Ctrl-C, C-n."""

from __future__ import annotations

import json
from pathlib import Path

import pexpect

from ..conftest import ServeFn
from ..processes import eventually_running, running
from .conftest import AishTerminal, spawn_aish


def config_for(url: str) -> str:
    return f'default_model = "local"\n[models.local]\nendpoint = "{url}/v1"\nmodel = "testllm"\n'


def test_halts_answered_skip_then_abort(
    serve: ServeFn, aish_home: Path, terminals: list[AishTerminal]
) -> None:
    work = aish_home / "work"
    (work / "build").mkdir()
    (work / "app.log").write_text("keep\n")
    server = serve(
        {
            "rules": [
                {
                    "when": {},
                    "replies": [
                        {"text": "Looking first.\nCMD: ls"},
                        {"text": "CMD: rm -rf build"},
                        {"text": "Then empty the log.\nCMD: truncate -s 0 app.log"},
                        {"text": "GOAL: complete"},
                    ],
                }
            ]
        }
    )
    # Without the sandbox (on by default where the kernel allows it, see
    # test_norris_sandbox_e2e): unknown steps halt, and every step acts on the real tree.
    unsandboxed = config_for(server.url) + '[norris]\nsandbox = "off"\n'
    aish = spawn_aish(aish_home, config=unsandboxed)
    terminals.append(aish)
    aish.wait_prompt()

    aish.type_line(":norris tidy the project")
    aish.expect("Norris: tidy the project")
    # No preset but the one proposing the steps: said once, at the start.
    aish.expect("no independent second opinion: unknown steps halt")
    aish.expect(r"\$ ls")
    aish.expect("app.log")  # the safe step ran unattended, its output framed
    aish.expect("NORRIS HALT")
    aish.expect("action: rm -rf build")
    aish.expect(r"\[a\]bort")
    aish.child.send("s")
    aish.expect("NORRIS HALT")
    aish.expect("action: truncate -s 0 app.log")
    aish.expect(r"\[a\]bort")
    aish.child.send("a")
    aish.expect("norris aborted: aborted at the HALT prompt")
    aish.wait_prompt()
    assert (work / "build").is_dir()
    assert (work / "app.log").read_text() == "keep\n"

    # The conversation kept the run, the skip and the abort.
    history = aish.run(":history")
    assert "[aish] action skipped by user: rm -rf build" in history
    assert "CMD: truncate -s 0 app.log" in history
    assert "[aish] the autonomous run ended (aborted)" in history
    requests = [r for r in server.requests if r["path"].endswith("/chat/completions")]
    assert len(requests) == 3
    aish.type_line(":quit")
    aish.child.expect(pexpect.EOF, timeout=10)


def test_ctrl_c_aborts_a_running_step_and_c_n_toggles_the_mode(
    serve: ServeFn, aish_home: Path, terminals: list[AishTerminal]
) -> None:
    server = serve(
        {
            "rules": [
                {"when": {"user": "Goal: wait"}, "reply": {"text": "CMD: sleep 30.17"}},
                {"when": {"user": "Goal: count"}, "reply": {"text": "GOAL: complete 0 files"}},
            ]
        }
    )
    aish = spawn_aish(aish_home, config=config_for(server.url))
    terminals.append(aish)
    aish.wait_prompt()

    aish.type_line(":norris wait")
    aish.expect(r"\$ sleep 30.17")
    assert eventually_running("sleep 30.17")
    aish.child.send("\x03")
    aish.expect("norris aborted", timeout=10)
    aish.wait_prompt(timeout=10)
    assert not running("sleep 30.17")  # the agent's command was stopped with the run

    # C-n on an empty line: the mode is on (⚡) and the next line for the model is a goal.
    aish.child.send("\x0e")
    aish.expect("Norris mode on")
    aish.expect("⚡")
    shown = aish.run("count the files")
    assert "norris done: 0 files" in shown
    assert "⚡" in aish.run("echo still on")
    assert "Norris mode off" in aish.run(":norris off")
    aish.type_line(":quit")
    aish.child.expect(pexpect.EOF, timeout=10)
    bodies = [
        json.dumps(r["body"]) for r in server.requests if r["path"].endswith("/chat/completions")
    ]
    assert len(bodies) == 2


def test_the_agent_shell_has_the_users_exported_variables_and_cwd(
    serve: ServeFn, aish_home: Path, terminals: list[AishTerminal]
) -> None:
    (aish_home / "work" / "sub").mkdir()
    server = serve(
        {
            "rules": [
                {
                    "when": {},
                    "replies": [
                        {"text": "CMD: printenv NORRIS_PROBE"},
                        {"text": "CMD: pwd"},
                        {"text": "GOAL: complete"},
                    ],
                }
            ]
        }
    )
    aish = spawn_aish(aish_home, config=config_for(server.url))
    terminals.append(aish)
    aish.wait_prompt()
    aish.run("export NORRIS_PROBE=set-by-the-user; cd sub")
    shown = aish.run(":norris show the probe")
    assert "│ set-by-the-user" in shown
    assert f"│ {aish_home / 'work' / 'sub'}" in shown
    assert "norris done" in shown
    aish.type_line(":quit")
    aish.child.expect(pexpect.EOF, timeout=10)
