"""A uniform view of an incoming chat request, whether OpenAI- or Anthropic-shaped."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from aish_testllm.prefix import serialise_prompt


class BadRequest(ValueError):
    """The request body is not a usable chat request (answered with HTTP 400)."""


@dataclass(frozen=True)
class ChatRequest:
    """What rules match on and what replies need to know about a chat request."""

    api: str  # "openai" | "anthropic"
    model: str | None
    stream: bool
    include_usage: bool
    user_text: str
    system_text: str
    has_tools: bool
    prompt: str  # canonical serialisation, see prefix.serialise_prompt


def _part_text(part: Any) -> str:
    """Text of one content part: text parts, and (Anthropic) the text inside tool results."""
    if isinstance(part, str):
        return part
    if not isinstance(part, dict):
        return ""
    if part.get("type") == "tool_result":
        return content_text(part.get("content"))
    text = part.get("text")
    return text if isinstance(text, str) else ""


def content_text(content: Any) -> str:
    """Concatenated text of a message ``content``: a string, a list of parts, or null."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(_part_text(part) for part in content)
    return ""


def _role(message: Any) -> Any:
    return message.get("role") if isinstance(message, dict) else None


def _last_user_text(messages: list[Any]) -> str:
    """Text of the last user message.

    OpenAI ``tool`` messages count as user messages (as Anthropic tool results do); a run of
    consecutive tool messages (parallel call results) counts as one, its texts concatenated.
    """
    for end in range(len(messages) - 1, -1, -1):
        role = _role(messages[end])
        if role == "user":
            return content_text(messages[end].get("content"))
        if role == "tool":
            start = end
            while start > 0 and _role(messages[start - 1]) == "tool":
                start -= 1
            return "".join(content_text(m.get("content")) for m in messages[start : end + 1])
    return ""


def parse_chat_request(api: str, body: Any) -> ChatRequest:
    """Build the view for ``api`` ("openai" or "anthropic") from a parsed JSON body."""
    if not isinstance(body, dict):
        raise BadRequest("request body must be a JSON object")
    messages = body.get("messages", [])
    if not isinstance(messages, list):
        raise BadRequest("'messages' must be a list")
    tools = body.get("tools")
    if tools is not None and not isinstance(tools, list):
        raise BadRequest("'tools' must be a list")
    model = body.get("model")
    if api == "anthropic":
        system = body.get("system")
        system_text = content_text(system)
    else:
        system = None
        system_text = "\n".join(
            content_text(m.get("content"))
            for m in messages
            if isinstance(m, dict) and m.get("role") in ("system", "developer")
        )
    stream_options = body.get("stream_options")
    include_usage = isinstance(stream_options, dict) and stream_options.get("include_usage") is True
    return ChatRequest(
        api=api,
        model=model if isinstance(model, str) else None,
        stream=body.get("stream") is True,
        include_usage=include_usage,
        user_text=_last_user_text(messages),
        system_text=system_text,
        has_tools=bool(tools),
        prompt=serialise_prompt(tools, system, messages),
    )
