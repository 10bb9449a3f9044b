"""https through aish's own client checks certificates as httpx does: against certifi's bundle,
or the file SSL_CERT_FILE names. Real TLS on 127.0.0.1 with a self-signed certificate made by
the `openssl` command for each test."""

from __future__ import annotations

import asyncio
import ssl
import subprocess
from pathlib import Path

import pytest

from aish.llm import http1
from aish.llm.broker import chat
from aish.llm.errors import ConnectError
from aish.llm.model_client import Timeouts
from aish.llm.types import Message, ModelTarget
from tests.support.raw_http import RawServer, read_request, response

QUICK = Timeouts(10.0, 10.0, 10.0, 10.0)
REPLY = (
    b'{"choices":[{"index":0,"message":{"role":"assistant","content":"over tls"},'
    b'"finish_reason":"stop"}]}'
)


def _certificate(directory: Path, names: str) -> tuple[Path, Path]:
    """A self-signed certificate (and its key) for `names`, e.g. "IP:127.0.0.1"."""
    cert, key = directory / "cert.pem", directory / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
         "-nodes", "-keyout", str(key), "-out", str(cert), "-days", "1", "-subj", "/CN=aish test",
         "-addext", f"subjectAltName={names}"],
        check=True, capture_output=True,
    )  # fmt: skip
    return cert, key


def _server_context(cert: Path, key: Path) -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    return context


async def _answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    while await read_request(reader):
        writer.write(response(200, REPLY, "Content-Type: application/json"))


def _ask(context: ssl.SSLContext) -> tuple[str, int]:
    """The reply's text through the broker, and how many connections the server saw."""

    async def run() -> tuple[str, int]:
        async with RawServer(_answer, tls=context) as server:
            target = ModelTarget("tls", f"{server.url}/v1", "m", max_retries=0)
            client = http1.PlainClient()
            texts = [(await chat(target, [Message("user", q)], client=client)).text for q in "ab"]
            await client.aclose()
            assert texts[0] == texts[1]
            return texts[0], len(server.ports)

    return asyncio.run(run())


def test_an_untrusted_certificate_fails_verification(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    context = _server_context(*_certificate(tmp_path, "IP:127.0.0.1,DNS:localhost"))
    with pytest.raises(ConnectError) as caught:
        _ask(context)
    assert caught.value.reason.startswith("TLS certificate not trusted")
    assert "self-signed" in caught.value.reason or "self signed" in caught.value.reason


def test_a_certificate_trusted_through_ssl_cert_file_is_accepted_and_the_connection_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cert, key = _certificate(tmp_path, "IP:127.0.0.1")
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))
    assert _ask(_server_context(cert, key)) == ("over tls", 1)


def test_a_trusted_certificate_for_another_host_name_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cert, key = _certificate(tmp_path, "DNS:model.example")  # not 127.0.0.1
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))
    with pytest.raises(ConnectError) as caught:
        _ask(_server_context(cert, key))
    assert "TLS certificate not trusted" in caught.value.reason
    assert "mismatch" in caught.value.reason or "match" in caught.value.reason


def test_a_missing_ca_file_is_a_connect_error_not_a_crash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cert, key = _certificate(tmp_path, "IP:127.0.0.1")
    monkeypatch.setenv("SSL_CERT_FILE", str(tmp_path / "no-such-bundle.pem"))
    with pytest.raises(ConnectError, match="CA certificates"):
        _ask(_server_context(cert, key))
