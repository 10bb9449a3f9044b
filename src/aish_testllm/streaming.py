"""Writing a streamed response body: chunked framing, pacing, noise and injected faults.

The body of every streamed response uses ``Transfer-Encoding: chunked``.  A normal stream ends
with the zero-length terminator chunk; a *cut* drops the connection without it, which HTTP
clients report as a protocol error (an incomplete chunked body), just like a crashed server.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Protocol

from aish_testllm.scenario import Reply
from aish_testllm.sse import SseEvent, comment

Sleep = Callable[[float], bool]
"""Waits the given seconds; returns False if the server is shutting down meanwhile."""


class _Writable(Protocol):
    def write(self, data: bytes, /) -> object: ...

    def flush(self) -> object: ...


class ChunkedWriter:
    """Writes ``Transfer-Encoding: chunked`` framing, one flushed chunk per write."""

    def __init__(self, wfile: _Writable) -> None:
        self._wfile = wfile

    def write(self, data: bytes) -> None:
        """Send ``data`` as one chunk (empty data is skipped: it would end the body)."""
        if data:
            self._wfile.write(f"{len(data):X}\r\n".encode() + data + b"\r\n")
            self._wfile.flush()

    def finish(self) -> None:
        """Send the terminating zero-length chunk."""
        self._wfile.write(b"0\r\n\r\n")
        self._wfile.flush()


def _trigger(after: int | None, total: int) -> int | None:
    """Content-chunk count at which a fault fires (clamped to the chunks available)."""
    return None if after is None else min(after, total)


class _StreamRun:
    """One pass over an event list, applying the reply's timing, noise and faults."""

    def __init__(
        self,
        out: ChunkedWriter,
        events: Sequence[SseEvent],
        reply: Reply,
        error_events: Sequence[SseEvent],
        sleep: Sleep,
    ) -> None:
        self.out = out
        self.events = events
        self.reply = reply
        self.error_events = error_events
        self.sleep = sleep
        self.eol = "\r\n" if reply.crlf else "\n"
        total = sum(1 for event in events if event.content)
        self.stall_at = _trigger(reply.stall_after, total)
        self.error_at = _trigger(reply.error_after, total)
        self.cut_at = _trigger(reply.cut_after, total)
        self.sent = 0
        self.stalled = False

    def run(self) -> bool:
        if self.reply.first_delay_ms and not self.sleep(self.reply.first_delay_ms / 1000):
            return False
        for event in self.events:
            outcome = self._checkpoint(event)
            if outcome is not None:
                return outcome
            delay_s = self.reply.delay_ms / 1000 if event.content else 0.0
            if delay_s and not self.sleep(delay_s):
                return False
            self._emit(event)
            if event.content:
                self.sent += 1
        outcome = self._checkpoint(None)
        if outcome is not None:
            return outcome
        self.out.finish()
        return True

    def _emit(self, event: SseEvent) -> None:
        if event.raw is None:
            for line in self.reply.comments:
                self.out.write(comment(line, self.eol))
        self.out.write(event.encode(self.eol))

    def _checkpoint(self, upcoming: SseEvent | None) -> bool | None:
        """Fire faults due at the current count; a bool return ends the stream."""
        if self.stall_at == self.sent and not self.stalled:
            self.stalled = True
            if not self._stall():
                return False
        if self.error_at == self.sent:
            for event in self.error_events:
                self._emit(event)
            self.out.finish()
            return True
        if self.cut_at == self.sent:
            if self.reply.cut_mid_json and upcoming is not None:
                data = upcoming.encode(self.eol)
                self.out.write(data[: max(1, len(data) // 2)])
            return False
        return None

    def _stall(self) -> bool:
        interval_ms = self.reply.ping_every_ms
        if interval_ms is None:
            return self.sleep(self.reply.stall_s)
        deadline = time.monotonic() + self.reply.stall_s
        while (left := deadline - time.monotonic()) > 0:
            if not self.sleep(min(interval_ms / 1000, left)):
                return False
            if deadline - time.monotonic() > 0:
                self.out.write(comment(": ping", self.eol))
        return True


def write_stream(
    out: ChunkedWriter,
    events: Sequence[SseEvent],
    reply: Reply,
    error_events: Sequence[SseEvent],
    sleep: Sleep,
) -> bool:
    """Stream ``events`` (headers already sent).

    Returns True when the body was terminated properly, False when the connection must be
    dropped (a scripted cut, or server shutdown).  ``error_events`` are written instead of the
    rest of the stream once ``reply.error_after`` content chunks were sent.
    """
    return _StreamRun(out, events, reply, error_events, sleep).run()
