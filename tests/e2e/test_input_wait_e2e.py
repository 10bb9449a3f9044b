"""Norris steps that wait for terminal input, in the real REPL: the HALT "needs your input",
`[t]ake over` (the user's keys reach the step, Ctrl-] gives the terminal back), `[s]top`, and
sudo's password asked through the askpass bridge on aish's own prompt.

sudo here is a FAKE (`tests/support/fake_sudo.py` says why and what it keeps of sudo: `-A`
asks `$SUDO_ASKPASS`, otherwise the terminal, echo off). aish's side — the bridge, its socket,
its helper, the alias in the agent's shell — is the real one.
"""

from __future__ import annotations

import io
import os
import sqlite3
from pathlib import Path

import pexpect

from tests.support.fake_sudo import install_fake_sudo

from ..conftest import ServeFn
from .conftest import AishTerminal, spawn_aish

PASSWORD = "hunter2-e2e"

# A step timeout no test can reach: a HALT seen in time is the wait noticed, not the timeout.
CONFIG = """default_model = "local"
[models.local]
endpoint = "{url}/v1"
model = "testllm"
[norris]
sandbox = "off"
command_timeout_s = 600
"""

# Far above the half second noticing takes (bench/input_wait.py measures it) and far below the
# 600 s step timeout: reaching the HALT within it shows the wait was noticed, not timed out.
NOTICED_WITHIN_S = 20


def _scenario(*texts: str) -> dict[str, object]:
    return {"rules": [{"when": {}, "replies": [{"text": t} for t in texts]}]}


def _requests_text(server: object) -> str:
    return "\n".join(str(r["body"]) for r in server.requests)  # type: ignore[attr-defined]


def _spawn(home: Path, url: str, **env: str) -> tuple[AishTerminal, io.StringIO]:
    aish = spawn_aish(home, config=CONFIG.format(url=url), extra_env=env or None)
    screen = io.StringIO()
    aish.child.logfile_read = screen  # everything the terminal showed
    aish.wait_prompt()
    return aish, screen


def test_take_over_lets_a_typed_line_reach_the_step_and_the_run_goes_on(
    serve: ServeFn, aish_home: Path, terminals: list[AishTerminal]
) -> None:
    server = serve(
        _scenario(
            "CMD: read -s -p 'Password: ' pw; echo \"got ${#pw} chars\"",
            "GOAL: complete",
        )
    )
    aish, screen = _spawn(aish_home, server.url)
    terminals.append(aish)

    aish.type_line(":norris log in")
    aish.expect("NORRIS HALT", timeout=NOTICED_WITHIN_S)
    aish.expect("reason: needs your input: Password:")
    aish.expect(r"\[t\]ake over")
    aish.child.send("t")
    aish.expect(r"Ctrl-\] gives it back")
    aish.expect("Password:")  # the prompt shown again: the user sees what they answer
    aish.child.send(PASSWORD + "\r")
    aish.expect(f"got {len(PASSWORD)} chars")
    aish.expect("norris done")
    aish.wait_prompt()

    history = aish.run(":history")
    assert "took over the terminal" in history
    assert PASSWORD not in screen.getvalue()  # echo was off: never shown
    assert PASSWORD not in _requests_text(server)
    aish.type_line(":quit")
    aish.child.expect(pexpect.EOF, timeout=10)


def test_detaching_gives_the_terminal_back_and_stop_tells_the_model(
    serve: ServeFn, aish_home: Path, terminals: list[AishTerminal]
) -> None:
    server = serve(
        _scenario(
            "CMD: read -p 'Continue? [y/N] ' a; echo \"answer=$a\"",
            "GOAL: complete",
        )
    )
    aish, _ = _spawn(aish_home, server.url)
    terminals.append(aish)

    aish.type_line(":norris carry on")
    aish.expect("needs your input: Continue\\? \\[y/N\\]", timeout=NOTICED_WITHIN_S)
    aish.expect(r"\[t\]ake over")
    aish.child.send("t")
    aish.expect(r"Ctrl-\] gives it back")
    aish.child.send("\x1d")  # Ctrl-]: back to aish; the step still waits, so it asks again
    aish.expect("needs your input: Continue", timeout=NOTICED_WITHIN_S)
    aish.expect(r"\[s\]top it")
    aish.child.send("s")
    aish.expect("stopped: it waited for terminal input")
    aish.expect("norris done")
    aish.wait_prompt()
    requests = [r for r in server.requests if r["path"].endswith("/chat/completions")]
    told = str(requests[-1]["body"])
    assert "stopped: it waited for terminal input" in told
    assert "took over the terminal" in told
    aish.type_line(":quit")
    aish.child.expect(pexpect.EOF, timeout=10)


def test_sudo_asks_on_aishs_prompt_through_the_askpass_bridge(
    serve: ServeFn, aish_home: Path, terminals: list[AishTerminal], tmp_path: Path
) -> None:
    fake = install_fake_sudo(tmp_path / "fake-sudo-bin", PASSWORD)
    server = serve(_scenario("CMD: sudo -k; sudo true && echo root-ok", "GOAL: complete"))
    # aish answers only sudo's askpass child: AISH_TRUSTED_SUDO makes the fake count as sudo.
    aish, screen = _spawn(
        aish_home,
        server.url,
        PATH=f"{fake.parent}:{os.environ['PATH']}",
        AISH_TRUSTED_SUDO=str(fake),
    )
    terminals.append(aish)

    aish.type_line(":norris become root")
    # The fake sudo is no system program: the gate halts it first.
    aish.expect("NORRIS HALT")
    aish.expect(r"\[a\]bort")
    aish.child.send("p")
    aish.expect("asks for a password")
    aish.expect(r"asked by the step: sudo -k; sudo true && echo root-ok")
    aish.expect(r"\[sudo\] password for ")
    aish.child.send(PASSWORD + "\r")
    aish.expect("root-ok")
    aish.expect("norris done")
    aish.wait_prompt()
    aish.type_line(":quit")
    aish.child.expect(pexpect.EOF, timeout=10)

    # Never echoed, never sent to the model, never in the session's store or aish's logs.
    assert PASSWORD not in screen.getvalue()
    assert PASSWORD not in _requests_text(server)
    kept = [p for d in (".state", ".data") for p in (aish_home / d).rglob("*") if p.is_file()]
    for path in kept:
        assert PASSWORD.encode() not in path.read_bytes(), path
    [store] = [path for path in kept if path.suffix == ".sqlite3"]
    with sqlite3.connect(store) as db:
        tables = [row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        dump = "".join(str(db.execute(f'SELECT * FROM "{table}"').fetchall()) for table in tables)
    assert "root-ok" in dump  # the step was recorded here: this is where a leak would be
    assert PASSWORD not in dump
