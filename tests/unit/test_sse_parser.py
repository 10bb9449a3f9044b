"""aish's SSE parser reads every stream as httpx-sse (the parser aish used before, still in
the dev environment) does, wherever the stream is split: same events, names, data, ids and
retry values, the legacy `error:` line included."""

from __future__ import annotations

import itertools

from httpx_sse._decoders import SSEDecoder, SSELineDecoder
from hypothesis import given, settings
from hypothesis import strategies as st

from aish.llm.sse import LEGACY_ERROR_FIELD, SSEParser

Event = tuple[str, str, str, int | None]


def _ours(pieces: list[str]) -> list[Event]:
    parser = SSEParser()
    events = [e for piece in pieces for e in parser.feed(piece)] + parser.close()
    return [(e.event, e.data, e.id, e.retry) for e in events]


def _httpx_sse(pieces: list[str]) -> list[Event]:
    """httpx-sse's line and event decoders, with the legacy error line as aish always read it."""
    lines_decoder, events_decoder = SSELineDecoder(), SSEDecoder()
    lines = [line for piece in pieces if piece for line in lines_decoder.decode(piece)]
    lines += lines_decoder.flush()
    events: list[Event] = []
    for line in lines:
        if line.startswith(LEGACY_ERROR_FIELD):
            events.append(("error", line[len(LEGACY_ERROR_FIELD) :].strip(), "", None))
            continue
        event = events_decoder.decode(line)
        if event is not None:
            events.append((event.event, event.data, event.id, event.retry))
    return events


# Streams made of the pieces that matter to a parser: field names, separators, every kind of
# line ending, comments, NULs, numbers, and plain text.
_TOKENS = st.sampled_from(
    ["data", "event", "id", "retry", "error", ":", ": ", " ", "\r", "\n", "\r\n", "\0",
     "12", "x", "é", "[DONE]", '{"a": 1}', "ping", "dat", "message"]
)  # fmt: skip
_STREAMS = st.lists(_TOKENS, max_size=60).map("".join)


@settings(max_examples=400, deadline=None)
@given(_STREAMS, st.lists(st.integers(min_value=0, max_value=400), max_size=8))
def test_any_stream_split_anywhere_reads_as_httpx_sse_reads_it(text: str, cuts: list[int]) -> None:
    points = [0, *sorted({c for c in cuts if c < len(text)}), len(text)]
    pieces = [text[a:b] for a, b in itertools.pairwise(points)]
    assert _ours(pieces) == _httpx_sse(pieces)


def test_known_streams() -> None:
    stream = (
        ": comment\r\nevent: ping\r\ndata: {}\r\n\r\nid: 7\ndata: a\ndata: b\n\nretry: 3000\n\n"
        'retry: soon\ndata: c\n\rerror: {"message": "boom"}\n'
        "data:  two spaces\ndata:none\n\n"
    )
    assert _ours([stream]) == [
        ("ping", "{}", "", None),
        ("message", "a\nb", "7", None),
        ("message", "", "7", 3000),
        ("message", "c", "7", None),
        ("error", '{"message": "boom"}', "", None),
        ("message", " two spaces\nnone", "7", None),
    ]
    assert _ours([stream]) == _httpx_sse([stream])
