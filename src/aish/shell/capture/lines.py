"""The bounded record of captured lines: what a command printed, kept as head and tail.

Rows arrive from the emulated screen as they scroll off the top (and, at the end, the rows
still on screen). Rows that the terminal soft-wrapped are joined back into the logical line
the program printed, because a model reads `{"a": 1, …}` better unbroken than cut every 80
columns. Memory stays bounded however much arrives:

* a logical line longer than `line_cap` bytes keeps its first and last `line_cap / 2` bytes
  around an inline `[… N bytes omitted …]` marker, while it is still being assembled; its
  trailing blanks are stripped first (held as a count until text follows them), so blank
  cells past the end of the text never push the text out of the kept tail;
* the first lines (up to half the line and byte budget) are kept as the head, the newest
  ones in a ring that evicts from its front, and the evicted lines are counted exactly;
* runs of blank lines are held as a count and only written when a non-blank line follows,
  so trailing blank lines never count and a flood of them costs nothing.
"""

from __future__ import annotations

import copy
from collections import deque

__all__ = ["NOTE_PLACEHOLDER", "LineCollector", "omitted_bytes_marker", "omitted_lines_marker"]

# Stands for the full-screen note until the command text is known. A rendered line never
# contains NUL: the terminal stream drops it.
NOTE_PLACEHOLDER = "\x00full-screen\x00"

_MIN_LINE_CAP = 64


def omitted_lines_marker(count: int) -> str:
    return f"[… {count} lines omitted …]"


def omitted_bytes_marker(count: int) -> str:
    return f"[… {count} bytes omitted …]"


def utf8_len(text: str) -> int:
    if text.isascii():
        return len(text)
    return len(text.encode("utf-8", "surrogatepass"))


def _prefix_within(text: str, budget: int) -> str:
    """The longest prefix of `text` whose UTF-8 encoding fits in `budget` bytes."""
    if text.isascii():
        return text[:budget]
    encoded = text.encode("utf-8", "surrogatepass")
    cut = min(budget, len(encoded))
    while cut > 0 and cut < len(encoded) and encoded[cut] & 0xC0 == 0x80:
        cut -= 1
    return encoded[:cut].decode("utf-8", "surrogatepass")


def _suffix_within(text: str, budget: int) -> tuple[str, int]:
    """The longest suffix of `text` fitting in `budget` bytes, and the bytes cut off."""
    encoded = text.encode("utf-8", "surrogatepass")
    cut = max(0, len(encoded) - budget)
    while cut < len(encoded) and encoded[cut] & 0xC0 == 0x80:
        cut += 1
    return encoded[cut:].decode("utf-8", "surrogatepass"), cut


class LineCollector:
    """Receives screen rows; keeps a bounded head and tail of the logical lines."""

    def __init__(self, max_lines: int, max_bytes: int) -> None:
        self._max_lines = max_lines
        self._max_bytes = max_bytes
        self._line_half = max(_MIN_LINE_CAP, max_bytes // 4) // 2
        self._head: list[str] = []
        self._head_bytes = 0
        self._head_open = True
        self._tail: deque[tuple[str, int]] = deque()
        self._tail_bytes = 0
        self._tail_max_lines = 0
        self._tail_max_bytes = 0
        self._total = 0
        self._evicted = 0
        self._blank_run = 0
        self._last_was_note = False
        # The logical line being assembled from soft-wrapped rows.
        self._in_line = False
        self._part_head = ""
        self._part_head_bytes = 0
        self._part_head_full = False
        self._part_tail: list[str] = []
        self._part_tail_bytes = 0
        self._part_clipped = 0
        # Spaces at the end of the rows so far: part of the line only if text follows.
        self._part_spaces = 0

    # -- input ------------------------------------------------------------------------------

    def add_row(self, text: str, wrapped: bool) -> None:
        """One screen row; `wrapped` means the terminal continued it on the next row."""
        if not wrapped and not self._in_line:
            self._add_line(text.rstrip(" "))
            return
        self._in_line = True
        body = text.rstrip(" ")
        if body:
            self._flush_spaces()
            self._append_part(body)
        self._part_spaces += len(text) - len(body)
        if not wrapped:
            self._finish_part()

    def add_lines(self, texts: list[str]) -> None:
        """Rows that each hold a whole line: the same as `add_row(text, False)` for each."""
        if self._in_line:
            for text in texts:
                self.add_row(text, False)
        else:
            self._add_lines([text.rstrip(" ") for text in texts])

    def end_line(self) -> None:
        """Ends a logical line left open by a wrapped row (the screen is being cleared)."""
        if self._in_line:
            self._finish_part()

    def add_note(self) -> None:
        """Marks where a full-screen program ran."""
        self.end_line()
        self._add_line(NOTE_PLACEHOLDER)

    def clone(self) -> LineCollector:
        twin = copy.copy(self)
        twin._head = list(self._head)
        twin._tail = deque(self._tail)
        twin._part_tail = list(self._part_tail)
        return twin

    # -- output -----------------------------------------------------------------------------

    def finish(self, note: str) -> tuple[list[str], int, int]:
        """The lines to show, the number of lines seen and the number left out.

        Call it on a clone after the last row: a line still being assembled is ended and
        blank lines still held back are trailing, so they are dropped.
        """
        self.end_line()
        head = list(self._head)
        tail = [line for line, _ in self._tail]
        omitted = self._evicted
        if omitted:
            # The marker takes a line of the budget: the oldest tail line makes room.
            drop = max(0, len(head) + len(tail) + 1 - self._max_lines)
            drop = min(drop, len(tail))
            tail = tail[drop:]
            omitted += drop
        lines = head + ([omitted_lines_marker(omitted)] if omitted else []) + tail
        lines = [note if line == NOTE_PLACEHOLDER else line for line in lines]
        return lines, self._total, omitted

    # -- logical lines ----------------------------------------------------------------------

    def _flush_spaces(self) -> None:
        """Appends the held spaces: text follows them. Costs at most a line cap."""
        count = self._part_spaces
        if not count:
            return
        self._part_spaces = 0
        if not self._part_head_full:
            taken = min(count, self._line_half - self._part_head_bytes)
            self._append_part(" " * taken)
            count -= taken
        if count > self._line_half:
            # Only the last `line_half` of them can stay in the tail; the tail so far and
            # the rest of them would be trimmed away.
            self._part_clipped += self._part_tail_bytes + count - self._line_half
            self._part_tail = []
            self._part_tail_bytes = 0
            count = self._line_half
        if count:
            self._append_part(" " * count)

    def _append_part(self, piece: str) -> None:
        if not self._part_head_full:
            room = self._line_half - self._part_head_bytes
            size = utf8_len(piece)
            if size <= room:
                self._part_head += piece
                self._part_head_bytes += size
                return
            kept = _prefix_within(piece, room)
            self._part_head += kept
            self._part_head_bytes += utf8_len(kept)
            self._part_head_full = True
            piece = piece[len(kept) :]
        self._part_tail.append(piece)
        self._part_tail_bytes += utf8_len(piece)
        # Trim only when twice over budget, so trimming stays amortised O(1) per byte.
        if self._part_tail_bytes > 2 * self._line_half:
            self._trim_part_tail()

    def _trim_part_tail(self) -> None:
        kept, cut = _suffix_within("".join(self._part_tail), self._line_half)
        self._part_tail = [kept]
        self._part_tail_bytes -= cut
        self._part_clipped += cut

    def _finish_part(self) -> None:
        if self._part_clipped == 0 and self._part_tail_bytes <= self._line_half:
            line = self._part_head + "".join(self._part_tail)
        else:
            if self._part_tail_bytes > self._line_half:
                self._trim_part_tail()
            middle = omitted_bytes_marker(self._part_clipped)
            line = self._part_head + middle + "".join(self._part_tail)
        self._in_line = False
        self._part_head = ""
        self._part_head_bytes = 0
        self._part_head_full = False
        self._part_tail = []
        self._part_tail_bytes = 0
        self._part_clipped = 0
        self._part_spaces = 0  # trailing: not part of the line
        self._add_line(line.rstrip(" "))

    def _add_line(self, line: str) -> None:
        if not line:
            self._blank_run += 1
            return
        is_note = line == NOTE_PLACEHOLDER
        if is_note and self._last_was_note:
            # Two full-screen programs in a row (`vim a; vim b`) are one note.
            self._blank_run = 0
            return
        if self._blank_run:
            self._store_blanks(self._blank_run)
            self._blank_run = 0
        self._store(line, utf8_len(line) + 1)
        self._last_was_note = is_note

    def _add_lines(self, lines: list[str]) -> None:
        """`_add_line` for each line, in one step once the head is closed.

        Appending to the ring one line at a time leaves the longest suffix of (ring + lines)
        that fits its budgets, so it is computed directly from the end: a flood of lines
        costs as much as the part of it that is kept.
        """
        start = 0
        while start < len(lines) and self._head_open:
            self._add_line(lines[start])
            start += 1
        last = len(lines) - 1
        while last >= start and not lines[last]:
            last -= 1
        if last < start:
            self._blank_run += len(lines) - start
            return
        committed = self._blank_run + last + 1 - start
        old_tail = len(self._tail)
        kept: list[tuple[str, int]] = []
        kept_bytes = 0
        room_lines = self._tail_max_lines
        room_bytes = self._tail_max_bytes
        index = last
        while index >= start:
            size = utf8_len(lines[index]) + 1
            if len(kept) >= room_lines or kept_bytes + size > room_bytes:
                break
            kept.append((lines[index], size))
            kept_bytes += size
            index -= 1
        else:
            blanks = min(self._blank_run, room_lines - len(kept), room_bytes - kept_bytes)
            kept.extend([("", 1)] * blanks)
            kept_bytes += blanks
            if blanks == self._blank_run:
                while (
                    self._tail
                    and len(kept) < room_lines
                    and kept_bytes + self._tail[-1][1] <= room_bytes
                ):
                    item = self._tail.pop()
                    kept.append(item)
                    kept_bytes += item[1]
        kept.reverse()
        self._tail = deque(kept)
        self._tail_bytes = kept_bytes
        self._total += committed
        self._evicted += old_tail + committed - len(kept)
        self._blank_run = len(lines) - 1 - last
        self._last_was_note = False

    # -- head and tail ----------------------------------------------------------------------

    def _store(self, line: str, size: int) -> None:
        self._total += 1
        if self._head_open:
            if (
                len(self._head) < self._max_lines // 2
                and self._head_bytes + size <= self._max_bytes // 2
            ):
                self._head.append(line)
                self._head_bytes += size
                return
            # The head stays contiguous: once a line misses it, it is closed for good.
            self._head_open = False
            self._tail_max_lines = self._max_lines - len(self._head)
            self._tail_max_bytes = self._max_bytes - self._head_bytes
        self._tail.append((line, size))
        self._tail_bytes += size
        while self._tail and (
            len(self._tail) > self._tail_max_lines or self._tail_bytes > self._tail_max_bytes
        ):
            _, gone = self._tail.popleft()
            self._tail_bytes -= gone
            self._evicted += 1

    def _store_blanks(self, count: int) -> None:
        while count and self._head_open:
            self._store("", 1)
            count -= 1
        if count > self._tail_max_lines:
            # Only the last `tail_max_lines` blanks could survive in the ring; everything
            # before them, old tail included, would be evicted one by one.
            skipped = count - self._tail_max_lines
            self._evicted += len(self._tail) + skipped
            self._total += skipped
            self._tail.clear()
            self._tail_bytes = 0
            count = self._tail_max_lines
        for _ in range(count):
            self._store("", 1)
