"""The screen as a person reads it: bytes a terminal was sent, emulated by pyte, with what pyte
does not model itself added where it decides what can be seen.

pyte keeps every cell's character and colours but ignores the conceal attribute (`ESC[8m`):
text drawn under it is on pyte's screen but not on a real one. `PersonScreen` follows conceal
(set by SGR 8, cleared by SGR 28 and SGR 0, saved and restored with the cursor) and draws
concealed text as blanks; a cell whose foreground is its background shows nothing either. It
also records the bell and the window title, which a person would notice.
"""

from __future__ import annotations

from typing import Any

import pyte


class PersonScreen(pyte.HistoryScreen):
    def __init__(self, columns: int = 120, lines: int = 40) -> None:
        super().__init__(columns, lines, history=5000)
        self.concealed = False
        self.bells = 0
        self._saved_concealed: list[bool] = []

    # ---- what pyte leaves out ----------------------------------------------------------------

    def select_graphic_rendition(self, *attrs: int, **kwargs: Any) -> None:
        super().select_graphic_rendition(*attrs, **kwargs)
        codes = list(attrs) or [0]
        i = 0
        while i < len(codes):
            code = codes[i]
            if code in (38, 48):  # extended colour: its parameters are no attributes
                i += 5 if i + 1 < len(codes) and codes[i + 1] == 2 else 3
                continue
            if code == 0 or code == 28:
                self.concealed = False
            elif code == 8:
                self.concealed = True
            i += 1

    def draw(self, data: str) -> None:
        super().draw(" " * len(data) if self.concealed else data)

    def save_cursor(self) -> None:
        super().save_cursor()
        self._saved_concealed.append(self.concealed)

    def restore_cursor(self) -> None:
        super().restore_cursor()
        if self._saved_concealed:
            self.concealed = self._saved_concealed.pop()

    def bell(self, *args: Any) -> None:
        self.bells += 1

    # ---- reading -----------------------------------------------------------------------------

    def rows(self) -> list[str]:
        """Every row shown, scrolled-off ones first, as a person reads them."""
        history = [self._row(line) for line in self.history.top]
        return history + [self._row(self.buffer[y]) for y in range(self.lines)]

    def text(self) -> str:
        return "\n".join(self.rows())

    def _row(self, line: Any) -> str:
        cells = []
        for x in range(self.columns):
            char = line[x]
            same = char.fg == char.bg and char.fg != "default"
            cells.append(" " if same else char.data)
        return "".join(cells).rstrip()


def render(
    output: str | bytes, columns: int = 120, lines: int = 40, *, onlcr: bool = False
) -> PersonScreen:
    """`output` as a terminal of that size shows it. `onlcr`: the output was written to a tty
    that turns each newline into CR LF (what a process writes; a PTY's master reads it so)."""
    screen = PersonScreen(columns, lines)
    stream = pyte.Stream(screen)
    if isinstance(output, bytes):
        output = output.decode("utf-8", "replace")
    stream.feed(output.replace("\n", "\r\n") if onlcr else output)
    return screen
