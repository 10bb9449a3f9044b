"""The filter for a model's command output: the sequences that reach past the screen go, every
other byte stays, wherever the stream is split."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aish.ui.render.terminal_actions import TerminalActionFilter


def filtered(data: bytes, cuts: list[int] | None = None) -> bytes:
    actions = TerminalActionFilter()
    out, start = b"", 0
    for cut in [*sorted(cuts or []), len(data)]:
        out += actions.feed(data[start:cut])
        start = cut
    return out + actions.end()


@pytest.mark.parametrize(
    ("stream", "shown"),
    [
        (b"plain text\r\n", b"plain text\r\n"),
        # the clipboard, written or read, BEL- or ST-terminated, the number as a number
        (b"a\x1b]52;c;cm0gLXJmIH4=\x07b", b"ab"),
        (b"a\x1b]52;c;?\x1b\\b", b"ab"),
        (b"a\x1b]052;p;eA==\x07b", b"ab"),
        # answers the terminal types into the shell: the title, the icon label, settings,
        # capabilities
        (b"\x1b[21tX", b"X"),
        (b"\x1b[20tX", b"X"),
        (b"\x1b[021;0tX", b"X"),
        (b"\x1bP$qm\x1b\\Z", b"Z"),
        (b"\x1bP+q544e\x1b\\Z", b"Z"),
        # an ESC before the sequence is kept; the sequence after it still goes
        (b"\x1b\x1b]52;c;x\x07y", b"\x1by"),
        # what only draws stays
        (b"\x1b[31mred\x1b[0m", b"\x1b[31mred\x1b[0m"),
        (b"\x1b]0;title\x07x", b"\x1b]0;title\x07x"),
        (
            b"\x1b]8;;https://x\x1b\\link\x1b]8;;\x1b\\",
            b"\x1b]8;;https://x\x1b\\link\x1b]8;;\x1b\\",
        ),
        (b"\x1b]5;x\x07", b"\x1b]5;x\x07"),
        (b"\x1b[8;24;80t\x1b[121t\x1b[?1049h\x1b[2J", b"\x1b[8;24;80t\x1b[121t\x1b[?1049h\x1b[2J"),
        (b"\x1bPq#0;2;0;0;0\x1b\\", b"\x1bPq#0;2;0;0;0\x1b\\"),
        # UTF-8 whose bytes look like C1 introducers is text
        ("Ý52;é".encode(), "Ý52;é".encode()),
        # cut off at the end: it never acted, so it is shown as it came
        (b"x\x1b]52", b"x\x1b]52"),
    ],
)
def test_what_goes_and_what_stays(stream: bytes, shown: bytes) -> None:
    assert filtered(stream) == shown
    for cut in range(len(stream) + 1):
        assert filtered(stream, [cut]) == shown, cut


def test_a_long_clipboard_string_is_swallowed_to_its_end() -> None:
    payload = b"\x1b]52;c;" + b"QUFB" * 50_000 + b"\x07after"
    assert filtered(payload, [10, 70_000, 150_000]) == b"after"


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                *(b"text ", b"\x1b", b"]", b"52;", b"0;", b"[", b"21t", b"31m", b"P", b"$q"),
                *(b"\x07", b"\x1b\\", "é".encode(), b"\r\n"),
            ]
        ),
        max_size=30,
    ),
    st.lists(st.integers(min_value=0, max_value=200), max_size=8),
)
def test_any_split_gives_the_same_bytes(pieces: list[bytes], cuts: list[int]) -> None:
    stream = b"".join(pieces)
    whole = filtered(stream)
    assert filtered(stream, [c for c in cuts if c <= len(stream)]) == whole
    assert len(whole) <= len(stream)


def test_output_without_escapes_is_passed_through_untouched() -> None:
    data = "no escapes here, only text and ünïcödé\r\n".encode() * 100
    assert TerminalActionFilter().feed(data) is data
