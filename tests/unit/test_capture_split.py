"""Capture must not depend on where the PTY reads split the output, and must read escape
sequences as pyte does.

Splitting also decides which path renders a line: complete plain lines inside one chunk go
through the batch fast path, anything cut by a chunk edge through the emulator one event at
a time. Comparing chunkings therefore also compares the two paths.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from itertools import pairwise
from unittest import mock

import pyte
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from aish.shell.capture import CapturedOutput, OutputCapture
from aish.shell.capture import output as capture_module

SAMPLE = (
    "\x1b[1;32m✓\x1b[0m naïve café\r\n"
    "\x1b]0;title\x07 50%\r100%\x1b[K\r\n"
    "中文\tx\be\u0301\r\n"
    "\x1b[?1049hhidden\x1b[?1049l"
    "\x1b[2A\x1b[2Kup 👍\r\n\n"
).encode() + b"bad \xff\xe2\x82 end\r\n"


def run(pieces: list[bytes], **limits: int) -> CapturedOutput:
    output = OutputCapture(**limits)
    for piece in pieces:
        output.feed(piece)
    return output.result("prog")


def cut(data: bytes, points: list[int]) -> list[bytes]:
    edges = [0, *sorted(points), len(data)]
    return [data[a:b] for a, b in pairwise(edges)]


@contextmanager
def screen_rows(rows: int) -> Iterator[None]:
    with mock.patch.object(capture_module, "SCREEN_ROWS", rows):
        yield


def test_sample_renders_as_expected() -> None:
    assert run([SAMPLE]).text == (
        "✓ naïve café\n"
        "100%\n"
        "中文    é\n"
        "[full-screen program prog: screen not captured]\n"
        "up 👍\n"
        "\n"
        "bad \ufffd\ufffd end"
    )


def test_split_at_every_byte_boundary() -> None:
    whole = run([SAMPLE])
    for at in range(len(SAMPLE) + 1):
        assert run(cut(SAMPLE, [at])) == whole, at


def test_split_at_every_pair_of_boundaries_on_a_small_screen() -> None:
    data = b"\x1b[31mab\xc3\xa9\x1b[0m\r\n\tc\r\x1b[Kd\r\n" * 3
    with screen_rows(3):
        whole = run([data], columns=4, max_lines=4, max_bytes=64)
        for a in range(len(data) + 1):
            for b in range(a, len(data) + 1):
                assert run(cut(data, [a, b]), columns=4, max_lines=4, max_bytes=64) == whole


FRAGMENTS = [
    b"a", b"hello", "wörld".encode(), "中文".encode(), "e\u0301".encode(), "👍".encode(),
    "\u200d".encode(), b"x" * 13, b" " * 20, b"\t", b"\r\n", b"\n", b"\n", b"\r", b"\b", b"\xff",
    b"\xe4\xb8", b"\x1b[31m", b"\x1b[0m", b"\x1b[K", b"\x1b[0K", b"\x1b[1K", b"\x1b[2K",
    b"\x1b[A", b"\x1b[2A", b"\x1b[B", b"\x1b[3D", b"\x1b[5C", b"\x1b[H", b"\x1b[2;3H",
    b"\x1b[J", b"\x1b[1J", b"\x1b[2J", b"\x1b[?1049h", b"\x1b[?1049l", b"\x1b]0;t\x07",
    b"\x1bP1$r\x1b\\", b"\x1b[S", b"\x1b[2T", b"\x1b[2;3r", b"\x1b[r", b"\x1b7", b"\x1b8",
    b"\x1bM", b"\x1bD", b"\x1bE", b"\x1b[4h", b"\x1b[4l", b"\x1b[?7l", b"\x1b[?7h", b"\x1b[3g",
    b"\x1bH", b"\x1b[L", b"\x1b[2P", b"\x1b[@", b"\x1b[X", b"\x1bc", b"\x1b[20l",
    b"\x1b[38:5:1m", b"\x1b(0", b"\x1b[>1u", b"\xc2\x9b", b"y" * 90, b"\x1b[" + b"1;" * 140 + b"m",
    b"\x1b" + b" " * 300 + b"x", b"\x1b]unterminated",
]  # fmt: skip


@st.composite
def chunked_outputs(draw: st.DrawFn) -> tuple[bytes, list[int]]:
    data = b"".join(draw(st.lists(st.sampled_from(FRAGMENTS), max_size=80)))
    points = draw(st.lists(st.integers(0, len(data)), max_size=8))
    return data, points


@settings(max_examples=400, deadline=None)
@given(chunked_outputs(), st.sampled_from([3, 8, 80]))
# Blank cells below the cursor (left by DCH, or drawn spaces) survive drawing over the row
# but not the fast path, which used to treat them as empty: the giant line's last row then
# ended differently, its trailing blanks pushed the text out of the clipped tail, and a row
# later shortened at its last column by DCH kept or lost its blanks.
@example((b"\r\n\x1b[2P\x1b[H" + b"y" * 90, []), 80)
@example((b"\r\n" + b" " * 70 + b"\x1b[H" + b"y" * 90, []), 80)
@example(
    (b"\r\n\r\n" + b" " * 79 + b"\x1b[H" + b"y" * 90 + b"\x1b[3;80Hab\x1b[3;80H\x1b[2P\r\n", []), 80
)
def test_random_chunking_gives_the_same_result(case: tuple[bytes, list[int]], columns: int) -> None:
    data, points = case
    limits = {"columns": columns, "max_lines": 6, "max_bytes": 150}
    with screen_rows(4):
        whole = run([data], **limits)
        assert run(cut(data, points), **limits) == whole
        assert run([data[i : i + 1] for i in range(len(data))], **limits) == whole


# -- the same screen as pyte's own Stream and Screen ------------------------------------------
# Not in this alphabet, on purpose: wide characters (overwriting half of one blanks the
# other half, as terminals do; pyte leaves a stub its own `display` then chokes on),
# zero-width joiners (pyte drops the rest of the text), DCS strings (pyte draws them), SU/SD
# and RIS (pyte lacks them / clears LNM), ESC 7/8 pairs (pyte keeps a stack, a VT one slot),
# clearing all tab stops (a tab then reaches the last column and the row wraps, which
# capture joins into one line), DL (pyte's leaves a row as it was when the row below it was
# never created; see test_capture.py).

PYTE_ALIKE = [
    b"a", b"hello", "wörld".encode(), "e\u0301".encode(), b"x" * 13, b"\t",
    b"\r\n", b"\n", b"\r", b"\b", b"\xff", b"\x1b[31m", b"\x1b[0m", b"\x1b[K", b"\x1b[1K",
    b"\x1b[2K", b"\x1b[A", b"\x1b[2A", b"\x1b[B", b"\x1b[3D", b"\x1b[5C", b"\x1b[H",
    b"\x1b[2;3H", b"\x1b[J", b"\x1b[1J", b"\x1b[2J", b"\x1b]0;t\x07", b"\x1b[2;3r", b"\x1b[r",
    b"\x1bM", b"\x1bD", b"\x1b[4h", b"\x1b[4l", b"\x1b[0g", b"\x1bH", b"\x1b[L",
    b"\x1b[2P", b"\x1b[@", b"\x1b[X", b"\x1b[3G", b"\x1b[2d", b"\x1b[E", b"\x1b[F",
]  # fmt: skip


def pyte_screen_text(data: bytes, columns: int) -> str:
    screen = pyte.Screen(columns, capture_module.SCREEN_ROWS)
    screen.set_mode(pyte.modes.LNM)
    pyte.Stream(screen).feed(data.decode("utf-8", "replace"))
    # `screen.display` would walk every cell of a 500-column screen; the buffer is sparse.
    buffer = screen.buffer
    rows = [
        "".join(buffer[y][x].data for x in range(max(buffer[y]) + 1)).rstrip(" ")
        if buffer.get(y)
        else ""
        for y in range(screen.lines)
    ]
    while rows and not rows[-1]:
        rows.pop()
    return "\n".join(rows)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(PYTE_ALIKE), max_size=30))
def test_screen_matches_pyte_while_nothing_scrolls(fragments: list[bytes]) -> None:
    data = b"".join(fragments)
    # Wide enough that nothing wraps, few enough newlines that nothing scrolls off.
    result = run([data], columns=500, max_lines=1000)
    assume(not result.binary)  # a few invalid bytes alone are judged binary
    assert result.text == pyte_screen_text(data, 500)
