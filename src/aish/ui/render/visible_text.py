"""Text aish did not write, made safe to show on a terminal: the one escaping rule.

Model replies, command lines, file contents, config keys, values and warnings, memory items,
tool names and results: none of them may drive the terminal (an escape sequence could hide
text, move the cursor over aish's own lines, retitle the window or write the clipboard) or
look other than it is (a bidi override reverses what follows it, a zero-width space hides
between letters). Every view that shows such text passes it through `visible`:

- control characters other than newline and tab as carets: ESC as `^[`, CR as `^M`, DEL as
  `^?`; C1 controls as `\\x9b`;
- invisible characters by code point: `<U+202E>`, `<U+200B>`;
- bytes that were not UTF-8 (kept as lone surrogates) as `\\xff`.

What counts as either kind is defined once, in `aish.safety.unseen_chars` (the classifier
needs the same set). `visible` is idempotent: what it returns has nothing left to escape, so a
view may apply it to text an inner view already escaped.

Text bound for a pipe or a file ends on a terminal all the same (`aish ask … | cat`), but its
reader wants the text rather than carets: there the control sequences are taken out whole
(`control_sequences`), unless the user asked for the bytes as sent (`--raw`). `ShownText`
makes that choice for one output stream.
"""

from __future__ import annotations

from aish.safety.unseen_chars import UNSEEN, is_control
from aish.ui.render.control_sequences import ControlStripper, strip_controls

__all__ = ["ShownText", "visible", "visible_line"]


def visible(text: str) -> str:
    """`text` with every unseen character shown as what it is (see the module docstring)."""
    return UNSEEN.sub(lambda m: _shown(m.group()), text)


def visible_line(text: str) -> str:
    """`visible`, for a listing that shows one item per line: a line break or tab inside the
    item is shown too (`^J`, `^I`), so the item cannot fake a line of the listing."""
    return visible(text).replace("\n", "^J").replace("\t", "^I")


def _shown(char: str) -> str:
    code = ord(char)
    if is_control(char):
        return f"^{chr(code + 64)}" if code < 32 else ("^?" if code == 127 else f"\\x{code:02x}")
    if 0xDC80 <= code <= 0xDCFF:  # a byte `surrogateescape` kept
        return f"\\x{code - 0xDC00:02x}"
    return f"<U+{code:04X}>"


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
