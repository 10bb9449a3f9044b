"""A real aish in a PTY: `??` after a failing command puts the model's fix in the line editor
and nothing runs until Enter; ghost text from the history appears as you type and → takes it."""

from __future__ import annotations

from pathlib import Path

import pexpect

from aish.ui.repl.history import open_line_history

from ..conftest import ServeFn
from .conftest import AishTerminal, spawn_aish

FAILING = "sh -c 'echo broken-$((40+2)) >&2; exit 3'"


def _config(url: str) -> str:
    return (
        f'default_model = "local"\n[models.local]\nendpoint = "{url}/v1"\nmodel = "big"\n'
        f'[models.fast]\nendpoint = "{url}/v1"\nmodel = "small"\n'
    )


def test_the_fix_waits_in_the_editor_until_enter(
    serve: ServeFn, aish_home: Path, terminals: list[AishTerminal]
) -> None:
    server = serve(
        {
            "models": ["big", "small"],
            "rules": [
                {
                    "when": {"user": "failed with exit status 3"},
                    "reply": {"text": "Quoting.\nCMD: echo fixed-$((20+1))\n"},
                }
            ],
            "default": {"text": "ok"},
        }
    )
    aish = spawn_aish(aish_home, config=_config(server.url))
    terminals.append(aish)
    aish.wait_prompt()
    assert "broken-42" in aish.run(FAILING)
    aish.type_line("??")
    aish.expect(r"\[safe\]")
    aish.expect("in the line editor")
    # The next prompt holds the proposal, and nothing ran.
    shown = aish.expect(r"\[aish:[^\]]+\] [^\r\n]*?> echo fixed-\$\(\(20\+1\)\)")
    assert aish.child.expect([r"fixed-21", pexpect.TIMEOUT], timeout=1.5) == 1
    assert "fixed-21" not in shown
    aish.child.send("\r")  # Enter: now it runs, as a line the user typed
    aish.expect(r"fixed-21")
    aish.wait_prompt()
    [request] = server.requests
    assert request["body"]["model"] == "small"


def test_history_ghost_text_is_taken_with_right_arrow(
    serve: ServeFn, aish_home: Path, terminals: list[AishTerminal]
) -> None:
    server = serve({"default": {"text": "ok"}})
    history = open_line_history(
        aish_home / ".state" / "aish" / "history", print, lambda: str(aish_home / "work")
    )
    history.store_string("echo ghost-here-$((1+1))")
    aish = spawn_aish(aish_home, config=_config(server.url))
    terminals.append(aish)
    aish.wait_prompt()
    aish.child.send("echo gho")
    aish.expect(r"st-here-\$\(\(1\+1\)\)")  # the ghost text, drawn after the cursor
    aish.child.send("\x1b[C")  # →
    aish.child.send("\r")
    aish.expect("ghost-here-2")
    aish.wait_prompt()
    assert server.requests == []
