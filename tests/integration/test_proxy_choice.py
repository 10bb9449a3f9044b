"""Which client carries a model request: a proxy from the environment sends it through httpx
(and so through the proxy), anything else through aish's own client. Observed from outside: a
real forwarding proxy on 127.0.0.1 records what passed through it, in front of the mock model
server; and the decision itself is compared with httpx's own for many environments."""

from __future__ import annotations

import asyncio
import os
from urllib.parse import urlsplit

import httpx
import pytest

from aish.llm.broker import chat
from aish.llm.errors import ConnectError
from aish.llm.proxy_env import proxy_applies
from aish.llm.transport import ClientPool
from aish.llm.types import Message, ModelTarget
from tests.conftest import ServeFn
from tests.support.raw_http import RawServer, read_request

REMOTE = "http://model.test/v1"  # `.test` never resolves: only a proxy can reach it


@pytest.fixture
def no_proxy_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in list(os.environ):
        if name.lower().endswith("_proxy") or name == "REQUEST_METHOD":
            monkeypatch.delenv(name)
    return monkeypatch


def _forwarding_proxy(upstream: str, seen: list[str]) -> RawServer:
    """An HTTP proxy that sends every request to `upstream`, whatever host it names, and
    records each request line it was asked."""
    up = urlsplit(upstream)

    async def forward(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        request = await read_request(reader)
        if request is None:
            return
        seen.append(request.line)
        method, target, _ = request.line.split(" ")
        path = urlsplit(target).path
        up_reader, up_writer = await asyncio.open_connection(up.hostname, up.port)
        up_writer.write(
            f"{method} {path} HTTP/1.1\r\nHost: {up.netloc}\r\nConnection: close\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(request.body)}\r\n\r\n"
            .encode() + request.body
        )  # fmt: skip
        while data := await up_reader.read(65536):
            writer.write(data)
            await writer.drain()
        up_writer.close()

    return RawServer(forward)


def test_a_proxy_variable_sends_a_remote_endpoint_through_the_proxy(
    serve: ServeFn, no_proxy_env: pytest.MonkeyPatch
) -> None:
    model = serve({"rules": [], "default": {"text": "via proxy"}})
    seen: list[str] = []

    async def run() -> str:
        async with _forwarding_proxy(model.url, seen) as proxy:
            no_proxy_env.setenv("HTTP_PROXY", proxy.url)
            pool = ClientPool()
            target = ModelTarget("remote", REMOTE, "testllm", max_retries=0)
            reply = await chat(target, [Message("user", "hi")], client=pool.client(target))
            await pool.aclose()
            return reply.text

    assert asyncio.run(run()) == "via proxy"
    assert seen == ["POST http://model.test/v1/chat/completions HTTP/1.1"]
    assert len(model.requests) == 1


def test_no_proxy_sends_it_directly(serve: ServeFn, no_proxy_env: pytest.MonkeyPatch) -> None:
    model = serve({"rules": [], "default": {"text": "via proxy"}})
    seen: list[str] = []

    async def run() -> None:
        async with _forwarding_proxy(model.url, seen) as proxy:
            no_proxy_env.setenv("http_proxy", proxy.url)
            no_proxy_env.setenv("NO_PROXY", "example.org, model.test")
            target = ModelTarget("remote", REMOTE, "testllm", max_retries=0, connect_timeout_s=10)
            with pytest.raises(ConnectError, match="unknown host"):
                await chat(target, [Message("user", "hi")], client=ClientPool().client(target))

    asyncio.run(run())
    assert seen == [] and model.requests == []


def test_a_loopback_endpoint_never_goes_through_a_proxy(
    serve: ServeFn, no_proxy_env: pytest.MonkeyPatch
) -> None:
    model = serve({"rules": [], "default": {"text": "direct"}})
    seen: list[str] = []

    async def run() -> str:
        async with _forwarding_proxy(model.url, seen) as proxy:
            no_proxy_env.setenv("ALL_PROXY", proxy.url)
            no_proxy_env.setenv("HTTP_PROXY", proxy.url)
            target = ModelTarget("local", f"{model.url}/v1", "testllm", max_retries=0)
            pool = ClientPool()
            reply = await chat(target, [Message("user", "hi")], client=pool.client(target))
            await pool.aclose()
            return reply.text

    assert asyncio.run(run()) == "direct"
    assert seen == [] and len(model.requests) == 1


# httpx's own decision, for the comparison below: whether its client, reading the environment,
# mounts a proxy transport for the URL (`_transport_for_url` is internal; httpx is pinned <0.29).
def _httpx_proxies(client: httpx.Client, url: str) -> bool:
    return client._transport_for_url(httpx.URL(url)) is not client._transport


ENVIRONMENTS: list[dict[str, str]] = [
    {},
    {"HTTP_PROXY": "http://p:3128"},
    {"http_proxy": "http://p:3128"},
    {"HTTPS_PROXY": "p:3128"},
    {"ALL_PROXY": "http://p:1080"},
    {"all_proxy": "http://p:3128", "no_proxy": "*"},
    {"HTTP_PROXY": "http://p:3128", "http_proxy": ""},  # the lower-case spelling wins
    {"HTTPS_PROXY": "http://p:3128", "NO_PROXY": "example.com"},
    {"HTTPS_PROXY": "http://p:3128", "NO_PROXY": ".example.com"},
    {"HTTPS_PROXY": "http://p:3128", "NO_PROXY": "*.example.com"},
    {"HTTPS_PROXY": "http://p:3128", "NO_PROXY": "ample.com"},
    {"HTTPS_PROXY": "http://p:3128", "no_proxy": "api.example.com:8443"},
    {"HTTPS_PROXY": "http://p:3128", "NO_PROXY": "example.com:443"},
    {"ALL_PROXY": "http://p:3128", "NO_PROXY": "10.1.2.3, 2001:db8::1"},
    {"ALL_PROXY": "http://p:3128", "NO_PROXY": "10.0.0.0/8"},
    {"ALL_PROXY": "http://p:3128", "NO_PROXY": "http://example.com"},
    {"ALL_PROXY": "http://p:3128", "NO_PROXY": "https://api.example.com:8443"},
    {"HTTP_PROXY": "http://p:3128", "REQUEST_METHOD": "GET"},  # CGI: HTTP_PROXY is ignored
    {"http_proxy": "http://p:3128", "REQUEST_METHOD": "GET"},
    {"FTP_PROXY": "http://p:3128"},  # not a scheme a model request uses
    # urllib's second pass takes any spelling ending in lower-case `_proxy`, in the
    # environment's order: the empty one drops the proxy, the mixed-case one sets it again.
    {"https_proxy": "", "HTTPS_proxy": "http://p:3128"},
    {"HTTPS_proxy": "http://p:3128", "https_proxy": ""},
    {"HTTPS_PROXY": "http://p:3128", "Https_proxy": ""},
    # httpx matches an IPv6 address as written and never a punycode name: both proxied.
    {"HTTPS_PROXY": "http://p:3128", "NO_PROXY": "2001:DB8::1"},
    {"HTTPS_PROXY": "http://p:3128", "NO_PROXY": "xn--bcher-kva.example"},
]
URLS = [
    "http://example.com/v1",
    "https://example.com/v1",
    "https://api.example.com/v1",
    "https://api.example.com:8443/v1",
    "https://example.com:443/v1",
    "https://notexample.com/v1",
    "http://10.1.2.3:8080/v1",
    "http://10.9.9.9/v1",
    "http://10.0.0.0/v1",
    "https://[2001:db8::1]/v1",
    "https://API.Example.COM/v1",
    "https://xn--bcher-kva.example/v1",
]


@pytest.mark.parametrize(
    "environment", ENVIRONMENTS, ids=lambda e: ",".join(f"{k}={v}" for k, v in e.items()) or "none"
)
def test_the_proxy_decision_is_httpxs(
    environment: dict[str, str], no_proxy_env: pytest.MonkeyPatch
) -> None:
    for name, value in environment.items():
        no_proxy_env.setenv(name, value)
    with httpx.Client(trust_env=True) as client:
        for url in URLS:
            assert proxy_applies(url) == _httpx_proxies(client, url), (environment, url)


@pytest.mark.parametrize("charset", ["rot13", "base64"])
def test_a_charset_that_is_no_text_encoding_reads_as_utf8_through_the_proxy_too(
    charset: str, no_proxy_env: pytest.MonkeyPatch
) -> None:
    """httpx carries proxied requests, and its own text decoding raises a TypeError for a
    charset that is a codec but no text encoding: the broker decodes the bytes itself."""
    event = b'data: {"choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":"stop"}]}\n\n'

    async def model(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        body = event + b"data: [DONE]\n\n"
        writer.write(
            f"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream; charset={charset}\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode()
            + body
        )

    async def run() -> tuple[str, list[str]]:
        seen: list[str] = []
        async with RawServer(model) as server, _forwarding_proxy(server.url, seen) as proxy:
            no_proxy_env.setenv("HTTP_PROXY", proxy.url)
            pool = ClientPool()
            target = ModelTarget("remote", REMOTE, "m", max_retries=0)
            reply = await chat(target, [Message("user", "hi")], client=pool.client(target))
            await pool.aclose()
            return reply.text, seen

    text, seen = asyncio.run(run())
    assert seen == ["POST http://model.test/v1/chat/completions HTTP/1.1"]  # httpx, via the proxy
    assert text == "hi"
