"""aish-testllm's injected failures, observed the way a client sees them over real HTTP."""

from __future__ import annotations

import socket
import struct
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from aish_testllm.server import TestLLMServer

from .test_testllm_support import collect_openai, openai_chunks, parse_sse

BODY = {"model": "m", "stream": True, "messages": [{"role": "user", "content": "hi"}]}
CHAT = "/v1/chat/completions"


@pytest.fixture
def llm() -> Iterator[Any]:
    servers: list[TestLLMServer] = []

    def start(default: dict[str, Any]) -> TestLLMServer:
        servers.append(TestLLMServer({"default": default}))
        return servers[-1]

    yield start
    for server in servers:
        server.close()


def _read_until_broken(url: str, body: dict[str, Any] = BODY) -> tuple[bytes, Exception | None]:
    """Everything received before the stream ended, and the error that ended it (if any)."""
    received = b""
    try:
        with httpx.stream("POST", url + CHAT, json=body, timeout=5) as response:
            for data in response.iter_raw():
                received += data
    except httpx.HTTPError as exc:
        return received, exc
    return received, None


# --- HTTP status replies -----------------------------------------------------------------------


def test_status_with_default_openai_body(llm: Any) -> None:
    server = llm({"status": 500})
    response = httpx.post(server.url + CHAT, json=BODY)
    assert response.status_code == 500
    assert response.json() == {
        "error": {"message": "Internal Server Error", "type": "server_error", "code": 500}
    }


def test_status_with_headers_and_custom_json_body(llm: Any) -> None:
    server = llm(
        {"status": 429, "headers": {"Retry-After": 2}, "body": {"error": {"message": "slow"}}}
    )
    response = httpx.post(server.url + CHAT, json=BODY)
    assert (response.status_code, response.headers["retry-after"]) == (429, "2")
    assert response.json() == {"error": {"message": "slow"}}


def test_status_with_html_body(llm: Any) -> None:
    page = "<html><title>502 Bad Gateway</title></html>"
    server = llm({"status": 502, "body": page, "content_type": "text/html"})
    response = httpx.post(server.url + CHAT, json=BODY)
    assert response.status_code == 502
    assert response.headers["content-type"] == "text/html"
    assert response.text == page


# --- mid-stream errors -------------------------------------------------------------------------


def test_openai_style_error_has_no_done(llm: Any) -> None:
    server = llm({"text": "partial answer", "chunk_size": 4, "error_after": 2})
    response = httpx.post(server.url + CHAT, json=BODY)
    events = parse_sse(response.text)
    assert events[-1].json() == {
        "error": {
            "message": "The server had an error while processing your request. Sorry about that!",
            "type": "server_error",
        }
    }
    assert "[DONE]" not in response.text
    chunks = [e.json() for e in events[:-1]]
    assert collect_openai(chunks).text == "partial "
    assert collect_openai(chunks).finish_reason is None


def test_openrouter_style_error_chunk_then_done(llm: Any) -> None:
    server = llm({"text": "abcdef", "chunk_size": 2, "error_after": 1, "error_style": "openrouter"})
    chunks = openai_chunks(parse_sse(httpx.post(server.url + CHAT, json=BODY).text))
    error_chunk = chunks[-1]
    assert error_chunk["error"] == {"code": 502, "message": "Provider returned error"}
    assert error_chunk["choices"] == [
        {"index": 0, "delta": {"content": ""}, "finish_reason": "error"}
    ]
    assert collect_openai(chunks).text == "ab"


def test_legacy_error_line(llm: Any) -> None:
    server = llm(
        {"text": "abc", "error_after": 0, "error_style": "legacy", "error_message": "slot gone"}
    )
    text = httpx.post(server.url + CHAT, json=BODY).text
    assert text.startswith("error: {")
    (event,) = parse_sse(text)
    assert "slot gone" in event.other["error"]


def test_error_after_beyond_the_content_fires_before_the_finish(llm: Any) -> None:
    server = llm({"text": "ab", "error_after": 99})
    events = parse_sse(httpx.post(server.url + CHAT, json=BODY).text)
    assert collect_openai([e.json() for e in events[:-1]]).text == "ab"
    assert "error" in events[-1].json()


def test_non_stream_error_after_is_http_500(llm: Any) -> None:
    server = llm({"text": "abc", "error_after": 1, "error_message": "kaboom"})
    response = httpx.post(server.url + CHAT, json={**BODY, "stream": False})
    assert response.status_code == 500
    assert response.json()["error"]["message"] == "kaboom"


# --- cuts, stalls, pings -----------------------------------------------------------------------


def test_cut_after_drops_the_connection_without_the_chunked_terminator(llm: Any) -> None:
    server = llm({"text": "abcdefghijkl", "chunk_size": 3, "cut_after": 2})
    received, error = _read_until_broken(server.url)
    assert isinstance(error, httpx.RemoteProtocolError)
    events = parse_sse(received.decode())
    assert collect_openai([e.json() for e in events]).text == "abcdef"
    assert received.endswith(b"\n\n") and b"[DONE]" not in received
    assert httpx.get(server.url + "/health").status_code == 200  # the server is fine


def test_cut_mid_json_leaves_half_a_data_line(llm: Any) -> None:
    server = llm({"text": "abcdefghijkl", "chunk_size": 3, "cut_after": 2, "cut_mid_json": True})
    received, error = _read_until_broken(server.url)
    assert isinstance(error, httpx.RemoteProtocolError)
    tail = received.decode().split("\n\n")[-1]
    assert tail.startswith('data: {"id":"chatcmpl-1"') and not tail.endswith("}")


def test_cut_after_zero_sends_nothing_but_headers(llm: Any) -> None:
    server = llm({"text": "x", "cut_after": 0})
    received, error = _read_until_broken(server.url)
    assert (received, type(error)) == (b"", httpx.RemoteProtocolError)


def test_non_stream_cut_truncates_the_body(llm: Any) -> None:
    server = llm({"text": "abc", "cut_after": 0})
    with pytest.raises(httpx.RemoteProtocolError):
        httpx.post(server.url + CHAT, json={**BODY, "stream": False})


def test_stall_is_silent_and_then_continues(llm: Any) -> None:
    server = llm({"text": "abcdef", "chunk_size": 2, "stall_after": 1, "stall_s": 0.6})
    timeout = httpx.Timeout(5, read=0.3)
    with (
        pytest.raises(httpx.ReadTimeout),
        httpx.stream("POST", server.url + CHAT, json=BODY, timeout=timeout) as response,
    ):
        for _ in response.iter_raw():
            pass
    started = time.monotonic()
    chunks = openai_chunks(parse_sse(httpx.post(server.url + CHAT, json=BODY).text))
    assert collect_openai(chunks).text == "abcdef"
    assert time.monotonic() - started >= 0.55


def test_pings_during_a_stall_keep_the_connection_alive(llm: Any) -> None:
    server = llm(
        {
            "text": "abcdef",
            "chunk_size": 2,
            "stall_after": 1,
            "stall_s": 0.5,
            "ping_every_ms": 100,
        }
    )
    timeout = httpx.Timeout(5, read=0.3)
    with httpx.stream("POST", server.url + CHAT, json=BODY, timeout=timeout) as response:
        text = "".join(response.iter_text())
    assert 3 <= text.count(": ping\n\n") <= 5
    assert collect_openai(openai_chunks(parse_sse(text))).text == "abcdef"


def test_raw_body_is_written_verbatim_in_chunks(llm: Any) -> None:
    server = llm({"raw": ["data: {not json\n\n", "garbage"], "content_type": "text/plain"})
    response = httpx.post(server.url + CHAT, json=BODY)
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/plain"
    assert response.headers["transfer-encoding"] == "chunked"
    assert response.text == "data: {not json\n\ngarbage"


def test_client_disconnect_mid_stream_does_not_hurt_the_server(llm: Any) -> None:
    # Each stream would take 64 x 50 ms = 3.2 s to run out, had the server to wait for it.
    server = llm({"text": "x" * 64, "chunk_size": 1, "delay_ms": 50})
    for _ in range(3):
        with socket.create_connection(("127.0.0.1", int(server.url.rsplit(":", 1)[1]))) as sock:
            payload = b'{"stream": true, "messages": []}'
            sock.sendall(
                b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json"
                b"\r\nContent-Length: " + str(len(payload)).encode() + b"\r\n\r\n" + payload
            )
            assert sock.recv(100).startswith(b"HTTP/1.1 200")
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # RST
    started = time.monotonic()
    response = httpx.post(server.url + CHAT, json={**BODY, "stream": False})
    # Not a speed claim: the dropped streams do not hold the server up. The answer takes a few
    # ms; 2 s is generous and still below one dropped stream's 3.2 s.
    assert response.status_code == 200 and time.monotonic() - started < 2
    assert len(server.requests) == 4
