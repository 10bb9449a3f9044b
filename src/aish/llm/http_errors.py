"""Turning an HTTP error response into one readable line.

Servers answer failures with JSON error objects of several shapes, HTML pages from proxies, or
plain text; users need the server's own message, not the markup around it.
"""

from __future__ import annotations

import email.utils
import html
import json
import re
import time

from aish.llm.openai_protocol import error_message_of

_TITLE = re.compile(rb"<title[^>]*>(.*?)</title>", re.IGNORECASE | re.DOTALL)
_TAGS = re.compile(r"<[^>]+>")
_MAX_DETAIL = 200


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
        message = error_message_of(payload)
        return _clip(message if message is not None else text)
    if "html" in content_type or text.lstrip().startswith("<"):
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
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())
