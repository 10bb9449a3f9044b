"""Server-sent events from a stream of text pieces split anywhere.

Field semantics and line splitting are httpx-sse's (`SSELineDecoder`, `SSEDecoder`; pinned in
pyproject because they are not re-exported). aish adds one thing standard parsers drop on
purpose: older llama.cpp builds report failures on a non-standard `error: {json}` field line,
which is surfaced here as an event named `error` so the failure is not mistaken for a cut.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Iterable, Iterator

from httpx_sse import ServerSentEvent
from httpx_sse._decoders import SSEDecoder, SSELineDecoder

LEGACY_ERROR_FIELD = "error:"


class SSEParser:
    """Incremental: feed text pieces, get complete events. Pure, no I/O."""

    def __init__(self) -> None:
        self._lines = SSELineDecoder()
        self._events = SSEDecoder()

    def feed(self, text: str) -> list[ServerSentEvent]:
        return list(self._decode_lines(self._lines.decode(text)))

    def close(self) -> list[ServerSentEvent]:
        """The stream ended. Per the SSE spec an event not closed by a blank line is dropped:
        a connection cut inside a JSON chunk is a truncated reply, not a garbled one."""
        events = list(self._decode_lines(self._lines.flush()))
        self._events = SSEDecoder()
        return events

    def _decode_lines(self, lines: Iterable[str]) -> Iterator[ServerSentEvent]:
        for line in lines:
            if line.startswith(LEGACY_ERROR_FIELD):
                yield ServerSentEvent(event="error", data=line[len(LEGACY_ERROR_FIELD) :].strip())
                continue
            event = self._events.decode(line)
            if event is not None:
                yield event


async def aiter_sse(pieces: AsyncIterator[str]) -> AsyncGenerator[ServerSentEvent, None]:
    """Events from decoded text pieces (e.g. `httpx.Response.aiter_text()`)."""
    parser = SSEParser()
    async for piece in pieces:
        for event in parser.feed(piece):
            yield event
    for event in parser.close():
        yield event
