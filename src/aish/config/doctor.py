"""`aish doctor`'s question for each preset: does its endpoint answer, and with what?

One GET of the model listing (`/models` under an OpenAI-style base URL, `/v1/models` for
Anthropic), reported as `(ok, one short phrase)`. The CLI does the printing.
"""

from __future__ import annotations

import errno
import socket
import ssl
from typing import Any

from aish.llm.types import ModelTarget

ANTHROPIC_VERSION = "2023-06-01"


def models_request(target: ModelTarget) -> tuple[str, dict[str, str]]:
    """The URL and headers that list the models `target`'s endpoint serves."""
    base = target.endpoint.rstrip("/")
    headers = dict(target.headers)
    if target.api == "anthropic":
        # Users write the Anthropic endpoint with or without `/v1`; the listing is under it.
        base = base.removesuffix("/v1")
        headers["anthropic-version"] = ANTHROPIC_VERSION
        if target.api_key:
            headers["x-api-key"] = target.api_key
        return f"{base}/v1/models", headers
    if target.api_key:
        headers["Authorization"] = f"Bearer {target.api_key}"
    return f"{base}/models", headers


async def check_endpoint(target: ModelTarget, timeout_s: float) -> tuple[bool, str]:
    """`(True, "answers, 3 models")`, `(False, "connection refused")`, `(False, "HTTP 401")`."""
    import httpx

    url, headers = models_request(target)
    try:
        async with httpx.AsyncClient(timeout=timeout_s) as client:
            response = await client.get(url, headers=headers)
    except httpx.TimeoutException:
        return False, f"no answer within {timeout_s:g}s"
    except httpx.ConnectError as exc:
        return False, _connect_failure(exc)
    except httpx.HTTPError as exc:
        return False, f"request failed: {_first_line(exc)}"
    if response.status_code != 200:
        return False, f"HTTP {response.status_code}"
    ids = _model_ids(response.content)
    if ids is None:
        return False, "answers, but not with a model list"
    detail = f"answers, {len(ids)} model{'' if len(ids) == 1 else 's'}"
    if ids and target.model not in ids:
        detail += f"; {target.model} is not among them"
    return True, detail


def _model_ids(body: bytes) -> list[str] | None:
    import json

    try:
        listing: Any = json.loads(body)
    except ValueError:
        return None
    entries = listing.get("data") if isinstance(listing, dict) else None
    if not isinstance(entries, list):
        return None
    return [entry["id"] for entry in entries if isinstance(entry, dict) and "id" in entry]


def _connect_failure(exc: BaseException) -> str:
    """Name the usual causes plainly; the exception chain holds the OS-level reason."""
    cause: BaseException | None = exc
    while cause is not None:
        if isinstance(cause, ConnectionRefusedError) or (
            isinstance(cause, OSError) and cause.errno == errno.ECONNREFUSED
        ):
            return "connection refused"
        if isinstance(cause, socket.gaierror):
            return "unknown host"
        if isinstance(cause, ssl.SSLError):
            return f"TLS failure: {_first_line(cause)}"
        cause = cause.__cause__ or cause.__context__
    text = _first_line(exc)
    return "connection refused" if "refused" in text.lower() else f"cannot connect: {text}"


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0][:160] if text else type(exc).__name__
