"""The two heads of an exchange: the request's, built and checked here, and the response's,
parsed here from lines a `Connection` read.

Pure functions and small values, no I/O. The response side is strict where a lenient reading
would be unsafe (a header name that is not a token, a status that is not three digits) and
bounded in size by the caller.
"""

from __future__ import annotations

import base64
import json as jsonlib
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, unquote, urlsplit

from aish.llm.http1.errors import BadHeader, BadResponse, BadURL

__all__ = ["Headers", "Origin", "Request", "ResponseHead", "build_request", "parse_head"]

_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
# A request header value: visible ASCII, space and tab. Anything else (a newline above all,
# which would smuggle a header) is refused rather than encoded.
_FIELD_VALUE = re.compile(r"[\t\x20-\x7e]*")
# Characters left as they are in a request target; the rest (spaces, non-ASCII) is
# percent-encoded, as browsers and httpx do.
_TARGET_SAFE = "/%:@!$&'()*+,;=-._~?[]"
_DEFAULT_PORTS = {"http": 80, "https": 443}


@dataclass(frozen=True)
class Origin:
    """Where a connection goes; connections are kept per origin."""

    scheme: str  # "http" or "https"
    host: str  # IDNA-encoded, no brackets around an IPv6 address
    port: int


@dataclass(frozen=True)
class Request:
    origin: Origin
    head: bytes
    body: bytes


def build_request(method: str, url: str, json: Any, headers: Mapping[str, str] | None) -> Request:
    """The request's bytes. Raises `BadURL` or `BadHeader`; never quotes a header value."""
    origin, target, host_header, credentials = _parse_url(url)
    fields: dict[str, tuple[str, str]] = {}  # by lower-case name: (name as given, value)

    def put(name: str, value: str) -> None:
        fields[name.lower()] = (name, value)

    put("Host", host_header)
    put("Accept", "*/*")
    # No decoder for compressed bodies here; a server that compresses anyway is refused
    # (`Response`) rather than misread.
    put("Accept-Encoding", "identity")
    put("User-Agent", "aish")
    body_bytes = b""
    if json is not None:
        text = jsonlib.dumps(json, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
        body_bytes = text.encode()
        put("Content-Type", "application/json")
    if json is not None or method.upper() in ("POST", "PUT", "PATCH"):
        put("Content-Length", str(len(body_bytes)))
    for name, value in (headers or {}).items():
        if not _TOKEN.fullmatch(name):
            raise BadHeader("a request header name is not an HTTP token")
        if not _FIELD_VALUE.fullmatch(value):
            raise BadHeader(f"the value of request header {name} has characters HTTP forbids")
        put(name, value)
    if credentials is not None:
        # `https://user:pass@host/v1`: basic auth, replacing any Authorization given, as httpx
        # does (an endpoint behind a password answered every request 401 without it).
        put("Authorization", "Basic " + base64.b64encode(credentials.encode()).decode("ascii"))
    if not _TOKEN.fullmatch(method):
        raise BadURL(f"bad request method {method[:20]!r}")
    lines = [f"{method} {target} HTTP/1.1", *(f"{n}: {v}" for n, v in fields.values())]
    head = ("\r\n".join(lines) + "\r\n\r\n").encode("ascii")
    return Request(origin, head, body_bytes)


def _parse_url(url: str) -> tuple[Origin, str, str, str | None]:
    """(origin, request target, Host header, `user:password` or None) of an absolute http(s)
    URL."""
    try:
        parts = urlsplit(url)
        port = parts.port
        host = parts.hostname
    except ValueError as exc:
        raise BadURL(f"bad URL: {exc}") from None
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS:
        raise BadURL(f"unsupported URL scheme {scheme or '(none)'!r}: use http or https")
    if not host:
        raise BadURL("the URL has no host")
    try:
        ascii_host = host if host.isascii() else host.encode("idna").decode("ascii")
    except UnicodeError:
        raise BadURL("the URL's host is not a valid domain name") from None
    if any(c in ascii_host for c in " \t\r\n\0/\\@"):
        raise BadURL("the URL's host has characters a host name cannot have")
    default = _DEFAULT_PORTS[scheme]
    port = default if port is None else port
    shown = f"[{ascii_host}]" if ":" in ascii_host else ascii_host
    host_header = shown if port == default else f"{shown}:{port}"
    target = quote(parts.path or "/", safe=_TARGET_SAFE)
    if parts.query:
        target += "?" + quote(parts.query, safe=_TARGET_SAFE)
    credentials = None
    if parts.username is not None or parts.password is not None:
        credentials = f"{unquote(parts.username or '')}:{unquote(parts.password or '')}"
    return Origin(scheme, ascii_host, port), target, host_header, credentials


class Headers(Mapping[str, str]):
    """Response headers, names case-insensitive; a repeated header reads as its values joined
    with ", " (as HTTP allows for list-valued headers, and as httpx does)."""

    def __init__(self, pairs: list[tuple[str, str]]) -> None:
        self._values: dict[str, list[str]] = {}
        for name, value in pairs:
            self._values.setdefault(name.lower(), []).append(value)

    def __getitem__(self, name: str) -> str:
        return ", ".join(self._values[name.lower()])

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.lower() in self._values

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def all(self, name: str) -> list[str]:
        return list(self._values.get(name.lower(), []))


@dataclass(frozen=True)
class ResponseHead:
    version: str  # "HTTP/1.1" or "HTTP/1.0"
    status: int
    reason: str
    headers: Headers


_STATUS_LINE = re.compile(r"(HTTP/1\.[01]) ([0-9]{3})(?: (.*))?")


def parse_head(lines: list[bytes]) -> ResponseHead:
    """A response head from its lines (line endings removed, the blank line not included)."""
    if not lines:
        raise BadResponse("the response has no status line")
    status_line = lines[0].decode("latin-1")
    match = _STATUS_LINE.fullmatch(status_line)
    if match is None:
        raise BadResponse(f"not an HTTP/1.1 status line: {status_line[:60]!r}")
    pairs: list[tuple[str, str]] = []
    for raw in lines[1:]:
        if raw[:1] in (b" ", b"\t"):  # obsolete line folding: part of the previous value
            if not pairs:
                raise BadResponse("the header section starts with a continuation line")
            name, value = pairs[-1]
            pairs[-1] = (name, f"{value} {_decode_value(raw.strip())}")
            continue
        name_bytes, colon, value_bytes = raw.partition(b":")
        name = name_bytes.decode("latin-1")
        if not colon or not _TOKEN.fullmatch(name):
            raise BadResponse(f"malformed response header line: {raw[:60]!r}")
        pairs.append((name, _decode_value(value_bytes.strip(b" \t"))))
    return ResponseHead(match[1], int(match[2]), match[3] or "", Headers(pairs))


def _decode_value(raw: bytes) -> str:
    if b"\0" in raw:
        raise BadResponse("a response header value contains a NUL byte")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("latin-1")
