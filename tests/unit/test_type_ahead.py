"""Type-ahead keys pass between raw bytes (the shell's PTY) and prompt_toolkit's key presses
(its type-ahead queue): nothing typed may change on the way, in either direction."""

from __future__ import annotations

import pytest

from aish.ui.type_ahead import _as_bytes, _as_keys


@pytest.mark.parametrize(
    "typed",
    [
        b"echo E2\rpwd\r",  # lines with their Enter
        b"cd sub\npwd\n",  # Enter as the PTY hands it back (CR turned NL)
        b"ls \xc3\xa9\x1b[A\x1b[3~\x7f",  # UTF-8, an arrow, Delete, Backspace
        b"abc\x1b",  # a lone Escape at the end
        b"\x1bb\x1b\x1b",  # Alt-b, then two Escapes
        b"\xff\xfe",  # bytes that are not UTF-8
    ],
)
def test_keys_survive_the_round_trip(typed: bytes) -> None:
    assert _as_bytes(_as_keys(typed)) == typed


def test_a_cursor_position_report_is_nobodys_key() -> None:
    # The terminal's answer to the line editor's question is not the user's typing.
    assert _as_bytes(_as_keys(b"x\x1b[12;1Ry")) == b"xy"
