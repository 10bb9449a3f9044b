"""A tool call's outcome as the model is told it: one bounded text, an error flag, a duration.

Text blocks are the answer; anything a text-only model cannot take (images, audio, binary
resources) is summarised in one line, so the model knows it exists without the bytes filling
its context. `structuredContent` is added as compact JSON unless a text block already says
the same (servers are asked to send both). Results arrive as the JSON the server sent.

A result larger than the server's `max_result_bytes` keeps its head and tail around an
omission marker, under a first line that says it was cut and which key allows more: the model
knows it has a part, and the preview on screen shows the same line.

Pure: no I/O.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["MAX_RESULT_BYTES", "ToolResult", "bounded", "render_result", "size_label", "valid_text"]

MAX_RESULT_BYTES = 16 * 1024
# One embedded text resource may take this much of the result before it is cut.
_MAX_RESOURCE_BYTES = 4 * 1024
_EMPTY = "(the tool returned no content)"


@dataclass(frozen=True)
class ToolResult:
    """What the model is told about one call."""

    text: str
    # The tool said so (`isError`), or the call failed: protocol error, timeout, server down.
    is_error: bool
    duration_s: float


def render_result(
    result: Mapping[str, Any],
    duration_s: float,
    *,
    limit: int = MAX_RESULT_BYTES,
    limit_key: str = "max_result_bytes",
) -> ToolResult:
    """A `CallToolResult` (wire JSON: `content`, `structuredContent`, `isError`) as a ToolResult,
    at most about `limit` bytes of it; `limit_key` is the config key named when it is cut."""
    blocks = result.get("content")
    parts = [_block(block) for block in blocks] if isinstance(blocks, list) else []
    structured = result.get("structuredContent")
    if structured is not None and not _said(structured, blocks):
        parts.append(_compact(structured))
    text = valid_text("\n".join(part for part in parts if part) or _EMPTY)
    size = len(text.encode("utf-8"))
    if size > limit:
        notice = f"[result cut: {size_label(size)}, {size_label(limit)} kept ({limit_key})]"
        text = f"{notice}\n{bounded(text, limit)}"
    return ToolResult(text=text, is_error=result.get("isError") is True, duration_s=duration_s)


def valid_text(text: str) -> str:
    """`text` with lone surrogates (JSON allows `\\ud800`, UTF-8 does not) replaced by `?`, so
    it can go into a request body."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", errors="replace").decode("utf-8")
    return text


def bounded(text: str, limit: int) -> str:
    """`text` when it fits in `limit` UTF-8 bytes, else its head and tail around a marker."""
    text = valid_text(text)
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text
    half = limit // 2
    omitted = len(data) - 2 * half
    head = data[:half].decode("utf-8", errors="ignore")
    tail = data[-half:].decode("utf-8", errors="ignore")
    return f"{head}\n… [{omitted} bytes omitted] …\n{tail}"


def size_label(count: int) -> str:
    """`512 B`, `1.2 KB`, `3.4 MB`."""
    if count < 1024:
        return f"{count} B"
    if count < 1024 * 1024:
        return f"{count / 1024:.1f} KB"
    return f"{count / (1024 * 1024):.1f} MB"


def _block(block: object) -> str:
    if not isinstance(block, Mapping):
        return "[content block that is not an object]"
    kind = block.get("type")
    if kind == "text":
        text = block.get("text")
        return text if isinstance(text, str) else ""
    if kind in ("image", "audio"):
        mime = _text(block.get("mimeType")) or kind
        return f"[{mime}, {size_label(_base64_size(block.get('data')))}]"
    if kind == "resource_link":
        return _link(block)
    if kind == "resource":
        resource = block.get("resource")
        return _resource(resource) if isinstance(resource, Mapping) else "[resource]"
    return f"[{_text(kind) or 'unknown'} content]"


def _link(block: Mapping[str, Any]) -> str:
    uri = _text(block.get("uri")) or "?"
    mime = _text(block.get("mimeType"))
    name = _text(block.get("name"))
    described = _text(block.get("description"))
    line = f"[resource link {uri}" + (f" ({mime})" if mime else "") + "]"
    label = ": ".join(part for part in (name, described) if part)
    return f"{line} {label}" if label else line


def _resource(resource: Mapping[str, Any]) -> str:
    uri = _text(resource.get("uri")) or "?"
    mime = _text(resource.get("mimeType"))
    text = resource.get("text")
    if isinstance(text, str):
        header = f"[resource {uri}" + (f" ({mime})" if mime else "") + "]"
        return f"{header}\n{bounded(text, _MAX_RESOURCE_BYTES)}" if text else header
    size = size_label(_base64_size(resource.get("blob")))
    return f"[resource {uri} ({mime + ', ' if mime else ''}{size})]"


def _said(structured: object, blocks: object) -> bool:
    """Whether a text block is the structured content serialised (as servers are asked to).

    The SDK's servers wrap a plain return value as `{"result": value}`; a text block that is
    the value itself says the same.
    """
    if not isinstance(blocks, list):
        return False
    candidates = [structured]
    if isinstance(structured, Mapping) and list(structured) == ["result"]:
        candidates.append(structured["result"])
    for block in blocks:
        if not isinstance(block, Mapping) or block.get("type") != "text":
            continue
        text = str(block.get("text"))
        try:
            parsed: object = json.loads(text)
        except ValueError:
            parsed = text
        if any(parsed == candidate or text == candidate for candidate in candidates):
            return True
    return False


def _compact(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def _base64_size(data: object) -> int:
    """The decoded size of base64 text, without decoding it."""
    if not isinstance(data, str):
        return 0
    stripped = data.strip()
    return max(len(stripped) * 3 // 4 - stripped[-2:].count("="), 0)


def _text(value: object) -> str:
    return value.strip() if isinstance(value, str) else ""
