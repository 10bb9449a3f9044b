"""Model text made safe to show on a terminal.

A reply must not drive the terminal: escape sequences could hide text, retitle the window or
write the clipboard, and a carriage return could make one line look like another. Every view
that shows model text passes it through `visible`: control characters other than newline and
tab are shown as `^X` (ESC as `^[`).

Text bound for a pipe or a file ends on a terminal all the same (`aish ask … | cat`), but its
reader wants the text rather than carets: there the control sequences are taken out whole
(`control_sequences`), unless the user asked for the bytes as sent (`--raw`). `ShownText`
makes that choice for one output stream.
"""

from __future__ import annotations

import re

from aish.ui.control_sequences import ControlStripper, strip_controls

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def visible(text: str) -> str:
    return _CONTROL.sub(lambda m: _caret(m.group()), text)


def _caret(char: str) -> str:
    code = ord(char)
    return f"^{chr(code + 64)}" if code < 32 else ("^?" if code == 127 else f"\\x{code:02x}")


class ShownText:
    """Model text as one output stream gets it: made `visible` on a terminal, stripped of
    control sequences in a pipe or file, exactly as sent there with `raw`. A terminal never
    gets the bytes as sent: `--raw` in a script that later runs on one must not open it up."""

    def __init__(self, *, terminal: bool, raw: bool = False) -> None:
        self._terminal = terminal
        self._raw = raw and not terminal
        self._stripper = ControlStripper()

    def piece(self, text: str) -> str:
        """A piece of a stream split anywhere (a sequence may continue in the next piece)."""
        if self._terminal:
            return visible(text)
        return text if self._raw else self._stripper.feed(text)

    def whole(self, text: str) -> str:
        """A complete text of its own (a command line, a status)."""
        if self._terminal:
            return visible(text)
        return text if self._raw else strip_controls(text)

    def end(self) -> None:
        """The stream ended: a sequence it cut off does not carry into the next one."""
        self._stripper.end()
