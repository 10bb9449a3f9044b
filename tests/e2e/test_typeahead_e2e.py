"""Type-ahead end to end: keys typed faster than aish asks for them, in a real PTY.

Bash is the spec: every line of a burst runs, in order; a line typed while a command runs runs
after it; a command that reads the terminal gets the keys typed for it. Each test also checks
that nothing reached the model (a lost or mangled line would be English to the router), and where
bash can do the same the same bytes go to `bash --norc -i` in the same harness and the commands'
outputs are compared, in order.

Outputs are told apart from the typed lines by arithmetic: `echo E$((1))` prints `E1`, which its
echo does not contain.
"""

from __future__ import annotations

import re
import shutil
import time
from collections.abc import Callable
from pathlib import Path

import pexpect
import pytest

from ..conftest import ServeFn
from .conftest import AishTerminal, spawn_aish

END = "echo END$((9))\r"
ENDED = r"END9\r"  # END's output (its echo reads `END$((9))`)
# Outputs, each written at once with its newline: `E1` (never inside a typed `E$((1))`) and
# `got <word>`. The echo of keys typed meanwhile may come right before one.
OUTPUT = r"[A-Z]\d+(?=\r)|got \w+(?=\r)"
# What terminals draw besides text: CSI and OSC sequences, keypad modes.
CONTROL = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[=>]")


def _config(url: str) -> str:
    return f'default_model = "local"\n[models.local]\nendpoint = "{url}/v1"\nmodel = "testllm"\n'


def type_keys(child: pexpect.spawn, keys: str, gap_s: float) -> None:
    """Type like a fast typist: one key at a time, ``gap_s`` apart (0: all in one write). The
    keys then straddle every boundary: some read by the line editor with the Enter before
    them, some relayed while that line's command runs, some arriving as it ends."""
    if not gap_s:
        child.send(keys)
        return
    child.delaybeforesend = None
    for key in keys:
        child.send(key)
        time.sleep(gap_s)


def outputs(screen: str, path: Path | None = None) -> list[str]:
    """The commands' outputs on the screen, in order, and where ``path`` was printed (the
    prompt shows it under `~`). Keys typed while a command runs are echoed by the terminal, as
    in bash, even in the middle of its output: their echo never matches."""
    pattern = OUTPUT + (rf"|{re.escape(str(path))}(?=\r)" if path else "")
    return re.findall(pattern, CONTROL.sub("", screen))


def bash_terminal(home: Path) -> pexpect.spawn:
    """Plain `bash --norc -i` in the same kind of PTY, for the same keys."""
    child = pexpect.spawn(
        "bash",
        ["--norc", "-i"],
        cwd=str(home / "work"),
        env={"HOME": str(home), "PATH": "/usr/bin:/bin", "TERM": "xterm", "PS1": "$ "},
        encoding="utf-8",
        codec_errors="replace",
        dimensions=(40, 120),
        timeout=20,
    )
    child.expect_exact("$ ")
    return child


def in_bash(
    home: Path, steps: Callable[[pexpect.spawn], str], path: Path | None = None
) -> list[str]:
    bash = bash_terminal(home)
    try:
        return outputs(steps(bash), path)
    finally:
        bash.terminate(force=True)


SHELLS = [
    "bash",
    pytest.param(
        "zsh", marks=pytest.mark.skipif(shutil.which("zsh") is None, reason="zsh not installed")
    ),
]


def started(
    serve: ServeFn, home: Path, terminals: list[AishTerminal], shell: str = "bash"
) -> tuple[AishTerminal, object]:
    # Any line that reaches the model gets an answer, and is counted.
    server = serve({"rules": [], "default": {"text": "a model answered"}})
    shell_path = shutil.which(shell) or shell
    aish = spawn_aish(home, config=_config(server.url), extra_env={"SHELL": shell_path})
    terminals.append(aish)
    aish.wait_prompt()
    return aish, server


@pytest.mark.parametrize("shell", SHELLS)
def test_a_burst_of_lines_runs_every_line_in_order(
    serve: ServeFn, aish_home: Path, terminals: list[AishTerminal], shell: str
) -> None:
    burst = "".join(f"echo E$(({n}))\r" for n in range(1, 9)) + END
    expected = [f"E{n}" for n in range(1, 9)]

    def steps(child: pexpect.spawn, gap_s: float) -> str:
        type_keys(child, burst, gap_s)
        child.expect(ENDED)
        return str(child.before)

    aish, server = started(serve, aish_home, terminals, shell)
    for gap_s in (0, 0.001, 0.004, 0.012):
        shown = steps(aish.child, gap_s)
        aish.wait_prompt()
        assert outputs(shown) == expected, f"typed {gap_s}s apart"
    assert in_bash(aish_home, lambda bash: steps(bash, 0.004)) == expected  # parity
    assert server.requests == []  # type: ignore[attr-defined]


def test_a_line_typed_while_a_command_runs_runs_after_it(
    serve: ServeFn, aish_home: Path, terminals: list[AishTerminal]
) -> None:
    def steps(child: pexpect.spawn) -> str:
        child.send("echo S$((1)); sleep 1\r")
        child.expect(r"S1\r")  # the command is running: type the next line now
        child.send("echo S$((2))\r" + END)
        child.expect(ENDED)
        return "S1\r\n" + str(child.before)

    aish, server = started(serve, aish_home, terminals)
    shown = steps(aish.child)
    aish.wait_prompt()
    assert outputs(shown) == ["S1", "S2"]
    assert in_bash(aish_home, steps) == ["S1", "S2"]
    assert server.requests == []  # type: ignore[attr-defined]


@pytest.mark.parametrize("shell", SHELLS)
def test_cd_then_pwd_as_a_burst_runs_both_every_time(
    serve: ServeFn, aish_home: Path, terminals: list[AishTerminal], shell: str
) -> None:
    sub = aish_home / "work" / "sub"
    sub.mkdir()

    def steps(child: pexpect.spawn) -> str:
        shown = ""
        for n in range(6):  # the race lost both lines in 4 of 5 tries
            type_keys(child, f"cd sub\rpwd\rcd ..\recho R$(({n}))\r", (0, 0.003, 0.008)[n % 3])
            child.expect(rf"R{n}\r")
            shown += str(child.before) + f"R{n}\r\n"
        return shown

    aish, server = started(serve, aish_home, terminals, shell)
    shown = steps(aish.child)
    aish.wait_prompt()
    expected = [item for n in range(6) for item in (str(sub), f"R{n}")]
    assert outputs(shown, sub) == expected
    assert in_bash(aish_home, steps, sub) == expected
    assert server.requests == []  # type: ignore[attr-defined]


def test_a_command_that_reads_the_terminal_gets_the_line_typed_for_it(
    serve: ServeFn, aish_home: Path, terminals: list[AishTerminal]
) -> None:
    def steps(child: pexpect.spawn) -> str:
        child.send("echo W$((1)); read x; echo got $x\r")
        child.expect(r"W1\r")  # `read` is waiting
        child.send("hello\r" + END)
        child.expect(ENDED)
        return "W1\r\n" + str(child.before)

    aish, server = started(serve, aish_home, terminals)
    shown = steps(aish.child)
    aish.wait_prompt()
    assert outputs(shown) == ["W1", "got hello"]
    assert in_bash(aish_home, steps) == ["W1", "got hello"]
    # `hello` went to `read`: it neither ran as a command nor reached the model.
    assert "command not found" not in shown
    assert server.requests == []  # type: ignore[attr-defined]


def test_a_line_typed_while_a_reply_streams_runs_after_the_reply(
    serve: ServeFn, aish_home: Path, terminals: list[AishTerminal]
) -> None:
    server = serve(
        {
            "rules": [
                {
                    "when": {"user": "tell me"},
                    "reply": {"text": "word " * 30 + "done.", "chunk_size": 4, "delay_ms": 60},
                }
            ],
            "default": {"text": "a model answered"},
        }
    )
    aish = spawn_aish(aish_home, config=_config(server.url))
    terminals.append(aish)
    aish.wait_prompt()
    aish.type_line("tell me a story")
    aish.expect("word word")
    aish.child.send("echo T$((1))\r")  # not echoed over the reply, but kept
    shown = aish.expect(r"T1\r")
    aish.wait_prompt()
    assert shown.index("done.") < shown.index("T1")
    assert len(server.requests) == 1  # the typed line ran in the shell, it was not a question


def test_a_confirm_question_takes_only_its_answer_and_the_rest_stays_queued(
    serve: ServeFn, aish_home: Path, terminals: list[AishTerminal], tmp_path: Path
) -> None:
    marker = tmp_path / "approved"
    server = serve(
        {
            "rules": [
                {
                    "when": {"user": "make it"},
                    "reply": {
                        "text": f"Slowly now.\nCMD: touch {marker} && echo P$((1))\n",
                        "chunk_size": 4,
                        "delay_ms": 60,
                    },
                }
            ],
            "default": {"text": "a model answered"},
        }
    )
    aish = spawn_aish(aish_home, config=_config(server.url))
    terminals.append(aish)
    aish.wait_prompt()
    aish.type_line("make it please")
    aish.expect("Slowly")
    # Typed before the question: its Enter must not answer "no", and the line must still run.
    aish.child.send("echo Q$((1))\r")
    aish.expect(r"\[d\]escribe")
    aish.child.send("yecho Q$((2))\r")  # `y` answers; the line after it is the user's next
    shown = aish.expect(r"Q2\r")
    aish.wait_prompt()
    assert marker.exists()
    assert outputs(shown) == ["P1", "Q1", "Q2"]
    assert len(server.requests) == 1
