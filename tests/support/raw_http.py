"""Tiny HTTP servers written byte by byte, for clients facing servers that misbehave.

`RawServer` runs on the test's own event loop, on 127.0.0.1, and hands every accepted
connection to a script: a coroutine that reads the request with `read_request` and writes
whatever bytes the test wants — a well-formed reply, garbage, half a chunk, nothing at all.
It records each connection's client port and whether the client closed it.
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from types import TracebackType

Script = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


@dataclass
class RawRequest:
    line: str  # "POST /v1/chat/completions HTTP/1.1"
    headers: dict[str, str]  # lower-case names
    body: bytes


async def read_request(reader: asyncio.StreamReader) -> RawRequest | None:
    """The next request on the connection; None when the client closed it instead."""
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError:
        return None
    line, *fields = head.decode("latin-1").split("\r\n")[:-2]
    headers = {}
    for raw in fields:
        name, _, value = raw.partition(":")
        headers[name.strip().lower()] = value.strip()
    body = await reader.readexactly(int(headers.get("content-length", "0")))
    return RawRequest(line, headers, body)


def response(status: int, body: bytes, *headers: str) -> bytes:
    """A whole HTTP/1.1 response with a Content-Length."""
    head = [f"HTTP/1.1 {status} X", f"Content-Length: {len(body)}", *headers]
    return ("\r\n".join(head) + "\r\n\r\n").encode() + body


def chunk(data: bytes) -> bytes:
    return f"{len(data):X}\r\n".encode() + data + b"\r\n"


@dataclass
class RawServer:
    script: Script
    tls: ssl.SSLContext | None = None
    ports: list[int] = field(default_factory=list)  # client port of each connection, in order
    client_closed: list[int] = field(default_factory=list)  # ports the client closed first
    _server: asyncio.Server | None = None

    @property
    def url(self) -> str:
        assert self._server is not None
        port = self._server.sockets[0].getsockname()[1]
        return f"{'https' if self.tls else 'http'}://127.0.0.1:{port}"

    async def __aenter__(self) -> RawServer:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0, ssl=self.tls)
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        assert self._server is not None
        self._server.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self._server.wait_closed(), 2)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        port = writer.get_extra_info("peername")[1]
        self.ports.append(port)
        try:
            await self.script(reader, writer)
            await writer.drain()
        except (ConnectionError, ssl.SSLError):
            self.client_closed.append(port)
        finally:
            writer.close()


async def until_closed_by_client(reader: asyncio.StreamReader) -> bool:
    """Wait for the client to close its end; True when it did (the script then ends)."""
    try:
        while await reader.read(65536):
            pass
    except (ConnectionError, ssl.SSLError):
        pass
    return True
