"""What you approve is what you see, in a real aish in a real PTY against aish-testllm, read off
an emulated screen (`tests.person_screen`: pyte, plus the conceal attribute pyte ignores).

- Command output cannot hide the next verdict: an approved `cat notes.txt` whose content ends
  in a fake green `[safe] read-only` and the hidden-text attribute is followed by the real
  red `[destructive]` of the next `CMD:`, readable.
- A bidi override and a zero-width space in a `CMD:` line are shown in the confirm prompt as
  `<U+202E>` / `<U+200B>`, and the verdict says why it is not `safe`.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from tests.person_screen import render

from ..conftest import ServeFn
from .conftest import AishTerminal, spawn_aish

CONFIRM = r"\[y\]es / \[e\]dit / \[n\]o / \[d\]escribe"


def _config(url: str) -> str:
    return f'default_model = "local"\n[models.local]\nendpoint = "{url}/v1"\nmodel = "testllm"\n'


def _start(
    serve: ServeFn, home: Path, terminals: list[AishTerminal], reply: str, no_color: str
) -> tuple[AishTerminal, io.StringIO]:
    server = serve({"default": {"text": reply, "chunk_size": 9}})
    aish = spawn_aish(home, config=_config(server.url), extra_env={"NO_COLOR": no_color})
    terminals.append(aish)
    seen = io.StringIO()
    aish.child.logfile_read = seen
    aish.wait_prompt()
    return aish, seen


@pytest.mark.parametrize("no_color", ["", "1"])
def test_command_output_cannot_hide_the_next_verdict(
    serve: ServeFn, aish_home: Path, terminals: list[AishTerminal], no_color: str
) -> None:
    (aish_home / "work" / "notes.txt").write_text(
        "meeting at 10\n\x1b[32m  [safe] read-only\x1b[0m\x1b[8m\x1b[?25l\x1b(0"
    )
    (aish_home / "work" / "build").mkdir()
    reply = "Let me look.\nCMD: cat notes.txt\nCMD: rm -rf build\n"
    aish, seen = _start(serve, aish_home, terminals, reply, no_color)

    aish.type_line("tidy up")
    aish.expect(CONFIRM, timeout=30)
    aish.child.send("y")
    aish.expect("destructive", timeout=30)
    aish.expect(CONFIRM, timeout=30)
    shown = render(seen.getvalue())
    aish.child.send("n")
    aish.wait_prompt()

    rows = shown.rows()
    verdicts = [row for row in rows if "[destructive]" in row]
    assert verdicts, "\n".join(rows)
    assert any(row.strip() == "rm -rf build" for row in rows)  # the command in the question
    assert any("Run it? [y]es" in row for row in rows)
    assert not shown.cursor.hidden
    assert (aish_home / "work" / "build").is_dir()  # "n": nothing ran
    # The fake line is there, as the file's text, before the real one.
    fake = next(i for i, row in enumerate(rows) if "[safe] read-only" in row)
    assert fake < rows.index(verdicts[-1])


def test_bidi_and_zero_width_in_a_cmd_line_are_shown_in_the_confirm_prompt(
    serve: ServeFn, aish_home: Path, terminals: list[AishTerminal]
) -> None:
    reply = "Here.\nCMD: cat notes\u202etxt.sh\u200b\n"
    aish, seen = _start(serve, aish_home, terminals, reply, "1")

    aish.type_line("show the notes")
    aish.expect(CONFIRM, timeout=30)
    output = seen.getvalue()
    aish.child.send("n")
    aish.wait_prompt()

    assert "\u202e" not in output and "\u200b" not in output  # never sent to the terminal
    rows = render(output).rows()
    assert any(row.strip() == "cat notes<U+202E>txt.sh<U+200B>" for row in rows), rows
    verdict = "  [destructive] holds U+202E RIGHT-TO-LEFT OVERRIDE, U+200B ZERO WIDTH SPACE"
    assert any(row.startswith(verdict) for row in rows), rows
