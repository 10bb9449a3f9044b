"""The marker parser: nonce check, every split of the stream, bounded memory on garbage."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from aish.shell.markers import (
    MAX_MARKER_BYTES,
    Event,
    Marker,
    MarkerParser,
    Output,
    escape_value,
    marker_bytes,
    unescape_value,
)

NONCE = "5f3a9c0e11d24b7a"
NEXT = "0c1d2e3f405162738495a6b7c8d9eaf0"  # announced by the shell at its prompt


def normalise(events: list[Event]) -> list[Event]:
    """Merge adjacent Output events: how output is chunked is not part of the contract."""
    merged: list[Event] = []
    for event in events:
        if isinstance(event, Output) and merged and isinstance(merged[-1], Output):
            merged[-1] = Output(merged[-1].data + event.data)
        elif not (isinstance(event, Output) and not event.data):
            merged.append(event)
    return merged


def parse_chunks(chunks: list[bytes], nonce: str = NONCE) -> list[Event]:
    parser = MarkerParser(nonce)
    events: list[Event] = []
    for chunk in chunks:
        events.extend(parser.feed(chunk))
    # A stream that ends mid-marker keeps those bytes held back; nothing else may be pending.
    return normalise(events)


def m(kind: str, value: str | None = None, nonce: str = NONCE) -> bytes:
    return marker_bytes(nonce, kind, value)


# A realistic transcript: echo, output with colours and a foreign OSC, a fake marker with a
# wrong nonce, the done marker, the next nonce (the one before it is spent at once: a marker
# with it is output), a cwd with a BEL and a backslash in it, and the next prompt
# (ST-terminated).
STREAM = (
    b"echo hi\r\n"
    + m("C", "1")
    + b"\x1b[31mhi\x1b[0m\r\n\x1b]0;title\x07"
    + m("D", "0", nonce="0000000000000000")
    + b"\x1b]6973;;D;0\x07more\r\n"
    + m("D", "0")
    + m("N", NEXT)
    + m("D", "9")
    + m("P", "Cwd=/tmp/we\aird\\dir", nonce=NEXT)
    + b"\x1b]6973;"
    + NEXT.encode()
    + b";A;0\x1b\\"
    + m("B", nonce=NEXT)
)
EXPECTED: list[Event] = [
    Output(b"echo hi\r\n"),
    Marker("C", "1"),
    Output(
        b"\x1b[31mhi\x1b[0m\r\n\x1b]0;title\x07"
        + m("D", "0", nonce="0000000000000000")
        + b"\x1b]6973;;D;0\x07more\r\n"
    ),
    Marker("D", "0"),
    Output(m("D", "9")),
    Marker("P", "Cwd=/tmp/we\aird\\dir"),
    Marker("A", "0"),
    Marker("B", ""),
]


def test_whole_stream() -> None:
    assert parse_chunks([STREAM]) == EXPECTED


def test_every_single_split_point() -> None:
    for cut in range(len(STREAM) + 1):
        assert parse_chunks([STREAM[:cut], STREAM[cut:]]) == EXPECTED, cut


def test_every_two_split_points() -> None:
    for first in range(0, len(STREAM) + 1, 3):
        for second in range(first, len(STREAM) + 1):
            chunks = [STREAM[:first], STREAM[first:second], STREAM[second:]]
            assert parse_chunks(chunks) == EXPECTED, (first, second)


def test_byte_at_a_time() -> None:
    assert parse_chunks([bytes([b]) for b in STREAM]) == EXPECTED


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=len(STREAM)), max_size=12))
def test_random_splits(cuts: list[int]) -> None:
    points = [0, *sorted(cuts), len(STREAM)]
    chunks = [STREAM[a:b] for a, b in itertools.pairwise(points)]
    assert parse_chunks(chunks) == EXPECTED


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.binary(max_size=40),
            st.sampled_from([b"\x1b", b"\x1b]", b"\x1b]6973;", b"\x07", b"\x1b\\", b";"]),
            st.builds(m, st.sampled_from("ABCDPFK"), st.none() | st.text(max_size=20)),
        ),
        max_size=20,
    ),
    st.lists(st.integers(min_value=0, max_value=2000), max_size=8),
)
def test_arbitrary_streams_are_split_independent(pieces: list[bytes], cuts: list[int]) -> None:
    stream = b"".join(pieces)
    parser = MarkerParser(NONCE)
    whole = parser.feed(stream)
    held = parser.pending
    points = [0, *sorted(c for c in cuts if c <= len(stream)), len(stream)]
    chunks = [stream[a:b] for a, b in itertools.pairwise(points)]
    split_parser = MarkerParser(NONCE)
    split = [e for chunk in chunks for e in split_parser.feed(chunk)]
    assert normalise(split) == normalise(whole)
    assert split_parser.pending == held
    # Nothing is lost: output plus held bytes plus the markers' wire bytes is the whole stream.
    text = b"".join(e.data for e in whole if isinstance(e, Output))
    assert len(text) + held <= len(stream)


@given(st.text())
def test_escape_round_trip(value: str) -> None:
    escaped = escape_value(value)
    assert "\x07" not in escaped and "\x1b" not in escaped
    assert unescape_value(escaped.encode("utf-8", "surrogateescape")) == value


def test_a_next_nonce_that_is_not_one_is_ignored() -> None:
    # Too short, not hex, upper case: no switch (the shell only ever sends 16+ hex digits).
    for bad in ("abc", "zz" * 10, "ABCDEF0123456789", ""):
        assert parse_chunks([m("N", bad) + m("D", "0")]) == [Marker("D", "0")], bad


def test_wrong_nonce_is_output() -> None:
    fake = m("D", "0", nonce="deadbeefdeadbeef")
    assert parse_chunks([b"x" + fake + b"y"]) == [Output(b"x" + fake + b"y")]


def test_nonce_that_is_a_prefix_of_ours_is_output() -> None:
    fake = m("D", "0", nonce=NONCE[:-1])
    assert parse_chunks([fake]) == [Output(fake)]


def test_st_terminator_and_malformed_escape() -> None:
    good = b"\x1b]6973;" + NONCE.encode() + b";B\x1b\\"
    bad = b"\x1b]6973;" + NONCE.encode() + b";B\x1b[0m"
    assert parse_chunks([good]) == [Marker("B")]
    assert parse_chunks([bad]) == [Output(bad)]


def test_garbage_that_never_ends_is_released() -> None:
    parser = MarkerParser(NONCE)
    start = b"\x1b]6973;" + NONCE.encode() + b";P;"
    events = parser.feed(start)
    assert events == [] and parser.pending == len(start)
    released = b""
    for _ in range(100):
        released += b"".join(e.data for e in parser.feed(b"z" * 1000) if isinstance(e, Output))
        assert parser.pending < MAX_MARKER_BYTES
    assert released.startswith(start)
    assert len(released) + parser.pending == len(start) + 100_000


def test_marker_at_exactly_the_cap_is_accepted() -> None:
    prefix = b"\x1b]6973;" + NONCE.encode() + b";P;"
    value = "v" * (MAX_MARKER_BYTES - len(prefix) - 1)
    exact = prefix + value.encode() + b"\x07"
    assert len(exact) == MAX_MARKER_BYTES
    assert parse_chunks([exact]) == [Marker("P", value)]
    assert parse_chunks([exact[:-1] + b"v\x07"]) == [Output(exact[:-1] + b"v\x07")]


def test_lone_escape_at_end_is_held_then_released() -> None:
    parser = MarkerParser(NONCE)
    assert parser.feed(b"abc\x1b") == [Output(b"abc")]
    assert parser.pending == 1
    assert parser.feed(b"[0m") == [Output(b"\x1b[0m")]
    assert parser.pending == 0


def test_binary_bytes_pass_through() -> None:
    data = bytes(range(256)) * 4
    assert parse_chunks([data]) == [Output(data)]


def test_value_with_invalid_utf8_survives() -> None:
    raw = b"\x1b]6973;" + NONCE.encode() + b";P;Cwd=/tmp/\xff\x07"
    (marker,) = parse_chunks([raw])
    assert isinstance(marker, Marker)
    assert marker.value.encode("utf-8", "surrogateescape") == b"Cwd=/tmp/\xff"
