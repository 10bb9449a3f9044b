"""The broker: one streamed request to a model, as typed events, with typed failures.

It looks up the target's wire adapter (`adapters.adapter_for`: no format is a special case),
sends the request with a connect timeout and an idle timeout (the read timeout applies per
network read, so any byte — comment pings included — resets it), lets `transport` map failures
to typed errors, and retries retryable failures only while nothing has been yielded to the
caller. Cancelling the consuming task closes the HTTP stream at once; the caller keeps what it
got.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import re
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from aish.errors import ConfigError
from aish.llm import http1
from aish.llm.adapters import StreamDecoder, adapter_for
from aish.llm.errors import HTTPStatusError, LLMError, ProtocolError
from aish.llm.estimate import estimate_usage
from aish.llm.http_errors import describe_body
from aish.llm.model_client import ModelClient, StreamedResponse
from aish.llm.reply_cap import ReplyCap
from aish.llm.sse import aiter_sse
from aish.llm.transport import MAX_ERROR_BODY, client_for, status_error, timeout_for, typed_errors
from aish.llm.types import (
    Finish,
    Message,
    ModelTarget,
    ReasoningDelta,
    Reply,
    StreamEvent,
    TextDelta,
    ToolCallReady,
    ToolSpec,
    Usage,
)


@dataclass(frozen=True)
class _Wire:
    url: str
    headers: dict[str, str]
    body: dict[str, Any]
    decoder: Callable[[], StreamDecoder]
    decode_whole: Callable[[Any], list[StreamEvent]]


def _wire(
    target: ModelTarget, messages: Sequence[Message], tools: Sequence[ToolSpec] | None
) -> _Wire:
    adapter = adapter_for(target.api)
    return _Wire(
        adapter.chat_url(target),
        adapter.request_headers(target),
        adapter.request_body(target, messages, tools),
        adapter.stream_decoder,
        adapter.decode_whole,
    )


RetryHook = Callable[[LLMError, float, int], None]
"""Called before each retry with the error, the wait in seconds and the attempt number."""


async def stream_chat(
    target: ModelTarget,
    messages: Sequence[Message],
    tools: Sequence[ToolSpec] | None = None,
    *,
    client: ModelClient | None = None,
    on_retry: RetryHook | None = None,
) -> AsyncIterator[StreamEvent]:
    """Stream one reply. Ends with `Usage` (estimated when the server sent none) and `Finish`.

    Raises an `LLMError` subclass; its `partial` holds text already yielded. A request that
    cannot be built as configured raises `ConfigError` at once (never retried).
    """
    wire = _wire(target, messages, tools)
    owned = client is None
    http = client or client_for(target)
    try:
        attempt = 0
        while True:
            yielded = False
            try:
                async for event in _one_attempt(http, target, wire, reuse=not owned):
                    yielded = True
                    yield _well_formed(event)
                return
            except ConfigError as error:
                error.target = error.target or target.name
                raise
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


# A JSON `\\udcff` escape decodes to a lone surrogate: text no file, terminal or later
# request can encode. It becomes U+FFFD where it arrives, so one broken reply breaks nothing.
_SURROGATE = re.compile("[\ud800-\udfff]")


def _well_formed(event: StreamEvent) -> StreamEvent:
    if isinstance(event, TextDelta | ReasoningDelta) and _SURROGATE.search(event.text):
        return replace(event, text=_SURROGATE.sub("\ufffd", event.text))
    if isinstance(event, ToolCallReady):
        call = event.call
        if _SURROGATE.search(call.name + call.arguments):
            fixed = replace(
                call,
                name=_SURROGATE.sub("\ufffd", call.name),
                arguments=_SURROGATE.sub("\ufffd", call.arguments),
            )
            return replace(event, call=fixed)
    return event


async def chat(
    target: ModelTarget,
    messages: Sequence[Message],
    tools: Sequence[ToolSpec] | None = None,
    *,
    client: ModelClient | None = None,
) -> Reply:
    """The whole reply at once (streamed on the wire, so timeouts behave the same)."""
    reply = Reply()
    async for event in stream_chat(target, messages, tools, client=client):
        reply.add(event)
    return reply


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
    http: ModelClient, target: ModelTarget, wire: _Wire, *, reuse: bool = False
) -> AsyncIterator[StreamEvent]:
    """One request's events. `reuse`: the client outlives the request, so the body is read to
    its end (its connection then serves the next request)."""
    decoder = wire.decoder()
    cap = ReplyCap(target.max_reply_chars)
    seen = _Seen(cap.wire_limit, cap.line_limit)
    with typed_errors(wire.url, target, lambda: decoder.text_seen):
        async with http.stream(
            "POST", wire.url, json=wire.body, headers=wire.headers, timeout=timeout_for(target)
        ) as response:
            if not 200 <= response.status_code < 300:
                raise await status_error(response, wire.url)
            content_type = response.headers.get("content-type", "").split(";")[0].strip()
            if content_type == "application/json":
                whole = wire.decode_whole(await _json_body(response, cap.wire_limit))
                for event in seen.completed(wire, cap.take(whole)):
                    yield event
                if cap.reached:
                    for event in seen.completed(wire, [Finish("reply_cap", "reply")]):
                        yield event
                return
            if content_type not in ("text/event-stream", ""):
                body = await _start_of_body(response)
                raise ProtocolError(
                    f"expected an event stream from {wire.url}, got {content_type}: "
                    f"{describe_body(body, content_type)}"
                )
            # Decoded here, not by the client: httpx's aiter_text raises a TypeError for a
            # charset that is a codec but no text encoding (`rot13`), which a server may name.
            encoding = http1.text_encoding(response.headers.get("content-type", ""))
            sses = aiter_sse(seen.counting(http1.decoded(response.aiter_bytes(), encoding)))
            async with contextlib.aclosing(sses):
                async for sse in sses:
                    seen.events += 1
                    events = cap.take(decoder.feed(sse), decoder.tool_chars)
                    for event in seen.completed(wire, events):
                        yield event
                    if cap.reached or seen.over_wire_limit:
                        break
                    if decoder.finished:
                        if reuse:
                            await _rest_of_body(sses, seen)
                        return
            if cap.reached or seen.over_wire_limit:
                # Leaving `http.stream` closes the connection: nothing more is read.
                which = "reply" if cap.reached else "wire"
                for event in seen.completed(wire, [Finish("reply_cap", which)]):
                    yield event
                return
            if seen.chars and not seen.events:
                raise ProtocolError(f"the reply from {wire.url} is not an event stream")
            for event in seen.completed(wire, decoder.end()):
                yield event


# How long the end of a body may take after the reply's last event (`[DONE]`, `message_stop`).
_REST_OF_BODY_S = 0.25


async def _rest_of_body(sses: AsyncIterator[object], seen: _Seen) -> None:
    """Read the body to its end once the reply is complete (usually just the closing chunk),
    so the kept connection serves the next request instead of being closed unread. A server
    that keeps talking, or breaks off now, costs the connection, never the finished reply."""
    # Whatever goes wrong here, the reply is whole: only the connection's reuse is lost.
    with contextlib.suppress(Exception):
        async with asyncio.timeout(_REST_OF_BODY_S):
            async for _ in sses:
                if seen.over_wire_limit:
                    return


class _Seen:
    """What one attempt has received so far: enough to estimate usage and tell garbage from
    a cut."""

    def __init__(self, wire_limit: int, line_limit: int) -> None:
        self.chars = 0
        self.events = 0
        self.over_wire_limit = False
        self._wire_limit = wire_limit
        self._line_limit = line_limit
        self._line = 0  # characters since the last line break
        self._output: list[str] = []

    async def counting(self, pieces: AsyncIterator[str]) -> AsyncIterator[str]:
        """The pieces, counted; they stop past the wire limit, or once one line passes the
        line limit (this runs before the SSE parser, which holds a line until it ends)."""
        async for piece in pieces:
            self.chars += len(piece)
            last_break = max(piece.rfind("\n"), piece.rfind("\r"))
            self._line = len(piece) - 1 - last_break if last_break >= 0 else self._line + len(piece)
            if self.chars > self._wire_limit or self._line > self._line_limit:
                self.over_wire_limit = True
                return
            yield piece

    def completed(self, wire: _Wire, events: list[StreamEvent]) -> list[StreamEvent]:
        """Pass events through; if the reply closes without usage, add an estimate first.

        Decoders emit their closing events (usage, finish) together in one list.
        """
        out: list[StreamEvent] = []
        usage_seen = False
        for event in events:
            if isinstance(event, TextDelta | ReasoningDelta):
                self._output.append(event.text)
            elif isinstance(event, ToolCallReady):
                self._output += (event.call.name, event.call.arguments)
            elif isinstance(event, Usage):
                usage_seen = True
            elif isinstance(event, Finish) and not usage_seen:
                out.append(estimate_usage(wire.body, "".join(self._output)))
            out.append(event)
        return out


async def _start_of_body(response: StreamedResponse) -> bytes:
    """The first `MAX_ERROR_BODY` bytes, enough to say what the server sent instead; the rest
    is never read (leaving the stream closes the connection), so a body without end costs
    nothing."""
    start = b""
    async for piece in response.aiter_bytes():
        start += piece
        if len(start) >= MAX_ERROR_BODY:
            break
    return start[:MAX_ERROR_BODY]


async def _json_body(response: StreamedResponse, limit: int) -> Any:
    """The body as JSON; a body past `limit` bytes is not read further (half a JSON document
    cannot be kept, so that is a ProtocolError)."""
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        chunks.append(chunk)
        size += len(chunk)
        if size > limit:
            raise ProtocolError(f"the reply is larger than {limit:,} bytes: not read further")
    raw = b"".join(chunks)
    try:
        return json.loads(raw)
    except ValueError:
        raise ProtocolError(
            f"the reply is not JSON: {describe_body(raw[:MAX_ERROR_BODY], 'text/plain')}"
        ) from None
