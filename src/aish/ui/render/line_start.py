"""Whether a command's output left the cursor at the start of a line.

aish ends a partial last line (`printf abc`) before drawing its prompt, so the prompt is not
drawn over it. What matters is where the terminal's cursor is, not the last byte: a full-screen
program (vim, less, top) ends with control sequences, and leaving the alternate screen puts the
cursor back where the program started — the start of the line below the command, since the
command line ended with Enter. Counting that as a partial line is what left a stray blank line
after every vim. Pure: it reads bytes, it writes nothing.
"""

from __future__ import annotations

import re

__all__ = ["TAIL_BYTES", "at_line_start"]

TAIL_BYTES = 256
"""How much of the output's end to keep between chunks: a control sequence split across two
reads is still read whole."""

# One control sequence: CSI (parameters, intermediates, final byte), OSC/DCS/APC strings ended by
# BEL or ST, or a two-byte ESC sequence.
_SEQUENCE = re.compile(rb"\x1b\[[0-?]*[ -/]*[@-~]|\x1b[\]P_^][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[ -~]")
# Sequences after which the cursor is in column 1 whatever came before: leaving the alternate
# screen (the cursor saved on entering it comes back) and moving to column 1 (home, `clear`).
_BACK_AT_LINE_START = re.compile(rb"\x1b\[\?(?:1049|1047|47)l|\x1b\[(?:\d*;?1?)?[Hf]|\x1b\[1?G")
_LONGEST = 128  # a control sequence longer than this is not looked for
# Bytes that move nothing and print nothing.
_INVISIBLE = frozenset(b"\x07\x00")


def at_line_start(tail: bytes, before: bool) -> bool:
    """Is the cursor at the start of a line after output ending with `tail`? `before` is the
    answer before it (output that only changes colours or modes moves nothing)."""
    end = len(tail)
    while end > 0:
        byte = tail[end - 1]
        if byte in _INVISIBLE:
            end -= 1
            continue
        sequence = _sequence_ending_at(tail, end)
        if sequence is None:
            return byte == 0x0A  # a newline; any other byte is text on the line
        if _BACK_AT_LINE_START.fullmatch(sequence):
            return True
        end -= len(sequence)
    return before


def _sequence_ending_at(tail: bytes, end: int) -> bytes | None:
    """The control sequence that ends exactly at `end`, if one does: the one starting farthest
    back (an OSC string ended by ESC \\ must not be read as that two-byte sequence alone)."""
    found = None
    start = tail.rfind(b"\x1b", 0, end)
    while start >= 0 and end - start <= _LONGEST:
        match = _SEQUENCE.match(tail, start)
        if match is not None and match.end() == end:
            found = match.group()
        start = tail.rfind(b"\x1b", 0, start)
    return found
