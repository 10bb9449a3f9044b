"""The client: requests over kept connections, one small pool per origin.

Exactly what a model request needs and no more: one request at a time per connection, JSON
bodies, streamed responses, redirects never followed (a 3xx is handed back like any other
status), no proxies (`llm.transport` sends proxied requests through httpx instead), no cookies,
no compression.
"""

from __future__ import annotations

import os
import time
from collections.abc import AsyncIterator, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import TYPE_CHECKING, Any

from aish.llm.http1.body import body_for
from aish.llm.http1.connection import Connection, open_connection, read_head
from aish.llm.http1.errors import ConnectFailed, ConnectionBroke
from aish.llm.http1.head import Origin, Request, ResponseHead, build_request
from aish.llm.http1.response import Response
from aish.llm.model_client import Timeouts

if TYPE_CHECKING:
    import ssl

__all__ = ["PlainClient"]

# httpx's default, for a caller that names no timeouts.
_DEFAULT_TIMEOUTS = Timeouts(5.0, 5.0, 5.0, 5.0)
# Idle connections kept per origin; one request at a time each, and a session asks one
# question at a time, so more than a few are never used.
_KEEP_PER_ORIGIN = 4
# How long an idle connection is trusted. A NAT or firewall may drop an idle connection without
# a word: no FIN arrives, the connection looks open, and a request sent on it waits out the
# whole idle timeout before the broker's retry. httpx's pool trusted one 5 s (keepalive_expiry);
# a minute keeps a REPL's follow-up questions on one connection and stays well under what
# middleboxes allow (RFC 5382 asks NATs for two hours; cloud NAT gateways drop after 4-6 min).
# Servers that close idle connections themselves are seen closing and need no expiry.
_KEEP_IDLE_S = 60.0


class PlainClient:
    """HTTP/1.1 over asyncio streams, TLS verified for https. Belongs to the event loop it is
    first used on (its connections do)."""

    def __init__(self, *, keep_idle_s: float = _KEEP_IDLE_S) -> None:
        self._keep_idle_s = keep_idle_s
        self._idle: dict[Origin, list[Connection]] = {}
        self._busy: set[Connection] = set()
        self._tls: ssl.SSLContext | None = None
        self._closed = False

    @property
    def is_closed(self) -> bool:
        return self._closed

    def stream(
        self,
        method: str,
        url: str,
        *,
        json: Any = None,
        headers: Mapping[str, str] | None = None,
        timeout: Timeouts | None = None,
    ) -> AbstractAsyncContextManager[Response]:
        """The response once its head has arrived; its body is read inside the block. Leaving
        the block with the body read to its end keeps the connection for the next request;
        leaving it earlier (an error, a cancellation, a reply cut short) closes it."""
        return self._exchange(method, url, json, headers, timeout or _DEFAULT_TIMEOUTS)

    @asynccontextmanager
    async def _exchange(
        self,
        method: str,
        url: str,
        json: Any,
        headers: Mapping[str, str] | None,
        timeouts: Timeouts,
    ) -> AsyncIterator[Response]:
        if self._closed:
            raise RuntimeError("the HTTP client is closed")
        request = build_request(method, url, json, headers)
        connection, head = await self._send(request, timeouts)
        finished = False
        self._busy.add(connection)
        try:
            body = body_for(head, method, connection, timeouts.read)
            response = Response(url, head, body)
            yield response
            finished = response.body_complete
            if finished and body.keeps_connection and _keeps_alive(head) and not self._closed:
                self._keep(connection)
            else:
                connection.close(clean=finished)
        except BaseException:
            connection.close()
            raise
        finally:
            self._busy.discard(connection)

    async def _send(self, request: Request, timeouts: Timeouts) -> tuple[Connection, ResponseHead]:
        """Send the request and read the response's head, on a kept connection when there is
        one. A kept connection the server dropped while it was idle (nothing came back at
        all) is replaced by a new one, once per kept connection."""
        while True:
            connection = self._take_idle(request.origin)
            reused = connection is not None
            if connection is None:
                tls = self._tls_context() if request.origin.scheme == "https" else None
                connection = await open_connection(request.origin, tls, timeouts.connect)
            connection.start_exchange()
            try:
                await connection.write_request(request.head + request.body, timeouts.write)
                return connection, await read_head(connection, timeouts.read)
            except ConnectionBroke as broke:
                connection.close()
                if reused and broke.nothing_received:
                    continue
                raise
            except BaseException:
                connection.close()
                raise

    def _take_idle(self, origin: Origin) -> Connection | None:
        idle = self._idle.get(origin, [])
        while idle:
            connection = idle.pop()
            fresh = time.monotonic() - connection.idle_since <= self._keep_idle_s
            if fresh and connection.idle_and_open():
                return connection
            connection.close()
        return None

    def _keep(self, connection: Connection) -> None:
        idle = self._idle.setdefault(connection.origin, [])
        connection.idle_since = time.monotonic()
        idle.append(connection)
        while len(idle) > _KEEP_PER_ORIGIN:
            idle.pop(0).close(clean=True)

    def _tls_context(self) -> ssl.SSLContext:
        """Loaded on the first https connection and kept: loading the CA bundle costs tens of
        milliseconds, and plain http never needs it."""
        if self._tls is None:
            self._tls = _verifying_context()
        return self._tls

    async def aclose(self) -> None:
        """Close every connection, kept or in use."""
        self._closed = True
        for idle in self._idle.values():
            for connection in idle:
                connection.close(clean=True)
        self._idle.clear()
        for connection in list(self._busy):
            connection.close()
        self._busy.clear()


def _keeps_alive(head: ResponseHead) -> bool:
    tokens = {t.strip().lower() for t in head.headers.get("connection", "").split(",")}
    if head.version == "HTTP/1.0":
        return "keep-alive" in tokens
    return "close" not in tokens


def _verifying_context() -> ssl.SSLContext:
    """Certificates and host names checked against the CA bundle httpx uses: the file or
    directory named by SSL_CERT_FILE or SSL_CERT_DIR when set, else certifi's."""
    import ssl

    cafile = os.environ.get("SSL_CERT_FILE")
    capath = os.environ.get("SSL_CERT_DIR")
    try:
        if cafile:
            context = ssl.create_default_context(cafile=cafile)
        elif capath:
            context = ssl.create_default_context(capath=capath)
        else:
            import certifi

            context = ssl.create_default_context(cafile=certifi.where())
    except OSError as exc:  # a missing or unreadable bundle (ssl.SSLError is an OSError)
        raise ConnectFailed(f"cannot load the CA certificates: {exc}") from exc
    context.set_alpn_protocols(["http/1.1"])
    return context
