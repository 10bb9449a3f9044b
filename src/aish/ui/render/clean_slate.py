"""aish's own lines start clean: what a program left the terminal in is undone first.

A command's output reaches the terminal verbatim (full-screen programs, colours and progress
bars work as in bash). But a program ends whenever it likes, and what it leaves set applies to
whatever is printed next — aish's verdict, its question, its prompt. A hostile `notes.txt`
ending in the hidden-text attribute (`ESC[8m`) made the next red `[destructive]` invisible.
So after a command's output, before aish writes anything of its own, it sends `clean_slate`:

- the alternate screen is left, if the output entered it and did not leave it (aish's lines
  would vanish with it when the next program leaves it);
- the scroll region is the whole screen again, the cursor staying where it is (a region of a
  few rows would keep the rows below frozen, with whatever the program painted there);
- attributes are reset (`SGR 0`: hidden, reverse, colours, blink);
- the character set is ASCII again (`ESC(0` draws letters as line-drawing glyphs);
- insert mode off, line wrapping on (with wrapping off, the end of a long command line would be
  written over itself in the last column), the cursor visible;
- an open line is ended, and whatever the program left below the cursor is erased, so what
  aish prints is not mixed with text painted there.

Nothing is reset while a program runs: a full-screen program owns the terminal until it ends.
Saving and restoring the cursor around the region reset (`ESC 7` … `ESC 8`) also restores the
attributes saved with it, so the attributes are reset after it. `OutputModes` follows the
output for the one mode that cannot be reset blindly: leaving the alternate screen when it is
not on would move the cursor to where an earlier program saved it.
"""

from __future__ import annotations

import re

__all__ = ["OutputModes", "clean_slate"]

# `CSI ? Pm h` / `CSI ? Pm l`: DEC private modes set and reset.
_PRIVATE_MODE = re.compile(rb"\x1b\[\?([0-9;]*)([hl])")
_ALTERNATE_SCREEN = frozenset((b"47", b"1047", b"1049"))
# A sequence cut at the end of one chunk is completed by the next: this much is kept.
_CARRY = 16

LEAVE_ALTERNATE_SCREEN = b"\x1b[?1049l"
FULL_SCROLL_REGION = b"\x1b7\x1b[r\x1b8"  # DECSTBM homes the cursor: saved and restored
RESET_ATTRIBUTES = b"\x1b[0m"
ASCII_CHARSET = b"\x0f\x1b(B"  # shift in (G0), and G0 is ASCII
MODES = b"\x1b[4l\x1b[?7h\x1b[?25h"  # replace mode, autowrap, cursor shown
ERASE_BELOW = b"\r\x1b[J"


class OutputModes:
    """Follows a program's output for whether it left the alternate screen on."""

    def __init__(self) -> None:
        self.alternate_screen = False
        self._carry = b""

    def feed(self, data: bytes) -> None:
        if b"\x1b" not in data and b"\x1b" not in self._carry:
            return
        window = self._carry + data
        for match in _PRIVATE_MODE.finditer(window):
            if _ALTERNATE_SCREEN.intersection(match.group(1).split(b";")):
                self.alternate_screen = match.group(2) == b"h"
        # Matches in the carried tail are applied again with the next chunk: in order, so the
        # last one still wins.
        self._carry = window[-_CARRY:]

    def reset(self) -> None:
        self.alternate_screen = False
        self._carry = b""


def clean_slate(*, line_open: bool, alternate_screen: bool) -> bytes:
    """What to send after a program's output, before aish's own lines (see the module doc)."""
    return b"".join(
        (
            LEAVE_ALTERNATE_SCREEN if alternate_screen else b"",
            FULL_SCROLL_REGION,
            RESET_ATTRIBUTES,
            ASCII_CHARSET,
            MODES,
            b"\n" if line_open else b"",
            ERASE_BELOW,
        )
    )
