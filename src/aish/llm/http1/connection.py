"""One TCP (or TLS) connection to an origin, with every read and write bounded in time and
size, and every failure turned into an `http1.errors` type.

Built on asyncio streams: no threads, no imports beyond asyncio (`ssl` only for https).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from aish.llm.http1.errors import (
    BadResponse,
    ConnectFailed,
    ConnectionBroke,
    ConnectTimedOut,
    ReadTimedOut,
    WriteTimedOut,
)
from aish.llm.http1.head import Origin, ResponseHead, parse_head

if TYPE_CHECKING:
    import ssl

__all__ = ["MAX_HEAD_BYTES", "Connection", "open_connection", "read_head"]

# The longest line the reader accepts (a status, header or chunk-size line) and the largest
# whole header section: garbage from a server fails at these bounds, it never grows a buffer.
MAX_LINE_BYTES = 16 * 1024
MAX_HEAD_BYTES = 64 * 1024
MAX_HEADER_LINES = 200
# Interim (1xx) responses skipped before the real one, at most.
_MAX_INTERIM = 8


class Connection:
    """A connection and what its current exchange has read so far."""

    def __init__(
        self, origin: Origin, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        self.origin = origin
        self._reader = reader
        self._writer = writer
        self.received = 0  # bytes of the current response read so far
        self.idle_since = 0.0  # time.monotonic() when it was last put back idle

    def idle_and_open(self) -> bool:
        """Whether a kept connection may carry another request: the server has neither closed
        it nor sent anything unasked while it sat idle."""
        return not (self._writer.is_closing() or self._reader.at_eof()) and not self._pending()

    def _pending(self) -> bool:
        # StreamReader keeps its buffer private; unsolicited bytes would be read as the next
        # response's status line, so a connection that has any is not reused.
        buffer = getattr(self._reader, "_buffer", b"")
        return bool(buffer)

    def start_exchange(self) -> None:
        self.received = 0

    async def write_request(self, data: bytes, write_s: float | None) -> None:
        try:
            self._writer.write(data)
            async with asyncio.timeout(write_s):
                await self._writer.drain()
        except TimeoutError:
            raise WriteTimedOut(f"the request was not sent within {write_s:g}s") from None
        except OSError as exc:
            raise ConnectionBroke(
                f"the connection closed while sending the request ({_reason(exc)})",
                nothing_received=True,
            ) from exc

    async def read_line(self, read_s: float | None) -> bytes:
        """One line with its line ending removed (CRLF or a bare LF)."""
        try:
            async with asyncio.timeout(read_s):
                line = await self._reader.readuntil(b"\n")
        except asyncio.IncompleteReadError as exc:
            self.received += len(exc.partial)
            raise self._closed() from None
        except asyncio.LimitOverrunError:
            raise BadResponse(
                f"a line of the response is longer than {MAX_LINE_BYTES} bytes"
            ) from None
        except TimeoutError:
            raise ReadTimedOut(f"no data for {read_s:g}s") from None
        except OSError as exc:
            raise ConnectionBroke(f"the connection broke ({_reason(exc)})") from exc
        self.received += len(line)
        return line[:-2] if line.endswith(b"\r\n") else line[:-1]

    async def read_some(self, limit: int, read_s: float | None) -> bytes:
        """Up to `limit` bytes, as soon as any are there; b"" when the server closed."""
        try:
            async with asyncio.timeout(read_s):
                data = await self._reader.read(limit)
        except TimeoutError:
            raise ReadTimedOut(f"no data for {read_s:g}s") from None
        except OSError as exc:
            raise ConnectionBroke(f"the connection broke ({_reason(exc)})") from exc
        self.received += len(data)
        return data

    def _closed(self) -> ConnectionBroke:
        if self.received == 0:
            return ConnectionBroke(
                "the server closed the connection without a response", nothing_received=True
            )
        return ConnectionBroke("the server closed the connection before the response ended")

    def close(self, *, clean: bool = False) -> None:
        """Close without waiting for the peer (a cancelled request must not wait). `clean`:
        between exchanges, so a TLS goodbye may go out; otherwise the socket is dropped at
        once, unread data and all."""
        transport = self._writer.transport
        if clean:
            transport.close()
        else:
            transport.abort()


async def open_connection(
    origin: Origin, tls: ssl.SSLContext | None, connect_s: float | None
) -> Connection:
    """A new connection: TCP, then the TLS handshake for https, within `connect_s` in all."""
    try:
        async with asyncio.timeout(connect_s):
            reader, writer = await asyncio.open_connection(
                origin.host,
                origin.port,
                ssl=tls,
                server_hostname=origin.host if tls is not None else None,
                limit=MAX_LINE_BYTES,
            )
    except TimeoutError:
        raise ConnectTimedOut(f"no connection within {connect_s:g}s") from None
    except OSError as exc:  # refused, unreachable, unknown host, TLS (ssl.SSLError)
        raise ConnectFailed(_reason(exc)) from exc
    return Connection(origin, reader, writer)


async def read_head(connection: Connection, read_s: float | None) -> ResponseHead:
    """The response's head, skipping interim (1xx) responses; bounded by `MAX_HEAD_BYTES` and
    `MAX_HEADER_LINES` whatever the server sends."""
    for _ in range(_MAX_INTERIM + 1):
        lines: list[bytes] = []
        size = 0
        while True:
            line = await connection.read_line(read_s)
            size += len(line) + 2
            if size > MAX_HEAD_BYTES:
                raise BadResponse(f"the response's header section is over {MAX_HEAD_BYTES} bytes")
            if not line:
                break
            lines.append(line)
            if len(lines) > MAX_HEADER_LINES:
                raise BadResponse(f"the response has over {MAX_HEADER_LINES} header lines")
        head = parse_head(lines)
        if head.status == 101:
            raise BadResponse("the server switched protocols, which was not asked for")
        if head.status >= 200:
            return head
    raise BadResponse(f"over {_MAX_INTERIM} interim responses before the real one")


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc) or type(exc).__name__
