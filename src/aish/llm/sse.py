"""Server-sent events from a stream of text pieces split anywhere.

The event-stream interpretation of the WHATWG HTML standard (§9.2.6): lines end at CRLF, LF or
CR; a line starting with `:` is a comment; `field: value` lines fill the event; a blank line
dispatches it. Two choices follow httpx-sse, which aish used before and whose results a test
keeps comparing against: an event is dispatched when any field was set (not only `data`), and
an event without a name is called `message`.

aish adds one thing standard parsers drop on purpose: older llama.cpp builds report failures on
a non-standard `error: {json}` field line, which is surfaced here as an event named `error` so
the failure is not mistaken for a cut.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncGenerator, AsyncIterator, Iterator
from dataclasses import dataclass

LEGACY_ERROR_FIELD = "error:"

__all__ = ["LEGACY_ERROR_FIELD", "SSEParser", "ServerSentEvent", "aiter_sse"]


@dataclass(frozen=True)
class ServerSentEvent:
    event: str = "message"
    data: str = ""
    id: str = ""
    retry: int | None = None


class _Lines:
    """Complete lines from text pieces. A CR at the end of a piece is held back: it may be
    the first half of a CRLF."""

    def __init__(self) -> None:
        self._partial: list[str] = []
        self._held_cr = False

    def feed(self, text: str) -> list[str]:
        if self._held_cr:
            text = "\r" + text
            self._held_cr = False
        if text.endswith("\r"):
            self._held_cr = True
            text = text[:-1]
        if not text:
            return []
        pieces = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
        # `pieces[-1]` is what follows the last line ending: the start of an unfinished line.
        unfinished = pieces.pop()
        if pieces:
            pieces[0] = "".join(self._partial) + pieces[0]
            self._partial = []
        if unfinished:
            self._partial.append(unfinished)
        return pieces

    def close(self) -> list[str]:
        """The stream ended: an unfinished line (or a held CR) is a last line."""
        if not self._partial and not self._held_cr:
            return []
        line = "".join(self._partial)
        self._partial, self._held_cr = [], False
        return [line]


class _Fields:
    """Fills an event from field lines; a blank line dispatches it."""

    def __init__(self) -> None:
        self._event = ""
        self._data: list[str] = []
        self._id = ""  # the last event id persists across events, per the standard
        self._retry: int | None = None

    def line(self, line: str) -> ServerSentEvent | None:
        if not line:
            return self._dispatch()
        if line.startswith(":"):
            return None
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if name == "data":
            self._data.append(value)
        elif name == "event":
            self._event = value
        elif name == "id":
            if "\0" not in value:
                self._id = value
        elif name == "retry":
            with contextlib.suppress(ValueError):
                self._retry = int(value)
        return None

    def _dispatch(self) -> ServerSentEvent | None:
        if not (self._event or self._data or self._id or self._retry is not None):
            return None
        event = ServerSentEvent(
            self._event or "message", "\n".join(self._data), self._id, self._retry
        )
        self._event, self._data, self._retry = "", [], None
        return event


class SSEParser:
    """Incremental: feed text pieces, get complete events. Pure, no I/O."""

    def __init__(self) -> None:
        self._lines = _Lines()
        self._fields = _Fields()

    def feed(self, text: str) -> list[ServerSentEvent]:
        return list(self._events(self._lines.feed(text)))

    def close(self) -> list[ServerSentEvent]:
        """The stream ended. Per the SSE spec an event not closed by a blank line is dropped:
        a connection cut inside a JSON chunk is a truncated reply, not a garbled one."""
        events = list(self._events(self._lines.close()))
        self._fields = _Fields()
        return events

    def _events(self, lines: list[str]) -> Iterator[ServerSentEvent]:
        for line in lines:
            if line.startswith(LEGACY_ERROR_FIELD):
                yield ServerSentEvent("error", line[len(LEGACY_ERROR_FIELD) :].strip())
                continue
            event = self._fields.line(line)
            if event is not None:
                yield event


async def aiter_sse(pieces: AsyncIterator[str]) -> AsyncGenerator[ServerSentEvent, None]:
    """Events from decoded text pieces (e.g. a response's `aiter_text()`)."""
    parser = SSEParser()
    async for piece in pieces:
        for event in parser.feed(piece):
            yield event
    for event in parser.close():
        yield event
