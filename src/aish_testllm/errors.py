"""Error payloads: HTTP error bodies and the mid-stream error events of various servers."""

from __future__ import annotations

from http import HTTPStatus
from typing import Any

from aish_testllm.sse import DONE, SseEvent, compact_json, data_event

_OPENAI_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    429: "rate_limit_error",
    503: "unavailable_error",
}
_ANTHROPIC_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}

MIDSTREAM_MESSAGES = {
    "openai": "The server had an error while processing your request. Sorry about that!",
    "openrouter": "Provider returned error",
    "legacy": "The server had an error while processing your request.",
    "anthropic": "Overloaded",
}


def status_message(status: int) -> str:
    """The standard reason phrase for ``status`` (or a generic one)."""
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Overloaded" if status == 529 else f"HTTP {status}"


def http_error_body(api: str | None, status: int, message: str | None = None) -> dict[str, Any]:
    """The JSON body of an HTTP error in the shape of ``api`` ("anthropic" or OpenAI-style)."""
    text = message or status_message(status)
    if api == "anthropic":
        kind = _ANTHROPIC_TYPES.get(status, "api_error")
        return {"type": "error", "error": {"type": kind, "message": text}}
    kind = _OPENAI_TYPES.get(status, "server_error" if status >= 500 else "invalid_request_error")
    return {"error": {"message": text, "type": kind, "code": status}}


def midstream_error_events(style: str, message: str | None) -> list[SseEvent]:
    """Events that report an error after the stream started, in the given server ``style``.

    ``openai``: an error data event and no ``[DONE]``; ``openrouter``: an error chunk that still
    has a choice with ``finish_reason: "error"``, then ``[DONE]``; ``legacy``: a non-standard
    ``error:`` field line (old llama.cpp); ``anthropic``: ``event: error``.
    """
    text = message or MIDSTREAM_MESSAGES[style]
    if style == "openrouter":
        chunk = {
            "error": {"code": 502, "message": text},
            "choices": [{"index": 0, "delta": {"content": ""}, "finish_reason": "error"}],
        }
        return [data_event(chunk), DONE]
    if style == "legacy":
        payload = {"code": 500, "message": text, "type": "server_error"}
        return [SseEvent(fields=(("error", compact_json(payload)),))]
    if style == "anthropic":
        payload = {"type": "error", "error": {"type": "overloaded_error", "message": text}}
        return [data_event(payload, event="error")]
    return [data_event({"error": {"message": text, "type": "server_error"}})]
