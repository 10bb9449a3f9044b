"""The broker: one streamed request to a model, as typed events, with typed failures.

This is the only module in `llm/` that does I/O. It picks the protocol adapter, sends the
request with a connect timeout and an idle timeout (httpx's read timeout applies per network
read, so any byte — comment pings included — resets it), maps every failure to an error from
`errors.py`, and retries retryable failures only while nothing has been yielded to the caller.
Cancelling the consuming task closes the HTTP stream at once; the caller keeps what it got.
"""

from __future__ import annotations

import asyncio
import json
import random
import socket
import ssl
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import httpx
from httpx_sse import ServerSentEvent

from aish.llm import anthropic_protocol, openai_protocol
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
from aish.llm.estimate import estimate_usage
from aish.llm.http_errors import describe_body, parse_retry_after
from aish.llm.sse import aiter_sse
from aish.llm.types import (
    Finish,
    Message,
    ModelTarget,
    ReasoningDelta,
    Reply,
    StreamEvent,
    TextDelta,
    ToolSpec,
    Usage,
)

# An error body is read only this far: enough for a message, bounded for garbage.
_MAX_ERROR_BODY = 64 * 1024


class _Decoder(Protocol):
    text_seen: str

    def feed(self, event: ServerSentEvent) -> list[StreamEvent]: ...
    def end(self) -> list[StreamEvent]: ...

    @property
    def finished(self) -> bool: ...


@dataclass(frozen=True)
class _Wire:
    url: str
    headers: dict[str, str]
    body: dict[str, Any]
    decoder: Callable[[], _Decoder]
    decode_whole: Callable[[Any], list[StreamEvent]]


def _wire(
    target: ModelTarget, messages: Sequence[Message], tools: Sequence[ToolSpec] | None
) -> _Wire:
    if target.api == "anthropic":
        return _Wire(
            anthropic_protocol.messages_url(target),
            anthropic_protocol.request_headers(target),
            anthropic_protocol.request_body(target, messages, tools),
            anthropic_protocol.AnthropicStreamDecoder,
            anthropic_protocol.decode_message,
        )
    return _Wire(
        openai_protocol.chat_url(target),
        openai_protocol.request_headers(target),
        openai_protocol.request_body(target, messages, tools),
        openai_protocol.OpenAIStreamDecoder,
        openai_protocol.decode_completion,
    )


RetryHook = Callable[[LLMError, float, int], None]
"""Called before each retry with the error, the wait in seconds and the attempt number."""


async def stream_chat(
    target: ModelTarget,
    messages: Sequence[Message],
    tools: Sequence[ToolSpec] | None = None,
    *,
    client: httpx.AsyncClient | None = None,
    on_retry: RetryHook | None = None,
) -> AsyncIterator[StreamEvent]:
    """Stream one reply. Ends with `Usage` (estimated when the server sent none) and `Finish`.

    Raises an `LLMError` subclass; its `partial` holds text already yielded.
    """
    wire = _wire(target, messages, tools)
    owned = client is None
    http = client or _client_for(target)
    try:
        attempt = 0
        while True:
            yielded = False
            try:
                async for event in _one_attempt(http, target, wire):
                    yielded = True
                    yield event
                return
            except LLMError as error:
                error.target = error.target or target.name
                wait = _retry_wait(error, attempt, target)
                if yielded or wait is None:
                    raise
                attempt += 1
                if on_retry is not None:
                    on_retry(error, wait, attempt)
                await asyncio.sleep(wait)
    finally:
        if owned:
            await http.aclose()


async def chat(
    target: ModelTarget,
    messages: Sequence[Message],
    tools: Sequence[ToolSpec] | None = None,
    *,
    client: httpx.AsyncClient | None = None,
) -> Reply:
    """The whole reply at once (streamed on the wire, so timeouts behave the same)."""
    reply = Reply()
    async for event in stream_chat(target, messages, tools, client=client):
        reply.add(event)
    return reply


def _client_for(target: ModelTarget) -> httpx.AsyncClient:
    """A client for one target. Loading the CA bundle costs ~30 ms of start-up, so it is
    skipped for plain-http endpoints (local servers), where there is no certificate to check;
    redirects are not followed, so the client never reaches an https URL unverified."""
    plain = target.endpoint.lower().startswith("http://")
    return httpx.AsyncClient(verify=not plain, follow_redirects=False)


def _retry_wait(error: LLMError, attempt: int, target: ModelTarget) -> float | None:
    """Seconds to wait before retrying, or None when this error must surface now."""
    if not error.retryable or attempt >= target.max_retries:
        return None
    if isinstance(error, HTTPStatusError) and error.retry_after_s is not None:
        if error.retry_after_s > target.max_retry_wait_s:
            return None
        return error.retry_after_s
    backoff: float = min(0.5 * 2**attempt, 8.0)
    return backoff * (0.75 + random.random() / 2)


async def _one_attempt(
    http: httpx.AsyncClient, target: ModelTarget, wire: _Wire
) -> AsyncIterator[StreamEvent]:
    timeout = httpx.Timeout(
        connect=target.connect_timeout_s,
        read=target.idle_timeout_s,
        write=target.idle_timeout_s,
        pool=target.connect_timeout_s,
    )
    decoder = wire.decoder()
    text_parts: list[str] = []
    try:
        async with http.stream(
            "POST", wire.url, json=wire.body, headers=wire.headers, timeout=timeout
        ) as response:
            if response.status_code >= 400:
                raise await _status_error(response, target)
            content_type = response.headers.get("content-type", "").split(";")[0].strip()
            if content_type == "application/json":
                events = wire.decode_whole(await _json_body(response, target))
            elif content_type == "text/event-stream" or not content_type:
                events = None
            else:
                body = (await response.aread())[:_MAX_ERROR_BODY]
                raise ProtocolError(
                    f"expected an event stream from {wire.url}, got {content_type}: "
                    f"{describe_body(body, content_type)}"
                )
            if events is not None:
                for event in _completed(events, wire, text_parts):
                    yield event
                return
            async for sse in aiter_sse(response.aiter_text()):
                for event in _completed(decoder.feed(sse), wire, text_parts):
                    yield event
                if decoder.finished:
                    return
            for event in _completed(decoder.end(), wire, text_parts):
                yield event
    except httpx.ConnectTimeout:
        raise TimedOut(
            f"no connection to {wire.url} within {target.connect_timeout_s:g}s", phase="connect"
        ) from None
    except httpx.ConnectError as exc:
        raise ConnectError(f"cannot connect to {wire.url} ({_reason(exc)})") from None
    except httpx.TimeoutException:
        raise TimedOut(
            f"no data from {wire.url} for {target.idle_timeout_s:g}s (idle timeout)",
            phase="idle",
            partial=decoder.text_seen,
        ) from None
    except (httpx.RemoteProtocolError, httpx.ReadError) as exc:
        raise TruncatedStreamError(
            f"the connection to {wire.url} broke mid-reply ({_reason(exc)})",
            partial=decoder.text_seen,
        ) from None
    except httpx.HTTPError as exc:
        raise ProtocolError(f"{wire.url}: {_reason(exc)}", partial=decoder.text_seen) from None


def _completed(events: list[StreamEvent], wire: _Wire, text_parts: list[str]) -> list[StreamEvent]:
    """Pass events through; if the reply closes without usage, add an estimate first.

    Decoders emit their closing events (usage, finish) together in one list.
    """
    out: list[StreamEvent] = []
    usage_seen = False
    for event in events:
        if isinstance(event, TextDelta | ReasoningDelta):
            text_parts.append(event.text)
        elif isinstance(event, Usage):
            usage_seen = True
        elif isinstance(event, Finish) and not usage_seen:
            out.append(estimate_usage(wire.body, "".join(text_parts)))
        out.append(event)
    return out


async def _json_body(response: httpx.Response, target: ModelTarget) -> Any:
    raw = await response.aread()
    try:
        return json.loads(raw)
    except ValueError:
        raise ProtocolError(
            f"the reply is not JSON: {describe_body(raw[:_MAX_ERROR_BODY], 'text/plain')}"
        ) from None


async def _status_error(response: httpx.Response, target: ModelTarget) -> HTTPStatusError:
    raw = b""
    async for piece in response.aiter_bytes():
        raw += piece
        if len(raw) >= _MAX_ERROR_BODY:
            break
    content_type = response.headers.get("content-type", "").split(";")[0].strip()
    detail = describe_body(raw, content_type)
    status = response.status_code
    message = f"HTTP {status} from {response.request.url}" + (f": {detail}" if detail else "")
    retry_after = parse_retry_after(response.headers.get("retry-after"))
    body = raw.decode("utf-8", "replace")
    kind: type[HTTPStatusError]
    if status in (401, 403):
        kind = AuthError
    elif status == 404:
        kind = ModelNotFoundError
    else:
        kind = HTTPStatusError
    return kind(message, status=status, body=body, retry_after_s=retry_after)


def _reason(exc: BaseException) -> str:
    """The root cause in a few words: httpx wraps it (anyio's text hides it entirely)."""
    cause: BaseException | None = exc
    while cause is not None:
        if isinstance(cause, ConnectionRefusedError):
            return "connection refused"
        if isinstance(cause, socket.gaierror):
            return "unknown host"
        if isinstance(cause, ssl.SSLError):
            return f"TLS error: {cause.reason or cause}"
        cause = cause.__cause__ or cause.__context__
    text = str(exc).strip()
    return text.splitlines()[0][:160] if text else type(exc).__name__
