"""A reply that tries to write the clipboard (OSC 52) or retitle the window (OSC 2) never drives
the terminal aish runs in: a real aish in a real PTY, against aish-testllm, in colour and not."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from ..conftest import ServeFn
from .conftest import AishTerminal, spawn_aish

REPLY = (
    "Here.\x1b]52;c;cm0gLXJmIH4=\x07 Title\x1b]2;pwned\x1b\\ 8-bit\x9d52;c;eA==\x9c"
    " reasoned \x1b[8mhidden\x1b[0m end\n"
)
# Anything that would make the terminal act on the model's sequences.
FORBIDDEN = ("\x1b]52", "\x9d52", "\x1b]2;pwned", "\x1b[8m")


@pytest.mark.parametrize("no_color", ["1", ""])
def test_osc_52_from_the_model_never_reaches_the_terminal(
    serve: ServeFn, aish_home: Path, terminals: list[AishTerminal], no_color: str
) -> None:
    server = serve(
        {"default": {"text": REPLY, "reasoning": "hm\x1b]52;c;eQ==\x07", "chunk_size": 4}}
    )
    config = (
        f'default_model = "local"\n[models.local]\nendpoint = "{server.url}/v1"\n'
        'model = "testllm"\n'
    )
    aish = spawn_aish(aish_home, config=config, extra_env={"NO_COLOR": no_color})
    terminals.append(aish)
    seen = io.StringIO()
    aish.child.logfile_read = seen
    aish.wait_prompt()

    aish.type_line("what is in the clipboard?")
    aish.expect("end", timeout=30)
    aish.wait_prompt()

    output = seen.getvalue()
    assert "Here." in output  # the reply was shown, its sequences as harmless carets
    assert "cm0gLXJmIH4=" in output and "^[" in output
    for sequence in FORBIDDEN:
        assert sequence not in output, repr(sequence)


CLIPBOARD_FILE = (
    "before\x1b]52;c;cm0gLXJmIH4=\x07 report\x1b[21t query\x1bP$qm\x1b\\ "
    "\x1b[32mgreen\x1b[0m after\n"
)
CONFIRM = r"\[y\]es / \[e\]dit / \[n\]o / \[d\]escribe"


def test_a_model_commands_output_cannot_reach_past_the_screen(
    serve: ServeFn, aish_home: Path, terminals: list[AishTerminal]
) -> None:
    # What a file holds is the model's to choose: shown by the model's `cat`, it may colour the
    # screen but not write the clipboard or make the terminal type an answer into the shell.
    # The user's own `cat` shows it as bash would (vim and tmux use the clipboard so).
    (aish_home / "work" / "clip.txt").write_text(CLIPBOARD_FILE)
    server = serve({"default": {"text": "Have a look.\nCMD: cat clip.txt\n", "chunk_size": 7}})
    config = (
        f'default_model = "local"\n[models.local]\nendpoint = "{server.url}/v1"\n'
        'model = "testllm"\n'
    )
    aish = spawn_aish(aish_home, config=config)
    terminals.append(aish)
    seen = io.StringIO()
    aish.child.logfile_read = seen
    aish.wait_prompt()

    aish.type_line("what is in clip.txt?")
    aish.expect(CONFIRM, timeout=30)
    aish.child.send("y")
    aish.expect("after", timeout=30)
    aish.wait_prompt()
    by_model = seen.getvalue()
    assert "before report query \x1b[32mgreen\x1b[0m after" in by_model
    for sequence in ("\x1b]52", "\x1b[21t", "\x1bP$q"):
        assert sequence not in by_model, repr(sequence)

    aish.run("cat clip.txt")
    by_user = seen.getvalue()[len(by_model) :]
    assert "\x1b]52;c;cm0gLXJmIH4=\x07" in by_user and "\x1b[21t" in by_user
