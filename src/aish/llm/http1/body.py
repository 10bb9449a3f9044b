"""A response body as its framing delimits it: a Content-Length, chunks, or the connection's
end. Each `next()` returns the next piece as soon as it arrives, b"" once the body is over.
"""

from __future__ import annotations

import re

from aish.llm.http1.connection import MAX_HEAD_BYTES, Connection
from aish.llm.http1.errors import BadResponse, ConnectionBroke
from aish.llm.http1.head import ResponseHead

__all__ = ["Body", "body_for"]

# The most one read asks for: a streamed reply arrives in pieces much smaller than this.
_PIECE = 64 * 1024
_CHUNK_SIZE = re.compile(rb"[0-9A-Fa-f]{1,16}")


class Body:
    """No body at all (a 204, a 304). `done`: the body was read to its end, so the connection
    is positioned at the next response; `keeps_connection`: its framing allows that."""

    keeps_connection = True

    def __init__(self) -> None:
        self.done = True

    async def next(self) -> bytes:
        return b""


class _Sized(Body):
    def __init__(self, connection: Connection, length: int, read_s: float | None) -> None:
        self._connection = connection
        self._left = length
        self._read_s = read_s
        self.done = length == 0

    async def next(self) -> bytes:
        if self._left == 0:
            self.done = True
            return b""
        piece = await self._connection.read_some(min(self._left, _PIECE), self._read_s)
        if not piece:
            raise ConnectionBroke(f"the connection closed {self._left} bytes before the body's end")
        self._left -= len(piece)
        self.done = self._left == 0
        return piece


class _Chunked(Body):
    def __init__(
        self, connection: Connection, read_s: float | None, *, keeps_connection: bool = True
    ) -> None:
        self.keeps_connection = keeps_connection
        self._connection = connection
        self._read_s = read_s
        self._left = 0  # bytes of the current chunk still to read
        self._in_chunks = False  # past the first size line
        self.done = False

    async def next(self) -> bytes:
        if self.done:
            return b""
        if self._left == 0:
            if self._in_chunks and await self._line():
                raise BadResponse("a chunk is longer than its declared size")
            self._in_chunks = True
            size = self._size(await self._line())
            if size == 0:
                await self._trailers()
                self.done = True
                return b""
            self._left = size
        piece = await self._connection.read_some(min(self._left, _PIECE), self._read_s)
        if not piece:
            raise ConnectionBroke("the connection closed inside a chunk of the body")
        self._left -= len(piece)
        return piece

    async def _line(self) -> bytes:
        return await self._connection.read_line(self._read_s)

    @staticmethod
    def _size(line: bytes) -> int:
        digits = line.split(b";", 1)[0].strip(b" \t")
        if not _CHUNK_SIZE.fullmatch(digits):
            raise BadResponse(f"bad chunk size line: {line[:40]!r}")
        return int(digits, 16)

    async def _trailers(self) -> None:
        size = 0
        while line := await self._line():
            size += len(line) + 2
            if size > MAX_HEAD_BYTES:
                raise BadResponse(f"the body's trailer section is over {MAX_HEAD_BYTES} bytes")


class _UntilClose(Body):
    """A body without a length: it ends when the server closes the connection."""

    keeps_connection = False

    def __init__(self, connection: Connection, read_s: float | None) -> None:
        self._connection = connection
        self._read_s = read_s
        self.done = False

    async def next(self) -> bytes:
        if self.done:
            return b""
        piece = await self._connection.read_some(_PIECE, self._read_s)
        self.done = not piece
        return piece


def body_for(head: ResponseHead, method: str, connection: Connection, read_s: float | None) -> Body:
    """The body reader the response's head calls for (RFC 9112 §6.3, in its order)."""
    if method.upper() == "HEAD" or head.status in (204, 304):
        return Body()
    encodings = head.headers.get("transfer-encoding")
    if encodings is not None:
        codings = [c.strip().lower() for c in encodings.split(",") if c.strip()]
        if codings != ["chunked"]:
            raise BadResponse(f"unsupported transfer coding {encodings[:40]!r}")
        # With a Content-Length as well, the chunks decide, but the two readings disagree on
        # where the next response starts (smuggling, RFC 9112 §6.3): never reuse it.
        return _Chunked(connection, read_s, keeps_connection="content-length" not in head.headers)
    if "content-length" in head.headers:
        lengths = {v.strip() for v in head.headers["content-length"].split(",")}
        if len(lengths) != 1 or not all(v.isdigit() and v.isascii() for v in lengths):
            raise BadResponse("bad or conflicting Content-Length headers")
        return _Sized(connection, int(lengths.pop()), read_s)
    return _UntilClose(connection, read_s)
