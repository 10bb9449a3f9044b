"""Which models an endpoint serves: one GET of its model listing.

Used to check that a preset's endpoint answers (`aish doctor`). Same client policy, auth and
typed errors as a chat request, so a failure here reads exactly like one there.
"""

from __future__ import annotations

import json
from typing import Any

import httpx

from aish.llm.adapters import adapter_for
from aish.llm.errors import ProtocolError
from aish.llm.transport import httpx_client_for, status_error, typed_errors
from aish.llm.types import ModelTarget


async def list_models(target: ModelTarget, timeout_s: float) -> list[str]:
    """The model ids the endpoint lists. Raises an `LLMError` when it does not answer so."""
    adapter = adapter_for(target.api)
    url = adapter.models_url(target)
    headers = {"Accept": "application/json", **adapter.auth_headers(target)}
    with typed_errors(url, target, lambda: ""):
        async with httpx_client_for(target) as client:
            response = await client.get(url, headers=headers, timeout=httpx.Timeout(timeout_s))
            if response.status_code != 200:
                raise await status_error(response, url)
            return _model_ids(response.content, url)


def _model_ids(body: bytes, url: str) -> list[str]:
    try:
        listing: Any = json.loads(body)
    except ValueError:
        raise ProtocolError("answers, but not with JSON", target=url) from None
    entries = listing.get("data") if isinstance(listing, dict) else None
    if not isinstance(entries, list):
        raise ProtocolError("answers, but not with a model list", target=url)
    return [str(e["id"]) for e in entries if isinstance(e, dict) and "id" in e]
