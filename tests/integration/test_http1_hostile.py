"""aish's own HTTP/1.1 client and the broker facing a hostile model server: what a reviewer
found by attacking them, each case a real socket on 127.0.0.1 (`tests.support.raw_http`).

A hostile server must cost a typed error or a bounded read, never a crash, a hang until the
idle timeout on a connection nobody answers, or memory without bound.
"""

from __future__ import annotations

import asyncio
import base64
from collections.abc import Awaitable
from typing import Any, TypeVar

import pytest

from aish.llm import http1
from aish.llm.broker import chat
from aish.llm.errors import LLMError, ProtocolError
from aish.llm.model_client import Timeouts
from aish.llm.types import Message, ModelTarget
from tests.support.raw_http import RawServer, chunk, read_request, response

T = TypeVar("T")
QUICK = Timeouts(5.0, 5.0, 5.0, 5.0)


def _run(coroutine: Awaitable[T]) -> T:
    """A fresh loop; a hang becomes a failure (a safety net, not a speed bound)."""

    async def bounded() -> T:
        async with asyncio.timeout(60):
            return await coroutine

    return asyncio.run(bounded())


# --- a charset that is not a text encoding ----------------------------------------------------

SSE_EVENT = b'data: {"choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":"stop"}]}\n\n'


@pytest.mark.parametrize("charset", ["rot13", "base64", "zlib", "hex", "uu"])
def test_a_charset_that_is_no_text_encoding_reads_as_utf8(charset: str) -> None:
    """Python's codec registry also holds str-to-str and bytes-to-bytes transforms; one named
    as the charset must not turn the body into a TypeError (or a decompression)."""

    async def script(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        head = (
            f"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream; charset={charset}\r\n"
            "Transfer-Encoding: chunked\r\n\r\n"
        ).encode()
        writer.write(head + chunk(SSE_EVENT) + chunk(b"data: [DONE]\n\n") + b"0\r\n\r\n")

    async def run() -> str:
        async with RawServer(script) as server:
            target = ModelTarget("raw", f"{server.url}/v1", "m", max_retries=0)
            try:
                return (await chat(target, [Message("user", "hi")])).text
            except LLMError as error:  # a typed error would do too; a TypeError would not
                return type(error).__name__

    assert _run(run()) == "hi"


# --- a body of an unexpected type is read only as far as a message needs ----------------------


def test_broker_reads_a_huge_body_of_an_unexpected_type_only_to_its_bound() -> None:
    """A 200 with `text/html` is a ProtocolError quoting the start of the body; reading the
    whole body first let a server fill memory (the reply caps count only event streams)."""
    total = 48 * 1024 * 1024
    sent: list[int] = [0]

    async def script(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        writer.write(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nTransfer-Encoding: chunked\r\n\r\n"
        )
        piece = chunk(b"<p>" + b"x" * (256 * 1024 - 3))
        while sent[0] < total:
            writer.write(piece)
            await writer.drain()  # raises once the client has closed
            sent[0] += len(piece)
        writer.write(b"0\r\n\r\n")

    async def run() -> BaseException:
        async with RawServer(script) as server:
            target = ModelTarget("raw", f"{server.url}/v1", "m", max_retries=0)
            try:
                await chat(target, [Message("user", "hi")])
            except ProtocolError as error:
                return error
        raise AssertionError("the broker returned a reply")

    error = _run(run())
    assert "text/html" in str(error)
    assert sent[0] < total  # the client closed long before the server was done


# --- kept connections ---------------------------------------------------------------------------


def test_a_connection_kept_idle_past_its_expiry_is_not_reused() -> None:
    """A kept connection that a NAT or firewall dropped silently (no FIN ever arrives) looks
    open; a request sent on it waits out the whole idle timeout. httpx's pool kept one 5 s
    at most; aish's own kept them without limit. Past its expiry a connection is replaced."""

    async def script(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        first = len(server_ports) == 1
        await read_request(reader)
        writer.write(response(200, b"ok"))
        await writer.drain()
        if first:  # then a black hole: the next request is never answered, never refused
            await read_request(reader)
            await asyncio.sleep(3600)
        while await read_request(reader):
            writer.write(response(200, b"ok"))

    server_ports: list[int] = []

    async def run() -> list[bytes]:
        async with RawServer(script) as server:
            server.ports = server_ports
            client = http1.PlainClient(keep_idle_s=0.2)
            bodies = []
            for _ in range(2):
                async with client.stream("GET", server.url, timeout=QUICK) as reply:
                    bodies.append(await reply.aread())
                await asyncio.sleep(0.4)  # longer than the expiry
            await client.aclose()
            return bodies

    assert _run(run()) == [b"ok", b"ok"]
    assert len(server_ports) == 2


# --- credentials in the endpoint URL ------------------------------------------------------------


def test_credentials_in_the_url_are_sent_as_basic_auth_as_httpx_did() -> None:
    """An endpoint behind basic auth (`https://user:pass@host/v1`): httpx sent the URL's
    credentials as `Authorization: Basic`; dropping them turned every request into a 401."""
    seen: list[Any] = []

    async def script(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        seen.append(await read_request(reader))
        writer.write(response(200, b"{}"))

    async def run() -> None:
        async with RawServer(script) as server:
            url = server.url.replace("http://", "http://us%40er:p%3Ass@") + "/v1/models"
            client = http1.PlainClient()
            async with client.stream("GET", url, timeout=QUICK) as reply:
                await reply.aread()
            await client.aclose()

    _run(run())
    expected = "Basic " + base64.b64encode(b"us@er:p:ss").decode()
    assert seen[0].headers["authorization"] == expected
    assert "@" not in seen[0].headers["host"]


def test_errors_quote_an_endpoint_without_the_credentials_written_into_it() -> None:
    """`https://user:pass@host/v1` sends the password as Basic auth; the status line, the
    session log and the error a refused or failing request turns into must not show it."""

    async def refuse(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        writer.write(response(401, b'{"error": {"message": "bad key"}}'))

    async def run() -> list[str]:
        said: list[str] = []
        async with RawServer(refuse) as server:
            endpoint = server.url.replace("http://", "http://me:s3cret-pw@") + "/v1"
            for url in (endpoint, endpoint.rsplit(":", 1)[0] + ":9/v1"):  # 401, then refused
                target = ModelTarget("raw", url, "m", max_retries=0)
                try:
                    await chat(target, [Message("user", "hi")])
                except LLMError as error:
                    said.append(str(error))
        return said

    said = _run(run())
    assert len(said) == 2 and "HTTP 401" in said[0] and "cannot connect" in said[1]
    for message in said:
        assert "s3cret-pw" not in message and "***@127.0.0.1" in message


# --- ambiguous framing --------------------------------------------------------------------------


def test_a_reply_framed_by_both_chunks_and_a_length_costs_its_connection() -> None:
    """Transfer-Encoding and Content-Length together: the chunks decide, but the two readings
    disagree on where the next response starts (RFC 9112 §6.3: smuggling or response
    splitting, to be handled as an error), so the connection is not reused."""

    async def script(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while await read_request(reader):
            writer.write(
                b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n"
                + chunk(b"ok")
                + b"0\r\n\r\n"
            )

    async def run() -> tuple[list[bytes], int]:
        async with RawServer(script) as server:
            client = http1.PlainClient()
            bodies = []
            for _ in range(2):
                async with client.stream("GET", server.url, timeout=QUICK) as reply:
                    bodies.append(await reply.aread())
            await client.aclose()
            return bodies, len(server.ports)

    assert _run(run()) == ([b"ok", b"ok"], 2)
