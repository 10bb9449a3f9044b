"""HTTP transport policy shared by every request aish makes to a model server.

One place decides which client carries a request to an endpoint and how transport failures
become the typed errors of `errors.py`, so the chat broker, the model listing and any later
caller report the same failure the same way — and never echo a request header (an API key)
back.

Two clients: aish's own HTTP/1.1 client (`http1`) whenever no proxy applies — loopback
endpoints always, others when the proxy variables do not route them through a proxy — and
httpx when one does (httpx reads the proxy settings as it always has). httpx, httpcore and
anyio are imported only in that second case: they cost a large share of a one-shot `aish ask`.
"""

from __future__ import annotations

import asyncio
import socket
import ssl
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from aish.endpoints import is_loopback_endpoint, shown_endpoint
from aish.errors import ConfigError
from aish.llm import http1
from aish.llm.errors import (
    AuthError,
    ConnectError,
    HTTPStatusError,
    LLMError,
    ModelNotFoundError,
    ProtocolError,
    TimedOut,
    TruncatedStreamError,
)
from aish.llm.http_errors import describe_body, parse_retry_after
from aish.llm.model_client import ModelClient, StreamedResponse, Timeouts
from aish.llm.proxy_env import proxy_applies
from aish.llm.types import ModelTarget

if TYPE_CHECKING:
    import httpx

# An error body is read only this far: enough for a message, bounded for garbage.
MAX_ERROR_BODY = 64 * 1024

# What makes two endpoints' clients differ: "direct" (aish's own client, every origin), or
# through httpx with a proxy, per (plain http: no CA bundle to load).
_ClientKind = tuple[str, bool]
_DIRECT: _ClientKind = ("direct", False)


def client_for(target: ModelTarget) -> ModelClient:
    """A new client suited to one endpoint (`ClientPool` keeps them for a session)."""
    if _kind(target) == _DIRECT:
        return http1.PlainClient()
    return httpx_client_for(target)


def httpx_client_for(target: ModelTarget) -> httpx.AsyncClient:
    """An httpx client for `target`, for the callers that need more of httpx than a streamed
    request (`listing`, `tokenize`) and for requests that go through a proxy.

    Plain-http endpoints skip loading the CA bundle (~30 ms of start-up) since there is no
    certificate to check; redirects are never followed, so an https URL is never reached
    unverified. Loopback endpoints ignore proxy variables: a proxy cannot reach this
    machine's local servers, and routing them through one would blame the wrong party.
    """
    import httpx

    plain = target.endpoint.lower().startswith("http://")
    trust_env = not is_loopback_endpoint(target.endpoint)
    return httpx.AsyncClient(verify=not plain, follow_redirects=False, trust_env=trust_env)


def _kind(target: ModelTarget) -> _ClientKind:
    if is_loopback_endpoint(target.endpoint) or not proxy_applies(target.endpoint):
        return _DIRECT
    return ("proxied", target.endpoint.lower().startswith("http://"))


class ClientPool:
    """A session's clients, one per kind of endpoint, kept from one request to the next: the
    connection stays open (no new TCP and TLS handshake per question) and the CA bundle is
    loaded once. A client belongs to the event loop it was made on, so a pool asked from
    another loop starts afresh (the old loop's clients went with it). Which kind an endpoint
    takes is decided per request: a proxy variable set between two questions applies to the
    second."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._clients: dict[_ClientKind, ModelClient] = {}

    def client(self, target: ModelTarget) -> ModelClient:
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


def timeout_for(target: ModelTarget) -> Timeouts:
    return Timeouts(
        connect=target.connect_timeout_s,
        read=target.idle_timeout_s,
        write=target.idle_timeout_s,
        pool=target.connect_timeout_s,
    )


@contextmanager
def typed_errors(url: str, target: ModelTarget, partial: Callable[[], str]) -> Iterator[None]:
    """Translate whatever the transport raises inside the block into an `LLMError` (or a
    `ConfigError` for a request that cannot be built as configured).

    `partial` returns the text received so far, kept on the error. `url` is quoted without
    the credentials it may hold.
    """
    url = shown_endpoint(url)
    try:
        yield
    except http1.HTTP1Error as exc:
        raise _typed_direct(exc, url, target, partial) from None
    except Exception as exc:
        typed = _typed_httpx(exc, url, target, partial)
        if typed is not None:
            raise typed from None
        if isinstance(exc, UnicodeError | ValueError) and not isinstance(exc, LLMError):
            raise ConfigError(f"bad endpoint URL {url}: {type(exc).__name__}") from None
        raise


def _typed_direct(
    exc: http1.HTTP1Error, url: str, target: ModelTarget, partial: Callable[[], str]
) -> LLMError | ConfigError:
    """The typed error for a failure of aish's own client: the same as httpx's for the same
    event, except that garbage from the server (not HTTP, or past its bounds) is a
    `ProtocolError` rather than a cut."""
    if isinstance(exc, http1.ConnectTimedOut):
        return TimedOut(
            f"no connection to {url} within {target.connect_timeout_s:g}s", phase="connect"
        )
    if isinstance(exc, http1.ConnectFailed):
        reason = connect_reason(exc)
        return ConnectError(f"cannot connect to {url} ({reason})", reason=reason)
    if isinstance(exc, http1.ReadTimedOut):
        return TimedOut(
            f"no data from {url} for {target.idle_timeout_s:g}s (idle timeout)",
            phase="idle",
            partial=partial(),
        )
    if isinstance(exc, http1.WriteTimedOut):
        return TimedOut(
            f"sending the request to {url} timed out ({exc})", phase="write", partial=partial()
        )
    if isinstance(exc, http1.ConnectionBroke):
        return TruncatedStreamError(
            f"the connection to {url} broke mid-reply ({exc})", partial=partial()
        )
    if isinstance(exc, http1.BadResponse):
        return ProtocolError(f"{url} did not answer with valid HTTP: {exc}", partial=partial())
    if isinstance(exc, http1.BadHeader):
        return _bad_header(url)
    return ConfigError(f"bad endpoint URL {url}: {exc}")


def _typed_httpx(
    exc: Exception, url: str, target: ModelTarget, partial: Callable[[], str]
) -> LLMError | ConfigError | None:
    """The typed error for an httpx failure; None for anything else (httpx is never imported
    here: when no request went through it, nothing it raised can be in flight)."""
    httpx: Any = sys.modules.get("httpx")
    if httpx is None or not isinstance(exc, httpx.HTTPError | httpx.InvalidURL):
        return None
    if isinstance(exc, httpx.ConnectTimeout):
        return TimedOut(
            f"no connection to {url} within {target.connect_timeout_s:g}s", phase="connect"
        )
    if isinstance(exc, httpx.ConnectError):
        reason = connect_reason(exc)
        return ConnectError(f"cannot connect to {url} ({reason})", reason=reason)
    if isinstance(exc, httpx.ReadTimeout):
        return TimedOut(
            f"no data from {url} for {target.idle_timeout_s:g}s (idle timeout)",
            phase="idle",
            partial=partial(),
        )
    if isinstance(exc, httpx.TimeoutException):  # write or pool: the request could not go out
        return TimedOut(
            f"sending the request to {url} timed out ({type(exc).__name__})",
            phase="write",
            partial=partial(),
        )
    if isinstance(exc, httpx.RemoteProtocolError | httpx.ReadError):
        return TruncatedStreamError(
            f"the connection to {url} broke mid-reply ({connect_reason(exc)})",
            partial=partial(),
        )
    if isinstance(exc, httpx.LocalProtocolError):
        # httpx quotes the offending header in its message; that header may hold the key.
        return _bad_header(url)
    if isinstance(exc, httpx.InvalidURL | httpx.UnsupportedProtocol):
        return ConfigError(f"bad endpoint URL {url}: {type(exc).__name__}")
    return ProtocolError(f"{url}: {type(exc).__name__}", partial=partial())


def _bad_header(url: str) -> ConfigError:
    return ConfigError(
        f"the request to {url} could not be built (a header, such as the API key, "
        "contains characters HTTP does not allow)"
    )


async def status_error(response: StreamedResponse, url: str) -> HTTPStatusError:
    """The typed error for a response to `url` whose status is not a success."""
    url = shown_endpoint(url)
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
    message = f"HTTP {status} from {url}" + (f": {detail}" if detail else "")
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
