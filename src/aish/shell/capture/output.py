"""What a command printed, as a model should read it: the screen's text, bounded.

`OutputCapture` takes a command's terminal output in chunks of bytes, split anywhere, and
renders it through a terminal emulator (a pyte screen with scrollback, see `screen` and
`stream`): colours vanish, `\\r` progress bars, backspaces, erased lines and cursor-up redraws
collapse to what the screen finally showed, tabs expand to their columns. Rows that scroll
off the top are collected as they go, soft-wrapped rows rejoined into the lines the program
printed, and only a head and a tail of them are kept (`lines`), so memory is bounded by the
limits and not by how much was printed.

Binary output is recognised from its first 8 KiB (a NUL, or mostly invalid UTF-8 and
control bytes) and reduced to a label. A full-screen program (alternate screen) leaves a
one-line note where it ran; what it drew is not kept.

    >>> capture = OutputCapture()
    >>> capture.feed(b"\\x1b[32mok\\x1b[0m\\r\\n 10%\\r 100%\\r\\n")
    >>> capture.result("make").text
    'ok\\n 100%'
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass

from aish.shell.capture.lines import LineCollector, omitted_bytes_marker
from aish.shell.capture.screen import ScrollbackScreen
from aish.shell.capture.stream import TerminalStream

__all__ = ["CapturedOutput", "OutputCapture"]

# Rows of the emulated screen. More than most real terminals: programs that address rows
# absolutely (apt's progress line at the bottom) then land where they meant, and relative
# redraws (docker pull moving up one row per layer) have room. Scrolling costs O(rows).
SCREEN_ROWS = 100
# The input is decoded and emulated in pieces of this size, so working memory does not
# grow with the size of a chunk handed to `feed`.
_PIECE_BYTES = 65536

_SNIFF_BYTES = 8192
_MIN_SUSPICIOUS = 4
_SUSPICIOUS_RATIO = 0.3
# C0 controls a text program does not print (BS, HT, LF, VT, FF, CR, SO, SI, BEL and ESC
# are ordinary in terminal output), DEL, C1 controls, and what invalid UTF-8 decodes to.
_SUSPICIOUS = re.compile("[\x01-\x06\x10-\x1a\x1c-\x1f\x7f-\x9f\ufffd]")

_NOTE_COMMAND_CHARS = 80


@dataclass(frozen=True)
class CapturedOutput:
    text: str  # what the model sees
    total_bytes: int  # raw bytes fed
    total_lines: int  # lines of rendered output (logical lines, soft wraps joined)
    omitted_lines: int  # lines left out between head and tail
    binary: bool
    alternate_screen: bool


class _BinarySniffer:
    """Decides from the first `_SNIFF_BYTES` bytes whether the output is binary."""

    def __init__(self) -> None:
        self._window = bytearray()
        self.verdict: bool | None = None

    def feed(self, data: bytes) -> None:
        if self.verdict is not None:
            return
        self._window += data[: _SNIFF_BYTES - len(self._window)]
        if len(self._window) >= _SNIFF_BYTES:
            self.verdict = _looks_binary(bytes(self._window), complete=False)
            self._window = bytearray()

    def final_verdict(self) -> bool:
        if self.verdict is not None:
            return self.verdict
        return _looks_binary(bytes(self._window), complete=True)


def _looks_binary(window: bytes, *, complete: bool) -> bool:
    if b"\x00" in window:
        return True
    # A character cut by the end of the window is not evidence of anything.
    text = codecs.getincrementaldecoder("utf-8")("replace").decode(window, final=complete)
    suspicious = len(_SUSPICIOUS.findall(text))
    return suspicious >= _MIN_SUSPICIOUS and suspicious > _SUSPICIOUS_RATIO * len(text)


def _full_screen_note(command: str) -> str:
    lines = command.strip().splitlines()
    name = lines[0].strip() if lines else ""
    if len(name) > _NOTE_COMMAND_CHARS:
        name = name[: _NOTE_COMMAND_CHARS - 1] + "…"
    if not name:
        return "[full-screen program: screen not captured]"
    return f"[full-screen program {name}: screen not captured]"


class OutputCapture:
    """Accumulates one command's output; `result` renders it for the model.

    `result` may be called more than once and `feed` may continue after it; the only trace
    it leaves is that a multi-byte character cut at that moment is replaced (U+FFFD), as
    it would be if the output ended there.
    """

    def __init__(self, *, max_lines: int = 200, max_bytes: int = 16384, columns: int = 80) -> None:
        if max_lines < 1 or max_bytes < 1 or columns < 1:
            raise ValueError("max_lines, max_bytes and columns must be at least 1")
        self._total_bytes = 0
        self._binary = False
        self._sniffer = _BinarySniffer()
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._lines = LineCollector(max_lines, max_bytes)
        self._screen = ScrollbackScreen(columns, SCREEN_ROWS, self._lines)
        self._stream = TerminalStream(self._screen)

    def feed(self, data: bytes) -> None:
        if not data:
            return
        self._total_bytes += len(data)
        if self._binary:
            return
        self._sniffer.feed(data)
        if self._sniffer.verdict:
            self._binary = True  # nothing more is rendered
            return
        view = memoryview(data)
        for start in range(0, len(view), _PIECE_BYTES):
            self._stream.feed(self._decoder.decode(view[start : start + _PIECE_BYTES]))

    def skip(self, count: int) -> None:
        """`count` bytes of the output went by unread (a reader that fell behind skipped
        them): they count in `total_bytes`, and a line where they were says so."""
        if count <= 0:
            return
        self._total_bytes += count
        if self._binary:
            return
        # A character cut by the gap is not finished by what follows it.
        text = self._decoder.decode(b"", final=True)
        if text or self._screen.cursor.x:
            text += "\r\n"
        self._stream.feed(f"{text}{omitted_bytes_marker(count)}\r\n")

    def result(self, command: str = "") -> CapturedOutput:
        if self._binary or self._sniffer.final_verdict():
            return CapturedOutput(
                text=f"[binary output, {self._total_bytes} bytes]",
                total_bytes=self._total_bytes,
                total_lines=0,
                omitted_lines=0,
                binary=True,
                alternate_screen=self._screen.entered_alternate,
            )
        cut_character = self._decoder.decode(b"", final=True)
        if cut_character:
            self._stream.feed(cut_character)
        lines = self._lines.clone()
        for text, wrapped in self._screen.visible_rows():
            lines.add_row(text, wrapped)
        shown, total, omitted = lines.finish(_full_screen_note(command))
        return CapturedOutput(
            text="\n".join(shown),
            total_bytes=self._total_bytes,
            total_lines=total,
            omitted_lines=omitted,
            binary=False,
            alternate_screen=self._screen.entered_alternate,
        )
