"""HTTP transport policy shared by every request aish makes to a model server.

One place decides how a client is built for an endpoint and how transport failures become the
typed errors of `errors.py`, so the chat broker, the model listing and any later caller report
the same failure the same way — and never echo a request header (an API key) back.
"""

from __future__ import annotations

import asyncio
import socket
import ssl
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import httpx

from aish.endpoints import is_loopback_endpoint
from aish.errors import ConfigError
from aish.llm.errors import (
    AuthError,
    ConnectError,
    HTTPStatusError,
    ModelNotFoundError,
    ProtocolError,
    TimedOut,
    TruncatedStreamError,
)
from aish.llm.http_errors import describe_body, parse_retry_after
from aish.llm.types import ModelTarget

# An error body is read only this far: enough for a message, bounded for garbage.
MAX_ERROR_BODY = 64 * 1024


def client_for(target: ModelTarget) -> httpx.AsyncClient:
    """A new client suited to one endpoint (`ClientPool` keeps them for a session).

    Plain-http endpoints skip loading the CA bundle (~30 ms of start-up) since there is no
    certificate to check; redirects are never followed, so an https URL is never reached
    unverified. Loopback endpoints ignore proxy variables: a proxy cannot reach this
    machine's local servers, and routing them through one would blame the wrong party.
    """
    plain, trust_env = _kind(target)
    return httpx.AsyncClient(verify=not plain, follow_redirects=False, trust_env=trust_env)


def _kind(target: ModelTarget) -> tuple[bool, bool]:
    """(plain http, proxies from the environment): what makes two endpoints' clients differ."""
    return target.endpoint.lower().startswith("http://"), not is_loopback_endpoint(target.endpoint)


class ClientPool:
    """A session's clients, one per kind of endpoint, kept from one request to the next: the
    connection stays open (no new TCP and TLS handshake per question) and the CA bundle is
    loaded once. A client belongs to the event loop it was made on, so a pool asked from
    another loop starts afresh (the old loop's clients went with it)."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._clients: dict[tuple[bool, bool], httpx.AsyncClient] = {}

    def client(self, target: ModelTarget) -> httpx.AsyncClient:
        loop = asyncio.get_running_loop()
        if loop is not self._loop:
            self._loop, self._clients = loop, {}
        kind = _kind(target)
        client = self._clients.get(kind)
        if client is None or client.is_closed:
            client = self._clients[kind] = client_for(target)
        return client

    async def aclose(self) -> None:
        """Close every client of the running loop's (the connections end here)."""
        clients, self._clients = list(self._clients.values()), {}
        if self._loop is not asyncio.get_running_loop():
            return  # made on a loop that is gone: nothing left to close cleanly
        for client in clients:
            await client.aclose()


def timeout_for(target: ModelTarget) -> httpx.Timeout:
    return httpx.Timeout(
        connect=target.connect_timeout_s,
        read=target.idle_timeout_s,
        write=target.idle_timeout_s,
        pool=target.connect_timeout_s,
    )


@contextmanager
def typed_errors(url: str, target: ModelTarget, partial: Callable[[], str]) -> Iterator[None]:
    """Translate whatever the transport raises inside the block into an `LLMError` (or a
    `ConfigError` for a request that cannot be built as configured).

    `partial` returns the text received so far, kept on the error.
    """
    try:
        yield
    except httpx.ConnectTimeout:
        raise TimedOut(
            f"no connection to {url} within {target.connect_timeout_s:g}s", phase="connect"
        ) from None
    except httpx.ConnectError as exc:
        reason = connect_reason(exc)
        raise ConnectError(f"cannot connect to {url} ({reason})", reason=reason) from None
    except httpx.ReadTimeout:
        raise TimedOut(
            f"no data from {url} for {target.idle_timeout_s:g}s (idle timeout)",
            phase="idle",
            partial=partial(),
        ) from None
    except httpx.TimeoutException as exc:  # write or pool: the request could not go out
        raise TimedOut(
            f"sending the request to {url} timed out ({type(exc).__name__})",
            phase="write",
            partial=partial(),
        ) from None
    except (httpx.RemoteProtocolError, httpx.ReadError) as exc:
        raise TruncatedStreamError(
            f"the connection to {url} broke mid-reply ({connect_reason(exc)})",
            partial=partial(),
        ) from None
    except httpx.LocalProtocolError:
        # httpx quotes the offending header in its message; that header may hold the key.
        raise ConfigError(
            f"the request to {url} could not be built (a header, such as the API key, "
            "contains characters HTTP does not allow)"
        ) from None
    except (httpx.InvalidURL, httpx.UnsupportedProtocol, UnicodeError, ValueError) as exc:
        raise ConfigError(f"bad endpoint URL {url}: {type(exc).__name__}") from None
    except httpx.HTTPError as exc:
        raise ProtocolError(f"{url}: {type(exc).__name__}", partial=partial()) from None


async def status_error(response: httpx.Response) -> HTTPStatusError:
    """The typed error for a response whose status is not a success."""
    raw = b""
    async for piece in response.aiter_bytes():
        raw += piece
        if len(raw) >= MAX_ERROR_BODY:
            break
    status = response.status_code
    content_type = response.headers.get("content-type", "").split(";")[0].strip()
    if 300 <= status < 400:
        location = response.headers.get("location", "?")
        detail = f"redirected to {location}; use that as the endpoint"
    else:
        detail = describe_body(raw[:MAX_ERROR_BODY], content_type)
    message = f"HTTP {status} from {response.request.url}" + (f": {detail}" if detail else "")
    kind: type[HTTPStatusError]
    if status in (401, 403):
        kind = AuthError
    elif status == 404:
        kind = ModelNotFoundError
    else:
        kind = HTTPStatusError
    return kind(
        message,
        status=status,
        body=raw.decode("utf-8", "replace"),
        retry_after_s=parse_retry_after(response.headers.get("retry-after")),
    )


def connect_reason(exc: BaseException) -> str:
    """The root cause in a few words: httpx wraps it, and anyio's wording hides it."""
    cause: BaseException | None = exc
    while cause is not None:
        if isinstance(cause, ConnectionRefusedError):
            return "connection refused"
        if isinstance(cause, socket.gaierror):
            return "unknown host"
        if isinstance(cause, ssl.SSLCertVerificationError):
            return f"TLS certificate not trusted: {cause.verify_message}"
        if isinstance(cause, ssl.SSLError):
            return f"TLS error: {cause.reason or cause}"
        cause = cause.__cause__ or cause.__context__
    text = str(exc).strip()
    return text.splitlines()[0][:160] if text else type(exc).__name__
