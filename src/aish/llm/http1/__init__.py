"""aish's own HTTP/1.1 client, on asyncio streams: what a model request needs, nothing more.

Why not httpx for everything: importing httpx, httpcore, anyio and h11 and running a request
through their layers cost about a third of a one-shot `aish ask` (measured with callgrind,
issue 25). httpx stays for what this client does not do — proxies above all — and
`llm.transport` decides which of the two a request takes.

What it does: http and https (certificates verified against the bundle httpx uses), JSON
request bodies, Content-Length, chunked and read-to-close response bodies, connect, read (idle)
and write timeouts, kept connections per origin, text decoding in the declared charset with
invalid bytes replaced. What it refuses with a typed error (`http1.errors`) instead of hanging
or growing a buffer: a header section past 64 KiB, a malformed status line, header or chunk
size, a body cut short. It never follows a redirect.
"""

from aish.llm.http1.client import PlainClient
from aish.llm.http1.errors import (
    BadHeader,
    BadResponse,
    BadURL,
    ConnectFailed,
    ConnectionBroke,
    ConnectTimedOut,
    HTTP1Error,
    ReadTimedOut,
    WriteTimedOut,
)
from aish.llm.http1.response import Response, decoded, text_encoding

__all__ = [
    "BadHeader",
    "BadResponse",
    "BadURL",
    "ConnectFailed",
    "ConnectTimedOut",
    "ConnectionBroke",
    "HTTP1Error",
    "PlainClient",
    "ReadTimedOut",
    "Response",
    "WriteTimedOut",
    "decoded",
    "text_encoding",
]
