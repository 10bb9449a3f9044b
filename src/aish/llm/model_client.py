"""What the broker needs from an HTTP client, as a type: the subset both clients provide.

A model request goes through one of two clients (`transport.client_for` picks): aish's own
HTTP/1.1 client (`http1`, the usual case: nothing to import but asyncio) or httpx, when a proxy
from the environment applies. Callers that hold a client (the broker, the session's kept
connections, the second opinion, the preplanner) name this protocol, never either class, so
neither has to be imported to annotate a parameter.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from contextlib import AbstractAsyncContextManager
from typing import Any, NamedTuple, Protocol

__all__ = ["ModelClient", "StreamedResponse", "Timeouts"]


class Timeouts(NamedTuple):
    """Seconds allowed for each phase of a request; None: no limit. A plain 4-tuple, which
    httpx accepts as its `timeout` too."""

    connect: float | None
    read: float | None  # between two reads: the idle timeout
    write: float | None
    pool: float | None  # waiting for a free connection (httpx only; aish's own never waits)


class StreamedResponse(Protocol):
    """A response whose body has not been read yet."""

    @property
    def status_code(self) -> int: ...

    @property
    def headers(self) -> Mapping[str, str]: ...  # case-insensitive names

    async def aread(self) -> bytes: ...

    # Text is decoded by the broker (`http1.decoded`), the same way whichever client read it.
    def aiter_bytes(self) -> AsyncIterator[bytes]: ...


class ModelClient(Protocol):
    """A client that keeps connections between requests until `aclose`."""

    @property
    def is_closed(self) -> bool: ...

    def stream(
        self,
        method: str,
        url: str,
        *,
        json: Any = None,
        headers: Mapping[str, str] | None = None,
        timeout: Timeouts | None = None,
    ) -> AbstractAsyncContextManager[StreamedResponse]: ...

    async def aclose(self) -> None: ...
