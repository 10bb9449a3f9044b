"""Text handed to the model alongside a question, bounded so a huge input cannot flood it.

Piped input (`journalctl … | aish ask "why?"`) keeps its head and tail: the start usually says
what the text is and the end what went wrong. The middle is replaced by a counted marker.
Input is bounded while it is read, so memory stays flat however much arrives.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import BinaryIO

_READ_BLOCK = 64 * 1024
_MARKER_ROOM = 40


@dataclass(frozen=True)
class Bounds:
    max_lines: int = 200
    max_bytes: int = 16 * 1024


def decode_lossless(raw: bytes) -> str:
    """Invalid UTF-8 is shown as replacement characters instead of failing the request."""
    return raw.decode("utf-8", "replace")


class HeadTail:
    """Feed bytes; keep the first and last lines within `bounds`, count what falls between."""

    def __init__(self, bounds: Bounds = Bounds()) -> None:
        self._bounds = bounds
        self._half_bytes = max(bounds.max_bytes // 2, 1)
        self._head: list[str] = []
        self._head_bytes = 0
        self._tail: deque[str] = deque()
        self._tail_bytes = 0
        self._omitted = 0
        self._pending = bytearray()
        self._pending_dropped = 0

    def feed(self, data: bytes) -> None:
        start = 0
        while (end := data.find(b"\n", start)) != -1:
            self._take_pending(data[start:end])
            self._line()
            start = end + 1
        self._take_pending(data[start:])

    def text(self) -> str:
        if self._pending or self._pending_dropped:
            self._line()
        marker = [f"[… {self._omitted} lines omitted …]"] if self._omitted else []
        return "\n".join([*self._head, *marker, *self._tail])

    def _take_pending(self, piece: bytes) -> None:
        # A line longer than half the budget keeps its start; the rest is only counted.
        # The room left for the omission marker keeps a clipped line within the budget.
        room = self._half_bytes - _MARKER_ROOM - len(self._pending)
        self._pending += piece[: max(room, 0)]
        self._pending_dropped += max(len(piece) - max(room, 0), 0)

    def _line(self) -> None:
        line = decode_lossless(bytes(self._pending))
        if self._pending_dropped:
            line += f"[… {self._pending_dropped} bytes omitted …]"
        self._pending.clear()
        self._pending_dropped = 0
        size = len(line.encode()) + 1
        head_lines = self._bounds.max_lines // 2
        if (
            not self._tail
            and len(self._head) < head_lines
            and (self._head_bytes + size <= self._half_bytes)
        ):
            self._head.append(line)
            self._head_bytes += size
            return
        self._tail.append(line)
        self._tail_bytes += size
        tail_lines = self._bounds.max_lines - len(self._head)
        while len(self._tail) > tail_lines or self._tail_bytes > self._half_bytes:
            self._tail_bytes -= len(self._tail.popleft().encode()) + 1
            self._omitted += 1


def bound_text(text: str, bounds: Bounds = Bounds()) -> str:
    """Head and tail of `text` within `bounds`, with an `[… N lines omitted …]` marker."""
    if len(text.splitlines()) <= bounds.max_lines and len(text.encode()) <= bounds.max_bytes:
        return text
    kept = HeadTail(bounds)
    kept.feed(text.encode())
    return kept.text()


def read_bounded(stream: BinaryIO, bounds: Bounds = Bounds()) -> str:
    """Read a stream to its end keeping only its bounded head and tail."""
    kept = HeadTail(bounds)
    whole = bytearray()
    small = True
    while block := stream.read(_READ_BLOCK):
        kept.feed(block)
        if small:
            whole += block
            small = len(whole) <= bounds.max_bytes
    # Input within bounds is returned exactly as it came, trailing newline included.
    return bound_text(decode_lossless(bytes(whole)), bounds) if small else kept.text()


def render_piped_input(text: str, bounds: Bounds = Bounds()) -> str:
    return f"[piped input]\n{bound_text(text, bounds)}\n[end of piped input]"
