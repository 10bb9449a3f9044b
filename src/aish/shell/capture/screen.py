"""A pyte screen with scrollback for capture: rows are handed on as they scroll off the top.

pyte gives the VT semantics (cursor motion, erase, insert/delete, scroll regions, tab stops);
this subclass adds what capture needs and pyte 0.8 lacks or gets wrong for it:

* every row that scrolls off the top of the screen goes to a `RowSink`, with a flag saying
  whether the terminal soft-wrapped it into the next row (so the logical line can be
  rebuilt);
* the alternate screen (`?1049h`, `?1047h`, `?47h`): the normal screen so far is handed on,
  a note takes the place of what the full-screen program drew, and nothing drawn there is
  kept;
* `draw` is rewritten: pyte's stops at the first zero-width or unprintable character and
  drops the rest of the text, and it is the hot path (a run of ASCII is written with one
  `dict.update`);
* LF always implies CR (LNM): the PTY's ONLCR already turns `\\n` into `\\r\\n`, and callers
  or tests that feed bare `\\n` mean a new line, not a staircase;
* bounded state: the cursor save stack keeps one entry, combining marks per cell are capped;
* `push_lines` writes a batch of plain lines in one step (the fast path, see
  `stream`), with exactly the effect of drawing them one by one.
"""

from __future__ import annotations

import unicodedata
from collections import defaultdict
from collections.abc import Collection
from itertools import repeat
from operator import contains
from typing import Any, cast

from pyte import modes
from pyte.screens import Char, Margins, Screen, StaticDefaultDict, wcwidth

from aish.shell.capture.rows import (
    ASCII_CHARS,
    STUB,
    Row,
    RowSink,
    is_blank,
    push_rows,
    render_row,
    rows_below_empty,
    unsplit,
)

__all__ = ["ScrollbackScreen"]

_ALTERNATE_SCREEN_MODES = frozenset({47, 1047, 1049})
# DECCOLM would resize to 132 columns (xterm ignores it by default too); DECSCNM rewrites
# every cell as reverse video, which capture does not show.
_IGNORED_PRIVATE_MODES = frozenset({3, 5})
_LNM = modes.LNM
_MAX_CELL_CHARS = 8


class ScrollbackScreen(Screen):
    """pyte `Screen` whose scrolled-off rows go to a `RowSink` (see the module docstring)."""

    def __init__(self, columns: int, lines: int, sink: RowSink) -> None:
        self.sink = sink
        self.alternate = False
        self.entered_alternate = False
        super().__init__(columns, lines)
        self.rows: defaultdict[int, Row] = defaultdict(Row)
        self.buffer = cast("dict[int, StaticDefaultDict[int, Char]]", self.rows)
        self.mode.add(_LNM)
        self._default_tabstops = frozenset(range(8, columns, 8))

    # -- modes ------------------------------------------------------------------------------

    def reset(self) -> None:
        super().reset()
        self.mode.add(_LNM)
        self.alternate = False

    def set_mode(self, *modes_: int, **kwargs: Any) -> None:
        if kwargs.get("private"):
            if _ALTERNATE_SCREEN_MODES.intersection(modes_):
                self._enter_alternate()
            modes_ = tuple(m for m in modes_ if m not in _IGNORED_PRIVATE_MODES)
        super().set_mode(*modes_, **kwargs)

    def reset_mode(self, *modes_: int, **kwargs: Any) -> None:
        if kwargs.get("private"):
            if _ALTERNATE_SCREEN_MODES.intersection(modes_):
                self._leave_alternate()
            modes_ = tuple(m for m in modes_ if m not in _IGNORED_PRIVATE_MODES)
        else:
            modes_ = tuple(m for m in modes_ if m != _LNM)
        super().reset_mode(*modes_, **kwargs)

    def _enter_alternate(self) -> None:
        if self.alternate:
            return
        for text, wrapped in self.visible_rows():
            self.sink.add_row(text, wrapped)
        self.sink.add_note()
        self.alternate = True
        self.entered_alternate = True
        self._clear()

    def _leave_alternate(self) -> None:
        if not self.alternate:
            return
        self.alternate = False
        # What the normal screen showed was handed on at entry; output after the program
        # starts on a clean screen.
        self._clear()

    def _clear(self) -> None:
        self.rows.clear()
        self.cursor.x = 0
        self.cursor.y = 0
        self.margins = None

    def save_cursor(self) -> None:
        super().save_cursor()
        del self.savepoints[:-1]  # a VT has one save slot; pyte's stack grows without end

    # -- drawing ----------------------------------------------------------------------------

    def draw(self, data: str) -> None:
        if self.alternate or not data:
            return
        if data.isascii() and modes.IRM not in self.mode:
            self._draw_ascii(data)
        else:
            self._draw_wide(data)

    def _draw_ascii(self, data: str) -> None:
        # The caller guarantees printable text: one cell per character.
        cursor = self.cursor
        columns = self.columns
        autowrap = modes.DECAWM in self.mode
        pos = 0
        end = len(data)
        while pos < end:
            if cursor.x >= columns:
                if not autowrap:
                    # Without autowrap each further character overwrites the last column.
                    row = self.rows[cursor.y]
                    unsplit(row, columns - 1, 1)
                    row[columns - 1] = ASCII_CHARS[data[-1]]
                    return
                self._wrap()
            x = cursor.x
            if x == 0 and end - pos > columns and self.ready_for_lines():
                # Text spanning rows (a giant line): the rows are pushed in one step.
                rest = data[pos:]
                texts = [rest[i : i + columns] for i in range(0, len(rest), columns)]
                self._push_rows(texts, range(len(texts) - 1), newline_after_last=False)
                return
            take = min(end - pos, columns - x)
            row = self.rows[cursor.y]
            unsplit(row, x, take)
            row.update(
                zip(
                    range(x, x + take),
                    map(ASCII_CHARS.__getitem__, data[pos : pos + take]),
                    strict=True,
                )
            )
            cursor.x = x + take
            pos += take

    def _draw_wide(self, data: str) -> None:
        cursor = self.cursor
        columns = self.columns
        autowrap = modes.DECAWM in self.mode
        insert = modes.IRM in self.mode
        for char in data:
            width = wcwidth(char)
            if width <= 0:
                if width == 0:
                    self._combine(char)
                continue  # unprintable: ignored, the rest of the text is still drawn
            if width > columns:
                continue
            if cursor.x + width > columns:
                if autowrap:
                    self._wrap()  # a wide character that does not fit goes to the next row
                else:
                    cursor.x = columns - width
            if insert:
                self.insert_characters(width)
            row = self.rows[cursor.y]
            x = cursor.x
            unsplit(row, x, width)
            row[x] = ASCII_CHARS[char] if char.isascii() else Char(char)
            if width == 2:
                row[x + 1] = STUB
            cursor.x = x + width

    def _combine(self, char: str) -> None:
        """A zero-width character joins the character before the cursor."""
        x = self.cursor.x - 1
        if x < 0:
            return
        row = self.rows[self.cursor.y]
        cell = row.get(x)
        if cell is not None and cell.data == "" and x > 0:
            x -= 1
            cell = row.get(x)
        base = cell.data if cell is not None else " "
        if len(base) >= _MAX_CELL_CHARS:
            return
        data = base + char
        if unicodedata.combining(char):
            data = unicodedata.normalize("NFC", data)
        row[x] = Char(data)

    def _wrap(self) -> None:
        self.rows[self.cursor.y].wrapped = True
        self.carriage_return()
        self.index()

    # -- scrolling --------------------------------------------------------------------------

    def index(self) -> None:
        top, bottom = self.margins or Margins(0, self.lines - 1)
        if self.cursor.y != bottom:
            self.cursor_down()
            return
        rows = self.rows
        gone = rows.pop(top, None)
        if top == 0 and not self.alternate:
            # Lines leaving a scroll region that starts lower are lost on a real terminal
            # too; only the top of the screen feeds the scrollback.
            if gone is None:
                self.sink.add_row("", False)
            else:
                self.sink.add_row(render_row(gone), gone.wrapped)
        if top == 0 and bottom == self.lines - 1:
            moved = {y - 1: row for y, row in rows.items()}
            rows.clear()
            rows.update(moved)
        else:
            for y in range(top + 1, bottom + 1):
                row = rows.pop(y, None)
                if row is not None:
                    rows[y - 1] = row

    def scroll_up(self, count: int | None = None) -> None:
        """SU: the region scrolls up, the cursor stays."""
        top, bottom = self.margins or Margins(0, self.lines - 1)
        y = self.cursor.y
        self.cursor.y = bottom
        for _ in range(min(count or 1, bottom - top + 1)):
            self.index()
        self.cursor.y = y

    def scroll_down(self, count: int | None = None) -> None:
        """SD: the region scrolls down, the cursor stays."""
        top, bottom = self.margins or Margins(0, self.lines - 1)
        y = self.cursor.y
        self.cursor.y = top
        for _ in range(min(count or 1, bottom - top + 1)):
            self.reverse_index()
        self.cursor.y = y

    def cursor_to_line(self, line: int | None = None) -> None:
        # pyte asserts a scroll region exists when origin mode is on; without one the
        # origin is the top of the screen.
        origin = self.margins.top if self.margins and modes.DECOM in self.mode else 0
        self.cursor.y = origin + (line or 1) - 1
        self.ensure_vbounds()

    def forward_tab(self, count: int | None = None) -> None:
        for _ in range(min(count or 1, self.columns)):
            self.tab()

    def delete_lines(self, count: int | None = None) -> None:
        # pyte's version leaves a row unchanged when the row meant to move up into it was
        # never created (it should become blank).
        count = count or 1
        top, bottom = self.margins or Margins(0, self.lines - 1)
        if not top <= self.cursor.y <= bottom:
            return
        rows = self.rows
        for y in range(self.cursor.y, bottom + 1):
            below = rows.pop(y + count, None) if y + count <= bottom else None
            if below is None:
                rows.pop(y, None)
            else:
                rows[y] = below
        self.carriage_return()

    def insert_characters(self, count: int | None = None) -> None:
        super().insert_characters(count)
        # pyte shifts the last cell to index `columns`, off the screen; it would be rendered.
        self.rows[self.cursor.y].pop(self.columns, None)

    # -- erasing --------------------------------------------------------------------------
    # A missing cell renders exactly like a blank one and capture shows no attributes, so
    # erasing drops cells (pyte writes a blank with the cursor's colours into every one).
    # Erasing to the end of a row also forgets that it was soft-wrapped.

    def erase_in_line(self, how: int = 0, private: bool = False) -> None:
        row = self.rows[self.cursor.y]
        x = self.cursor.x
        if how == 2:
            row.clear()
        elif how in (0, 1):
            for key in [k for k in row if (k >= x if how == 0 else k <= x)]:
                del row[key]
        if how in (0, 2):
            row.wrapped = False

    def erase_in_display(self, how: int = 0, *args: Any, **kwargs: Any) -> None:
        y = self.cursor.y
        if how in (2, 3):
            self.rows.clear()
        elif how in (0, 1):
            for key in [k for k in self.rows if (k > y if how == 0 else k < y)]:
                del self.rows[key]
            self.erase_in_line(how)

    # -- reading ----------------------------------------------------------------------------

    def visible_rows(self) -> list[tuple[str, bool]]:
        """The normal screen's rows down to the last non-blank one (none on the alternate)."""
        if self.alternate:
            return []
        rendered: list[tuple[str, bool]] = []
        last = -1
        for y in range(self.lines):
            row = self.rows.get(y)
            if row is None:
                rendered.append(("", False))
                continue
            text = render_row(row)
            rendered.append((text, row.wrapped))
            if not is_blank(text):
                last = y
        return rendered[: last + 1]

    # -- the fast path ----------------------------------------------------------------------

    def ready_for_lines(self) -> bool:
        """True when `push_lines` has exactly the effect of drawing the lines one by one.

        That holds at the start of a fresh row with nothing below it (no cells at all, not
        even blank ones: see `rows_below_empty`), with the default modes and no scroll
        region.
        """
        cursor = self.cursor
        if cursor.x != 0 or self.alternate:
            return False
        mode = self.mode
        if modes.IRM in mode or modes.DECAWM not in mode:
            return False
        margins = self.margins
        if margins is not None and (margins.top != 0 or margins.bottom != self.lines - 1):
            return False
        return rows_below_empty(self.rows, cursor.y, self.lines)

    def push_lines(self, lines: list[str]) -> int:
        """Write lines of printable text, each followed by a newline; returns how many.

        It stops at the first line it cannot take: one with a zero-width character, wide
        characters past the last column, or a tab whose expansion reaches the last column
        (where a tab stops instead of wrapping). Those go through `draw`.
        """
        columns = self.columns
        if not lines:
            return 0
        if (
            all(map(str.isascii, lines))
            and max(map(len, lines)) <= columns
            and not any(map(contains, lines, repeat("\t")))
        ):
            # The usual case, checked at C speed: every line is exactly one row.
            self._push_rows(lines, (), newline_after_last=True)
            return len(lines)
        texts: list[str] = []
        wrapped: set[int] = set()
        taken = 0
        for line in lines:
            if "\t" in line:
                if not line.isascii() or self.tabstops != self._default_tabstops:
                    break
                line = line.expandtabs(8)
                if len(line) >= columns:
                    break
            if not line.isascii():
                widths = list(map(wcwidth, line))  # one pass: each character is a new str
                if min(widths) < 1:
                    break
                width = sum(widths)
                if width != len(line):
                    if width > columns:
                        break
                    texts.append(line)
                    taken += 1
                    continue
            size = len(line)
            for start in range(0, max(size, 1), columns):
                if start + columns < size:
                    wrapped.add(len(texts))
                texts.append(line[start : start + columns])
            taken += 1
        if taken:
            self._push_rows(texts, wrapped, newline_after_last=True)
        return taken

    def _push_rows(
        self, texts: list[str], wrapped: Collection[int], *, newline_after_last: bool
    ) -> None:
        """`push_rows` at the cursor (precondition: `ready_for_lines()`)."""
        y, x = push_rows(
            self.rows,
            self.cursor.y,
            self.lines,
            self.sink,
            texts,
            wrapped,
            newline_after_last=newline_after_last,
        )
        self.cursor.y = y
        self.cursor.x = x
