"""Where a command's output left the cursor: the start of a line, or not."""

from __future__ import annotations

import pytest

from aish.ui.render.line_start import TAIL_BYTES, at_line_start

# What vim and less print as they quit (captured from vim 9.0 and less 590, xterm-256color).
VIM_QUIT = (
    b"\x1b[?25l\x1b[40;1H:q\r\x1b[?2004l\x1b[>4;m\x1b[23;2t\x1b[23;1t\x1b[40;1H\x1b[K\x1b[40;1H"
    b"\x1b[?1004l\x1b[?2004l\x1b[?1l\x1b>\x1b[?1049l\x1b[23;0;0t\x1b[?25h\x1b[>4;m"
)
LESS_QUIT = b"\r\x1b[K\x1b[?1l\x1b>\x1b[?1049l\x1b[23;0;0t"


@pytest.mark.parametrize(
    ("tail", "expected"),
    [
        (b"hello\n", True),
        (b"hello", False),  # printf hello
        (b"50%\r", False),  # a progress line: the prompt must not be drawn over it
        (b"done\n\x1b[0m", True),  # colours reset after the newline move nothing
        (b"done\x1b[0m", False),
        (b"text " + VIM_QUIT, True),  # back from the alternate screen
        (b"text " + LESS_QUIT, True),
        (b"\x1b[H\x1b[2J\x1b[3J", True),  # clear: the cursor is home
        (b"x\x1b[5;10H", False),  # moved to column 10
        (b"x\x1b]0;title\x07", False),  # a window title moves nothing
        (b"x\n\x1b]0;title\x1b\\", True),  # nor one ended by ST
        (b"x\n\x07", True),
    ],
)
def test_where_the_cursor_is_left(tail: bytes, expected: bool) -> None:
    assert at_line_start(tail, before=not expected) is expected


@pytest.mark.parametrize("before", [True, False])
def test_output_that_moves_nothing_keeps_the_answer_before_it(before: bool) -> None:
    assert at_line_start(b"\x1b[0m\x1b[?25h", before) is before
    assert at_line_start(b"", before) is before


def test_a_full_screen_programs_exit_fits_in_the_tail_kept() -> None:
    assert len(VIM_QUIT) < TAIL_BYTES
