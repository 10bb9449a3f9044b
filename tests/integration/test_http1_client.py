"""aish's own HTTP/1.1 client (`aish.llm.http1`) over real sockets on 127.0.0.1: against the
mock model server, and against servers written byte by byte that misbehave. Whatever a server
sends, the client ends with a reply or a typed error — never a hang, never an unbounded read."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import pytest

from aish.errors import ConfigError
from aish.llm import http1
from aish.llm.broker import chat
from aish.llm.errors import ConnectError, ProtocolError, TimedOut, TruncatedStreamError
from aish.llm.model_client import Timeouts
from aish.llm.transport import ClientPool
from aish.llm.types import Message, ModelTarget
from tests.conftest import ServeFn
from tests.support.raw_http import (
    RawServer,
    chunk,
    read_request,
    response,
    until_closed_by_client,
)

T = TypeVar("T")
QUICK = Timeouts(5.0, 5.0, 5.0, 5.0)


def _run(coroutine: Awaitable[T]) -> T:
    """Run on a fresh loop; a hang becomes a failure instead of a stuck suite (a safety net,
    not a speed bound: every case here ends in milliseconds when it works)."""

    async def bounded() -> T:
        async with asyncio.timeout(60):
            return await coroutine

    return asyncio.run(bounded())


def _chat_body(stream: bool) -> dict[str, Any]:
    return {"model": "testllm", "stream": stream, "messages": [{"role": "user", "content": "hi"}]}


async def _get(client: http1.PlainClient, url: str, timeout: Timeouts = QUICK) -> tuple[int, bytes]:
    async with client.stream("GET", url, timeout=timeout) as reply:
        return reply.status_code, await reply.aread()


# --- against the mock model server ------------------------------------------------------------


def test_a_streamed_reply_arrives_as_text_and_the_connection_is_kept(serve: ServeFn) -> None:
    server = serve({"rules": [], "default": {"text": "héllo ✓ wörld", "chunk_size": 3}})
    url = f"{server.url}/v1/chat/completions"

    async def session() -> list[str]:
        client = http1.PlainClient()
        texts = []
        for _ in range(3):
            async with client.stream("POST", url, json=_chat_body(True), timeout=QUICK) as reply:
                assert reply.status_code == 200
                assert reply.headers.get("content-type", "").startswith("text/event-stream")
                texts.append("".join([piece async for piece in reply.aiter_text()]))
        await client.aclose()
        return texts

    for text in _run(session()):
        deltas = [
            json.loads(line[6:])["choices"][0]["delta"].get("content") or ""
            for line in text.splitlines()
            if line.startswith("data: {")
        ]
        assert "".join(deltas) == "héllo ✓ wörld"
        assert "data: [DONE]" in text
    # Three requests, one connection: the chunked body was read to its terminator each time.
    assert len(server.requests) == 3
    assert len({request["connection"] for request in server.requests}) == 1


def test_a_whole_json_reply_with_content_length(serve: ServeFn) -> None:
    server = serve({"rules": [], "default": {"text": "whole"}})

    async def ask() -> dict[str, Any]:
        client = http1.PlainClient()
        async with client.stream(
            "POST", f"{server.url}/v1/chat/completions", json=_chat_body(False), timeout=QUICK
        ) as reply:
            assert reply.headers["Content-Length"] == str(len(await reply.aread()))
            body: dict[str, Any] = json.loads(await reply.aread())
        await client.aclose()
        return body

    assert _run(ask())["choices"][0]["message"]["content"] == "whole"


def test_an_error_status_is_handed_back_with_its_body(serve: ServeFn) -> None:
    server = serve(
        {"rules": [], "default": {"status": 503, "body": {"error": {"message": "busy"}}}}
    )

    async def ask() -> tuple[int, bytes]:
        client = http1.PlainClient()
        async with client.stream(
            "POST", f"{server.url}/v1/chat/completions", json=_chat_body(True), timeout=QUICK
        ) as reply:
            result = reply.status_code, await reply.aread()
        await client.aclose()
        return result

    status, body = _run(ask())
    assert status == 503 and json.loads(body)["error"]["message"] == "busy"


def test_the_broker_through_a_kept_pool_uses_one_connection(serve: ServeFn) -> None:
    server = serve({"rules": [], "default": {"text": "ok"}})
    target = ModelTarget("local", f"{server.url}/v1", "testllm")

    async def session() -> list[str]:
        pool = ClientPool()
        texts = []
        for question in ("one", "two", "three"):
            client = pool.client(target)
            assert isinstance(client, http1.PlainClient)  # loopback: never through a proxy
            texts.append((await chat(target, [Message("user", question)], client=client)).text)
        await pool.aclose()
        return texts

    assert _run(session()) == ["ok", "ok", "ok"]
    assert len({request["connection"] for request in server.requests}) == 1


# --- kept connections -------------------------------------------------------------------------


def test_a_kept_connection_the_server_dropped_is_replaced_without_an_error() -> None:
    async def answer_once_then_close(reader: asyncio.StreamReader, writer: Any) -> None:
        await read_request(reader)
        # Says nothing about closing, then closes anyway once the client has it (an idle
        # timeout on the server's side).
        writer.write(response(200, b"one"))

    async def session(server: RawServer) -> list[tuple[int, bytes]]:
        client = http1.PlainClient()
        first = await _get(client, server.url + "/a")
        await asyncio.sleep(0.05)  # the server's close arrives while the connection is idle
        second = await _get(client, server.url + "/b")
        await client.aclose()
        return [first, second]

    async def run() -> tuple[list[tuple[int, bytes]], RawServer]:
        async with RawServer(answer_once_then_close) as server:
            return await session(server), server

    replies, server = _run(run())
    assert replies == [(200, b"one"), (200, b"one")]
    assert len(server.ports) == 2


def test_a_kept_connection_that_dies_silently_is_retried_once_on_a_new_one() -> None:
    """The server keeps the first connection open but answers the second request on it by
    closing: nothing was received, so the request goes again on a fresh connection."""
    served: list[int] = []

    async def script(reader: asyncio.StreamReader, writer: Any) -> None:
        served.append(1)
        await read_request(reader)
        writer.write(response(200, b"first"))
        await writer.drain()
        if len(served) == 1:
            await read_request(reader)  # the second request: closed unanswered

        else:
            while await read_request(reader):
                writer.write(response(200, b"again"))

    async def run() -> tuple[list[tuple[int, bytes]], int]:
        async with RawServer(script) as server:
            client = http1.PlainClient()
            replies = [await _get(client, server.url), await _get(client, server.url)]
            await client.aclose()
            return replies, len(server.ports)

    replies, connections = _run(run())
    assert replies == [(200, b"first"), (200, b"first")]
    assert connections == 2


def test_a_body_left_unread_closes_its_connection() -> None:
    async def script(reader: asyncio.StreamReader, writer: Any) -> None:
        while await read_request(reader):
            writer.write(response(200, b"x" * 1000))

    async def run() -> int:
        async with RawServer(script) as server:
            client = http1.PlainClient()
            for _ in range(2):
                async with client.stream("GET", server.url, timeout=QUICK) as reply:
                    assert reply.status_code == 200  # body not read
            await client.aclose()
            return len(server.ports)

    assert _run(run()) == 2


def test_connection_close_and_a_body_without_length_are_not_kept() -> None:
    async def until_close(reader: asyncio.StreamReader, writer: Any) -> None:
        await read_request(reader)
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nall of it")
        await writer.drain()
        writer.close()

    async def run() -> tuple[list[tuple[int, bytes]], int]:
        async with RawServer(until_close) as server:
            client = http1.PlainClient()
            replies = [await _get(client, server.url), await _get(client, server.url)]
            await client.aclose()
            return replies, len(server.ports)

    replies, connections = _run(run())
    assert replies == [(200, b"all of it")] * 2 and connections == 2


# --- what a hostile or broken server sends ----------------------------------------------------


def _one_reply(raw: bytes, *, then_close: bool = True) -> Callable[..., Awaitable[None]]:
    async def script(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        writer.write(raw)
        await writer.drain()
        if not then_close:
            await until_closed_by_client(reader)

    return script


def _failure(script: Callable[..., Awaitable[None]], timeout: Timeouts = QUICK) -> BaseException:
    async def run() -> BaseException:
        async with RawServer(script) as server:
            client = http1.PlainClient()
            try:
                async with client.stream("GET", server.url, timeout=timeout) as reply:
                    async for _ in reply.aiter_bytes():
                        pass
            except http1.HTTP1Error as error:
                return error
            finally:
                await client.aclose()
        raise AssertionError("the request succeeded")

    return _run(run())


CHUNKED_HEAD = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"


@pytest.mark.parametrize(
    "body",
    [
        b"zz\r\nhello\r\n0\r\n\r\n",  # not hex
        b"-5\r\nhello\r\n0\r\n\r\n",  # negative
        b"3\r\nhello\r\n0\r\n\r\n",  # more data than the size says
        b"11111111111111111111\r\n",  # more hex digits than any length needs
        b"5" + b" " * 20_000 + b"\r\nhello\r\n",  # a size line past the line bound
    ],
)
def test_bad_chunk_framing_is_a_bad_response(body: bytes) -> None:
    assert isinstance(_failure(_one_reply(CHUNKED_HEAD + body)), http1.BadResponse)


def test_a_body_cut_inside_a_chunk_is_a_broken_connection() -> None:
    error = _failure(_one_reply(CHUNKED_HEAD + b"64\r\n" + b"x" * 10))
    assert isinstance(error, http1.ConnectionBroke) and not error.nothing_received


def test_a_body_cut_before_its_content_length_is_a_broken_connection() -> None:
    error = _failure(_one_reply(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nshort"))
    assert isinstance(error, http1.ConnectionBroke)


def test_a_connection_closed_before_the_status_line_is_a_broken_connection() -> None:
    error = _failure(_one_reply(b""))
    assert isinstance(error, http1.ConnectionBroke) and error.nothing_received


def test_a_header_section_that_never_ends_stops_at_its_bound() -> None:
    stopped: list[bool] = []

    async def endless(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        writer.write(b"HTTP/1.1 200 OK\r\n")
        try:
            for n in range(10_000_000):
                writer.write(f"X-Header-{n}: {'v' * 50}\r\n".encode())
                await writer.drain()
        except ConnectionError:
            stopped.append(True)  # the client gave up and closed: the server could not go on

    error = _failure(endless)
    assert isinstance(error, http1.BadResponse) and "header" in str(error)
    assert stopped == [True]


def test_a_huge_header_line_stops_at_the_line_bound() -> None:
    raw = b"HTTP/1.1 200 OK\r\nX-Big: " + b"a" * 5_000_000 + b"\r\n\r\n"
    error = _failure(_one_reply(raw, then_close=False))
    assert isinstance(error, http1.BadResponse) and "longer than" in str(error)


def test_many_small_headers_stop_at_the_header_count() -> None:
    raw = b"HTTP/1.1 200 OK\r\n" + b"A: b\r\n" * 1000 + b"\r\n"
    assert isinstance(_failure(_one_reply(raw, then_close=False)), http1.BadResponse)


@pytest.mark.parametrize(
    "head",
    [
        b"SSH-2.0-OpenSSH_9.6\r\n\r\n",
        b"HTTP/1.1 2000 OK\r\n\r\n",
        b"HTTP/2 200\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nBad Header Name: x\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nno colon here\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!",
        b"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
        b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n",
    ],
)
def test_a_malformed_head_is_a_bad_response(head: bytes) -> None:
    assert isinstance(_failure(_one_reply(head, then_close=False)), http1.BadResponse)


def test_an_idle_server_times_out_on_the_read_timeout() -> None:
    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        writer.write(CHUNKED_HEAD + chunk(b"data: first\n\n"))
        await writer.drain()
        await until_closed_by_client(reader)  # then nothing more

    error = _failure(silent, Timeouts(5.0, 0.3, 5.0, 5.0))
    assert isinstance(error, http1.ReadTimedOut)


def test_a_server_that_reads_nothing_times_out_on_the_write_timeout() -> None:
    async def deaf(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await asyncio.sleep(30)  # reads nothing: the socket buffers fill up

    async def run() -> BaseException:
        async with RawServer(deaf) as server:
            client = http1.PlainClient()
            big = {"pad": "x" * 64_000_000}
            try:
                async with client.stream(
                    "POST", server.url, json=big, timeout=Timeouts(5.0, 5.0, 0.3, 5.0)
                ):
                    pass
            except http1.HTTP1Error as error:
                return error
            finally:
                await client.aclose()
        raise AssertionError("sent 64 MB to a server that reads nothing")

    assert isinstance(_run(run()), http1.WriteTimedOut)


def test_a_refused_connection_keeps_its_cause() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # nothing listens once it is closed

    async def run() -> BaseException:
        client = http1.PlainClient()
        try:
            await _get(client, f"http://127.0.0.1:{port}/")
        except http1.HTTP1Error as error:
            return error
        raise AssertionError("connected to a closed port")

    error = _run(run())
    assert isinstance(error, http1.ConnectFailed)
    assert isinstance(error.__cause__, ConnectionRefusedError)


def test_a_redirect_is_handed_back_not_followed() -> None:
    raw = response(302, b"", "Location: http://127.0.0.1:1/elsewhere")

    async def run() -> tuple[int, str | None, int]:
        async with RawServer(_one_reply(raw, then_close=False)) as server:
            client = http1.PlainClient()
            async with client.stream("POST", server.url, json={}, timeout=QUICK) as reply:
                result = reply.status_code, reply.headers.get("location")
            await client.aclose()
            return (*result, len(server.ports))

    assert _run(run()) == (302, "http://127.0.0.1:1/elsewhere", 1)


# --- text decoding ----------------------------------------------------------------------------


def _text_of(head: bytes, pieces: list[bytes]) -> str:
    async def script(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        writer.write(head)
        for piece in pieces:  # each chunk flushed on its own, so the client reads it apart
            writer.write(chunk(piece))
            await writer.drain()
            await asyncio.sleep(0.01)
        writer.write(b"0\r\n\r\n")

    async def run() -> str:
        async with RawServer(script) as server:
            client = http1.PlainClient()
            async with client.stream("GET", server.url, timeout=QUICK) as reply:
                text = "".join([piece async for piece in reply.aiter_text()])
            await client.aclose()
            return text

    return _run(run())


def test_text_split_inside_a_character_and_invalid_bytes_replaced() -> None:
    whole = "é✓🎉".encode() + b"\xff\xfe bad " + b"ok"
    pieces = [whole[:1], whole[1:4], whole[4:9], whole[9:]]  # cuts inside é, ✓ and 🎉
    head = (
        b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
    )
    assert _text_of(head, pieces) == whole.decode("utf-8", "replace")


def test_text_in_the_declared_charset() -> None:
    head = (
        b"HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=ISO-8859-1\r\n"
        b"Transfer-Encoding: chunked\r\n\r\n"
    )
    assert _text_of(head, ["naïve".encode("latin-1")]) == "naïve"


def test_an_unknown_charset_reads_as_utf8() -> None:
    head = (
        b"HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=no-such-charset\r\n"
        b"Transfer-Encoding: chunked\r\n\r\n"
    )
    assert _text_of(head, ["naïve".encode()]) == "naïve"


# --- the request side -------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["sk-secret\r\nX-Injected: 1", "sk-secret\n", "sk-sécret"])
def test_a_header_http_cannot_carry_is_refused_without_quoting_it(value: str) -> None:
    async def run() -> BaseException:
        client = http1.PlainClient()
        try:
            async with client.stream(
                "POST", "http://127.0.0.1:9/", json={}, headers={"Authorization": value}
            ):
                pass
        except http1.HTTP1Error as error:
            return error
        raise AssertionError("sent a header with a line break")

    error = _run(run())
    assert isinstance(error, http1.BadHeader) and "secret" not in str(error)


@pytest.mark.parametrize(
    "url", ["ftp://127.0.0.1/", "http:///nohost", "http://127.0.0.1:99999/", "localhost:8080"]
)
def test_a_url_that_cannot_be_requested_is_a_bad_url(url: str) -> None:
    async def run() -> BaseException:
        client = http1.PlainClient()
        try:
            await _get(client, url)
        except http1.HTTP1Error as error:
            return error
        raise AssertionError(f"requested {url}")

    assert isinstance(_run(run()), http1.BadURL)


def test_the_request_the_server_receives() -> None:
    seen: list[Any] = []

    async def script(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        seen.append(await read_request(reader))
        writer.write(response(200, b"{}"))

    async def run() -> str:
        async with RawServer(script) as server:
            client = http1.PlainClient()
            async with client.stream(
                "POST",
                server.url + "/v1/chat completions?x=ü",
                json={"text": "héllo"},
                headers={"Authorization": "Bearer k", "accept": "text/event-stream"},
                timeout=QUICK,
            ) as reply:
                await reply.aread()
            await client.aclose()
            return server.url

    url = _run(run())
    request = seen[0]
    assert request.line == "POST /v1/chat%20completions?x=%C3%BC HTTP/1.1"
    assert request.headers["host"] == url.removeprefix("http://")
    assert request.headers["authorization"] == "Bearer k"
    assert request.headers["accept"] == "text/event-stream"  # the caller's, not the default
    assert request.headers["content-type"] == "application/json"
    assert json.loads(request.body) == {"text": "héllo"}


def test_cancelling_a_stream_closes_its_connection_at_once() -> None:
    async def endless(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        writer.write(CHUNKED_HEAD)
        for _ in range(10_000):
            writer.write(chunk(b"data: more\n\n"))
            await writer.drain()
            await asyncio.sleep(0.05)

    async def run() -> RawServer:
        async with RawServer(endless) as server:
            client = http1.PlainClient()
            got_some = asyncio.Event()

            async def consume() -> None:
                async with client.stream("GET", server.url, timeout=QUICK) as reply:
                    async for _ in reply.aiter_bytes():
                        got_some.set()

            task = asyncio.create_task(consume())
            await got_some.wait()
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            while not server.client_closed:  # the server's next write finds it closed
                await asyncio.sleep(0.01)
            await client.aclose()
            return server

    assert len(_run(run()).client_closed) == 1


# --- the typed errors the broker reports ------------------------------------------------------


def _broker_error(script: Callable[..., Awaitable[None]], idle_s: float = 5.0) -> BaseException:
    async def run() -> BaseException:
        async with RawServer(script) as server:
            target = ModelTarget(
                "raw", f"{server.url}/v1", "m", max_retries=0, idle_timeout_s=idle_s
            )
            try:
                await chat(target, [Message("user", "hi")])
            except (ConfigError, ConnectError, ProtocolError, TimedOut, TruncatedStreamError) as e:
                return e
        raise AssertionError("the broker returned a reply")

    return _run(run())


def test_broker_garbage_instead_of_http_is_a_protocol_error() -> None:
    error = _broker_error(_one_reply(b"HTTP/1.1 200 OK\r\n" + b"X: y\r\n" * 5000, then_close=False))
    assert isinstance(error, ProtocolError) and "valid HTTP" in str(error)


def test_broker_a_cut_mid_chunk_is_truncation_with_the_partial_text() -> None:
    event = b'data: {"choices":[{"index":0,"delta":{"content":"par"}}]}\n\n'
    head = (
        b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
    )
    error = _broker_error(_one_reply(head + chunk(event) + b"40\r\ndata: {"))
    assert isinstance(error, TruncatedStreamError) and error.partial == "par"


def test_broker_an_idle_server_is_an_idle_timeout() -> None:
    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        await until_closed_by_client(reader)

    error = _broker_error(silent, idle_s=0.3)
    assert isinstance(error, TimedOut) and error.phase == "idle"


def test_broker_a_key_http_cannot_carry_is_a_config_error_that_never_quotes_it() -> None:
    async def run() -> BaseException:
        target = ModelTarget(
            "k", "http://127.0.0.1:9/v1", "m", api_key="sk-live-123\r\nX-Evil: 1", max_retries=0
        )
        try:
            await chat(target, [Message("user", "hi")])
        except ConfigError as error:
            return error
        raise AssertionError("sent the request")

    error = _run(run())
    assert "header" in str(error) and "sk-live" not in str(error) and "Evil" not in str(error)


def test_broker_a_server_that_never_accepts_is_a_connect_timeout() -> None:
    """A listener whose accept queue is full drops further handshakes (Linux): the connection
    never completes, so the connect timeout decides."""

    async def run() -> BaseException:
        with socket.socket() as listener:
            listener.bind(("127.0.0.1", 0))
            listener.listen(0)
            port = listener.getsockname()[1]
            fillers = []
            for _ in range(3):  # fill the queue; nobody ever accepts
                filler = socket.socket()
                filler.setblocking(False)
                with contextlib.suppress(BlockingIOError):
                    filler.connect(("127.0.0.1", port))
                fillers.append(filler)
            target = ModelTarget(
                "full", f"http://127.0.0.1:{port}/v1", "m", max_retries=0, connect_timeout_s=0.5
            )
            try:
                await chat(target, [Message("user", "hi")])
            except TimedOut as error:
                return error
            finally:
                for filler in fillers:
                    filler.close()
        raise AssertionError("connected to a listener that never accepts")

    error = _run(run())
    assert isinstance(error, TimedOut) and error.phase == "connect"
