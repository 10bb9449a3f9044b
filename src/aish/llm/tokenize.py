"""Exact prompt token counts from servers that can count them (llama-server).

llama-server renders a chat request with the model's own template at `POST /apply-template` and
tokenizes text at `POST /tokenize`; together they give exactly the prompt tokens a chat request
would cost, before sending it. Any server without those endpoints (or any failure) yields None,
and the caller falls back to its estimate. httpx is imported only when a count is asked for.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from aish.llm.types import Message, ModelTarget, ToolSpec

if TYPE_CHECKING:
    import httpx

# A count is a nicety shown on request: never wait long for it.
TIMEOUT_S = 2.0


def server_root(target: ModelTarget) -> str:
    """The endpoint without a trailing `/v1`: where llama-server serves its own routes."""
    return target.endpoint.rstrip("/").removesuffix("/v1")


async def count_exact(
    target: ModelTarget, messages: Sequence[Message], tools: Sequence[ToolSpec] | None
) -> int | None:
    """Prompt tokens the server would count for this chat request, or None if it cannot say.

    Only OpenAI-protocol targets are asked. Never raises (cancellation aside).
    """
    if target.api != "openai":
        return None
    try:
        async with asyncio.timeout(TIMEOUT_S):
            return await _count(target, messages, tools)
    except Exception:  # refused, timed out, HTTP errors, bad JSON: all mean "cannot say"
        return None


async def _count(
    target: ModelTarget, messages: Sequence[Message], tools: Sequence[ToolSpec] | None
) -> int | None:
    import httpx

    from aish.llm.openai_protocol import auth_headers, request_body
    from aish.llm.transport import httpx_client_for

    body = request_body(target, messages, tools)
    # The very messages and tools the chat request carries, so the template sees the same input.
    template_request: dict[str, Any] = {k: body[k] for k in ("messages", "tools") if k in body}
    root = server_root(target)
    headers = auth_headers(target)
    async with httpx_client_for(target) as http:
        timeout = httpx.Timeout(TIMEOUT_S)
        rendered = await _post_json(
            http, f"{root}/apply-template", template_request, headers, timeout
        )
        prompt = rendered.get("prompt") if isinstance(rendered, dict) else None
        if not isinstance(prompt, str):
            return None
        counted = await _post_json(
            http, f"{root}/tokenize", {"content": prompt, "add_special": True}, headers, timeout
        )
    tokens = counted.get("tokens") if isinstance(counted, dict) else None
    return len(tokens) if isinstance(tokens, list) else None


async def _post_json(
    http: httpx.AsyncClient,
    url: str,
    payload: dict[str, Any],
    headers: dict[str, str],
    timeout: httpx.Timeout,
) -> Any:
    """The decoded JSON answer of a successful POST, else None."""
    response = await http.post(url, json=payload, headers=headers, timeout=timeout)
    if response.status_code != 200:
        return None
    return response.json()
