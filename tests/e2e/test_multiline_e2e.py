"""Multi-line input typed like a person: bash's PS2, in aish and in `bash --norc -i` side by side.

Each scenario types the same keys into aish and into bash and reads both screens through a
terminal emulator (pyte): the continuation lines (`> …`) and the output must be the same, with
the prompts set aside. None of these is a question: the model is never asked.
"""

from __future__ import annotations

import io
import os
import re
from pathlib import Path

import pexpect
import pyte
import pytest

from ..conftest import ServeFn
from .conftest import PROMPT, AishTerminal, spawn_aish

ROWS, COLS = 40, 120
CTRL_V = "\x16"  # quoted insert: a literal Tab, not completion (readline and prompt_toolkit)

# (keys typed, output lines the commands must print)
SCENARIOS = {
    "for loop": ("for i in 1 2 3\rdo echo out-$i\rdone\r", ["out-1", "out-2", "out-3"]),
    "here-doc": ("cat <<EOF\rout-$((40+2))\rout-two\rEOF\r", ["out-42", "out-two"]),
    "tab-stripped here-doc": (
        f"cat <<-END\r{CTRL_V}\tout-tabbed\r{CTRL_V}\tEND\r",
        ["out-tabbed"],
    ),
    "quoted delimiter": ("cat <<'EOF'\rout-$HOME\rEOF\r", ["out-$HOME"]),
    "backslash": ("echo out-one \\\rtwo\r", ["out-one two"]),
    "double quote": ('echo "out-first\rout-second"\r', ["out-first", "out-second"]),
}


def _config(url: str) -> str:
    return f'default_model = "local"\n[models.local]\nendpoint = "{url}/v1"\nmodel = "testllm"\n'


def _screen(raw: str) -> list[str]:
    screen = pyte.Screen(COLS, ROWS)
    pyte.Stream(screen).feed(raw)
    return [line.rstrip() for line in screen.display]


def _shown(lines: list[str], prompt: str) -> list[str]:
    """The screen without its prompts: each prompt becomes `$`, empty lines go, and blanks are
    one space (a Tab's width depends on where the prompt ends)."""
    prompted = re.compile(f"^(?:{prompt})")
    return [" ".join(prompted.sub("$", line).split()) for line in lines if line.strip()]


def _outputs(lines: list[str]) -> list[str]:
    return [line for line in lines if line.startswith("out-")]


def _bash(home: Path) -> pexpect.spawn:
    env = {
        "HOME": str(home),
        "PATH": os.environ["PATH"],
        "TERM": "xterm-256color",
        "LANG": "C.UTF-8",
        "PS1": "$ ",
        "PS2": "> ",
    }
    return pexpect.spawn(
        "bash",
        ["--norc", "--noprofile", "-i"],
        cwd=str(home / "work"),
        env=env,
        encoding="utf-8",
        dimensions=(ROWS, COLS),
        timeout=20,
    )


def _type_and_read(child: pexpect.spawn, keys: str, last: str, prompt: str) -> list[str]:
    log = io.StringIO()
    child.logfile_read = log
    child.send(keys)
    child.expect_exact(last + "\r\n")
    child.expect(prompt)
    child.logfile_read = None
    return _screen(log.getvalue())


@pytest.mark.parametrize("name", SCENARIOS)
def test_multi_line_input_runs_as_in_bash(
    name: str, serve: ServeFn, aish_home: Path, terminals: list[AishTerminal]
) -> None:
    keys, outputs = SCENARIOS[name]
    server = serve({"default": {"text": "a model answer"}})
    aish = spawn_aish(aish_home, config=_config(server.url))
    terminals.append(aish)
    aish.wait_prompt()
    ours = _type_and_read(aish.child, "\x0c" + keys, outputs[-1], PROMPT)

    bash = _bash(aish_home)
    try:
        bash.expect_exact("$ ")
        theirs = _type_and_read(bash, "\x0c" + keys, outputs[-1], r"\$ ")
    finally:
        bash.terminate(force=True)

    assert _outputs(ours) == outputs
    assert _shown(ours, PROMPT) == _shown(theirs, r"\$"), (ours, theirs)
    assert server.requests == []


def test_an_english_line_with_an_apostrophe_goes_to_the_model_at_once(
    serve: ServeFn, aish_home: Path, terminals: list[AishTerminal]
) -> None:
    server = serve({"default": {"text": "a model answer"}})
    aish = spawn_aish(aish_home, config=_config(server.url))
    terminals.append(aish)
    aish.wait_prompt()
    shown = aish.run("what's wrong", timeout=30)
    assert "a model answer" in shown
    chats = [r for r in server.requests if r["path"].endswith("/chat/completions")]
    assert len(chats) == 1
    assert "what's wrong" in str(chats[0]["body"]["messages"][-1]["content"])


def test_history_keeps_the_whole_entry_and_ctrl_c_drops_an_unfinished_one(
    serve: ServeFn, aish_home: Path, terminals: list[AishTerminal]
) -> None:
    server = serve({"default": {"text": "a model answer"}})
    aish = spawn_aish(aish_home, config=_config(server.url))
    terminals.append(aish)
    aish.wait_prompt()
    aish.child.send("for i in 1 2\rdo echo out-$i\rdone\r")
    aish.expect("out-2")
    aish.wait_prompt()
    # Up brings back all three lines as one entry; Enter runs them again.
    aish.child.send("\x1b[A")
    aish.expect(r"> done")
    aish.child.send("\r")
    aish.expect("out-1\r\nout-2")
    aish.wait_prompt()
    # Ctrl-C on a continuation line drops everything typed so far: nothing runs.
    aish.child.send("for i in 7 8\rdo echo dropped-$i\r")
    aish.expect("> ")
    aish.child.send("\x03")
    aish.wait_prompt()
    assert "dropped-7" not in aish.run("echo out-after")
    history = (aish_home / ".state" / "aish" / "history").read_text()
    assert "+for i in 1 2\n+do echo out-$i\n+done\n" in history
    assert server.requests == []


def test_ctrl_d_on_an_empty_continuation_line_ends_the_input_as_bash_does(
    serve: ServeFn, aish_home: Path, terminals: list[AishTerminal]
) -> None:
    server = serve({"default": {"text": "a model answer"}})
    aish = spawn_aish(aish_home, config=_config(server.url))
    terminals.append(aish)
    aish.wait_prompt()
    aish.child.send('echo "out-unfinished\r')
    aish.expect("> ")
    aish.child.send("\x04")
    shown = aish.expect(r"unexpected end of input \(an unclosed `\"`\): nothing ran")
    shown += aish.wait_prompt()
    assert "out-unfinished\r\n" not in shown  # the echo's lines end "\r\r\n", output's "\r\n"
    # Nothing is lost: Up brings it back, and closing the quote runs it.
    aish.child.send('\x1b[A"\r')
    aish.expect("out-unfinished\r\n")
    aish.wait_prompt()
    assert aish.child.isalive()
    assert server.requests == []
