"""The rows of the capture screen: cells, their text, and writing whole rows in one step.

A row is pyte's sparse `{column: Char}` mapping plus a flag saying that the terminal
soft-wrapped it into the next row. A missing cell is a blank, so rendering fills gaps with
spaces; the right half of a wide character is pyte's empty "stub" cell and renders as
nothing.

`push_rows` is the fast path's primitive: rows of text written from the cursor down,
scrolling the screen as a newline at the bottom would, with rows leaving the top handed
straight to the `RowSink` without ever being made into cells.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Protocol

from pyte.screens import Char, StaticDefaultDict, wcwidth

__all__ = [
    "ASCII_CHARS",
    "BLANK",
    "STUB",
    "Row",
    "RowSink",
    "is_blank",
    "push_rows",
    "render_row",
    "rows_below_empty",
    "unsplit",
]

BLANK = Char(" ")
STUB = Char("")  # pyte's convention for the right half of a wide character


class _CharCache(dict[str, Char]):
    def __missing__(self, key: str) -> Char:
        char = Char(key)
        self[key] = char
        return char


ASCII_CHARS = _CharCache()  # only ever given printable ASCII: bounded


class Row(StaticDefaultDict[int, Char]):
    """A screen row that remembers whether the terminal wrapped it into the next row."""

    def __init__(self) -> None:
        super().__init__(BLANK)
        self.wrapped = False


class RowSink(Protocol):
    """Where rows go when they leave the screen."""

    def add_row(self, text: str, wrapped: bool) -> None: ...

    def add_lines(self, texts: list[str]) -> None: ...

    def end_line(self) -> None: ...

    def add_note(self) -> None: ...


def render_row(row: dict[int, Char] | None) -> str:
    """The text of a row: gaps are spaces, wide-character stubs vanish, nothing stripped."""
    if not row:
        return ""
    cells = [" "] * (max(row) + 1)
    for x, char in row.items():
        cells[x] = char.data
    return "".join(cells)


def is_blank(text: str) -> bool:
    return not text.strip(" ")


def make_row(text: str, wrapped: bool) -> Row:
    """A row showing `text` (printable, fitting the screen) from its first column."""
    row = Row()
    if text.isascii():
        row.update(zip(range(len(text)), map(ASCII_CHARS.__getitem__, text), strict=True))
    else:
        x = 0
        for char in text:
            row[x] = Char(char)
            if wcwidth(char) == 2:
                row[x + 1] = STUB
                x += 2
            else:
                x += 1
    row.wrapped = wrapped
    return row


def unsplit(row: dict[int, Char], x: int, width: int) -> None:
    """Before cells x… x+width-1 are overwritten: a wide character losing one half is
    blanked whole, as a terminal does."""
    left = row.get(x)
    if left is not None and left.data == "" and x > 0:
        row[x - 1] = BLANK
    right = row.get(x + width)
    if right is not None and right.data == "":
        row[x + width] = BLANK


def rows_below_empty(rows: dict[int, Row], top: int, lines: int) -> bool:
    """Whether rows `top`… hold no cell at all and none is marked as wrapped.

    Blank cells (a drawn space, what DCH/ICH/ECH leave) do not count as empty: drawing over
    such a row keeps those beyond the text, while `push_rows` replaces the row, so the
    two would differ in where the row ends (a row shortened at its last column by a later
    DCH, the trailing blanks of a logical line).
    """
    if lines - top <= len(rows):
        below = [row for y in range(top, lines) if (row := rows.get(y)) is not None]
    else:
        below = [row for y, row in rows.items() if y >= top]
    return not any(row or row.wrapped for row in below)


def push_rows(
    rows: dict[int, Row],
    cursor_y: int,
    lines: int,
    sink: RowSink,
    texts: list[str],
    wrapped: Collection[int],
    *,
    newline_after_last: bool,
) -> tuple[int, int]:
    """Writes `texts` as whole rows from row `cursor_y` down; returns the new cursor (y, x).

    Same effect as drawing each text at the start of a fresh row followed by a newline
    (none after the last one unless `newline_after_last`), on a screen of `lines` rows
    without a scroll region whose rows from `cursor_y` down hold no cells. `wrapped` holds
    the indices of the texts whose row continues on the next one; each text fits the width.
    """
    above = cursor_y
    old = [rows.get(y) for y in range(above)]
    # One index follows each row, except the last one when no newline follows it.
    indexes = len(texts) - (0 if newline_after_last else 1)
    scroll = max(0, above + indexes - (lines - 1))
    for row in old[:scroll]:
        if row is None:
            sink.add_row("", False)
        else:
            sink.add_row(render_row(row), row.wrapped)
    first_new = max(0, scroll - above)
    if first_new:
        gone = texts[:first_new]
        if not wrapped:
            sink.add_lines(gone)
        elif all(map(wrapped.__contains__, range(first_new))):
            sink.add_row("".join(gone), True)  # the middle of one long line
        else:
            for index, text in enumerate(gone):
                sink.add_row(text, index in wrapped)
    rows.clear()
    y = 0
    for row in old[scroll:]:
        if row is not None:
            rows[y] = row
        y += 1
    for index in range(first_new, len(texts)):
        rows[y] = make_row(texts[index], index in wrapped)
        y += 1
    if newline_after_last:
        return y, 0
    return y - 1, sum(map(wcwidth, texts[-1]))
