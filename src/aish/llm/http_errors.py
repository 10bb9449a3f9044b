"""Turning an HTTP error response into one readable line.

Servers answer failures with JSON error objects of several shapes, HTML pages from proxies, or
plain text; users need the server's own message, not the markup around it.
"""

from __future__ import annotations

import json
import re
import time
from typing import Any, NamedTuple

_TITLE = re.compile(rb"<title[^>]*>(.*?)</title>", re.IGNORECASE | re.DOTALL)
_TAGS = re.compile(r"<[^>]+>")
_MAX_DETAIL = 200


class ServerError(NamedTuple):
    """An error object found in a body or a stream event."""

    message: str
    status: int | None  # the HTTP-like status it carries, when it says one


# Inside a stream, Anthropic (and OpenAI's `server_error`) name errors instead of numbering them.
_ERROR_TYPE_STATUS = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "api_error": 500,
    "overloaded_error": 529,
    "server_error": 500,
}


def server_error_in(payload: Any) -> ServerError | None:
    """The error object in any of the shapes servers use, or None when there is none."""
    if not isinstance(payload, dict):
        return None
    error = payload.get("error")
    if isinstance(error, dict):
        message = str(error.get("message") or error.get("type") or json.dumps(error))
        status = _status_of(error.get("code")) or _ERROR_TYPE_STATUS.get(str(error.get("type")))
        code = error.get("code")
        shown = f"{message} (code {code})" if code not in (None, "") else message
        return ServerError(shown, status)
    if isinstance(error, str) and error:
        return ServerError(error, None)
    if payload.get("object") == "error" or payload.get("type") == "error":
        message = str(payload.get("message") or payload.get("detail") or json.dumps(payload))
        return ServerError(message, _status_of(payload.get("code")))
    return None


def _status_of(code: Any) -> int | None:
    if isinstance(code, int) and 100 <= code <= 599:
        return code
    if isinstance(code, str) and code.isdigit() and 100 <= int(code) <= 599:
        return int(code)
    return None


def describe_body(raw: bytes, content_type: str) -> str:
    """The most useful short text in an error body; empty when there is none."""
    text = raw.decode("utf-8", "replace").strip()
    if not text:
        return ""
    try:
        payload = json.loads(text)
    except ValueError:
        payload = None
    if payload is not None:
        error = server_error_in(payload)
        return _clip(error.message if error is not None else text)
    if "html" in content_type or text.lstrip().startswith("<"):
        import html  # an error page: not on the way of a good reply

        title = _TITLE.search(raw)
        if title:
            return _clip("HTML page: " + html.unescape(title.group(1).decode("utf-8", "replace")))
        return _clip("HTML page: " + html.unescape(_TAGS.sub(" ", text)))
    return _clip(text)


def _clip(text: str) -> str:
    one_line = " ".join(text.split())
    return one_line if len(one_line) <= _MAX_DETAIL else one_line[: _MAX_DETAIL - 1] + "…"


def parse_retry_after(value: str | None) -> float | None:
    """`Retry-After` as seconds from now: a number of seconds or an HTTP date."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        import email.utils  # a Retry-After date: rare, and email is a big import

        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())
