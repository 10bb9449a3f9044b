"""What can go wrong in one exchange, by phase, so `llm.transport` can say it in the user's
terms (refused, timed out, cut, garbage) without reading messages.

No message here ever contains a request header's value: one of them carries the API key.
"""

from __future__ import annotations

__all__ = [
    "BadHeader",
    "BadResponse",
    "BadURL",
    "ConnectFailed",
    "ConnectTimedOut",
    "ConnectionBroke",
    "HTTP1Error",
    "ReadTimedOut",
    "WriteTimedOut",
]


class HTTP1Error(Exception):
    """Base of every failure of aish's own HTTP/1.1 client."""


class ConnectFailed(HTTP1Error):
    """No connection: refused, unknown host, TLS handshake or certificate. The OS or TLS error
    is the `__cause__`."""


class ConnectTimedOut(HTTP1Error):
    """No connection (TCP and TLS) within the connect timeout."""


class ReadTimedOut(HTTP1Error):
    """Nothing arrived within the read (idle) timeout."""


class WriteTimedOut(HTTP1Error):
    """The request could not be sent within the write timeout."""


class ConnectionBroke(HTTP1Error):
    """The connection closed or reset before the response ended. `nothing_received`: not a
    byte of the response arrived (a kept connection the server had already dropped)."""

    def __init__(self, message: str, *, nothing_received: bool = False) -> None:
        super().__init__(message)
        self.nothing_received = nothing_received


class BadResponse(HTTP1Error):
    """The server's bytes are not an HTTP/1.1 response this client accepts: a malformed
    status line or header, a header section past its bound, a bad chunk size."""


class BadURL(HTTP1Error):
    """The URL cannot be requested: not http(s), no host, a bad port."""


class BadHeader(HTTP1Error):
    """A request header holds characters HTTP does not allow (the message never says which
    value: it may be the API key)."""
