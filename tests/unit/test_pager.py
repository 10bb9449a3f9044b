"""When a listing goes through the pager: only on a terminal, only when it does not fit."""

from __future__ import annotations

import contextlib
import fcntl
import io
import os
import pty
import struct
import termios
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

from aish.ui.pager import page, pager_command


@contextlib.contextmanager
def _terminal(rows: int, cols: int) -> Iterator[TextIO]:
    """A real terminal (a PTY) of this size, as aish's stdout would be."""
    leader, follower = pty.openpty()
    try:
        fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        with open(follower, "w", closefd=False) as terminal:
            yield terminal
    finally:
        os.close(leader)
        os.close(follower)


def test_the_pager_is_pager_else_less_and_none_when_empty_or_cat() -> None:
    assert pager_command({}) == "less"
    assert pager_command({"PAGER": "most -s"}) == "most -s"
    assert pager_command({"PAGER": ""}) is None
    assert pager_command({"PAGER": " cat "}) is None


def test_not_a_terminal_is_never_paged(tmp_path: Path) -> None:
    record = tmp_path / "paged"
    assert not page("x\n" * 1000, io.StringIO(), {"PAGER": f"cat > {record}"})
    assert not record.exists()


def test_on_a_terminal_only_text_taller_than_the_screen_is_paged(tmp_path: Path) -> None:
    record = tmp_path / "paged"
    env = {"PAGER": f"cat > {record}", "PATH": os.environ["PATH"]}
    with _terminal(10, 20) as terminal:
        assert not page("short\n" * 5, terminal, env)
        assert not record.exists()
        # 6 lines of 50 characters wrap to 18 rows on a 20-column, 10-row screen.
        assert page(("y" * 50 + "\n") * 6, terminal, env)
    assert record.read_text() == ("y" * 50 + "\n") * 6


def test_a_pager_that_cannot_start_leaves_the_text_to_be_printed(tmp_path: Path) -> None:
    env = {"PAGER": str(tmp_path / "no-such-pager"), "PATH": os.environ["PATH"]}
    with _terminal(10, 20) as terminal:
        assert not page("z\n" * 50, terminal, env)
