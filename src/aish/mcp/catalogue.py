"""The tool catalogue: every tool of every server that is up, under the name the model calls it.

The request prefix must not change while a conversation lasts, so the catalogue is built from
plain data in a fixed order and serialised deterministically (sorted by name, schemas with
sorted keys). Tools arrive here as the JSON the server sent (camelCase keys), so the
annotations reach the gate exactly as MCP defines them.

Pure: no I/O.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from aish.llm.types import ToolSpec
from aish.mcp.naming import qualified_names
from aish.mcp.results import valid_text

__all__ = ["McpTool", "ServerTools", "build_catalogue", "tool_specs"]

# A server's description is untrusted text that is sent with every request: keep it bounded.
_MAX_DESCRIPTION = 2000


@dataclass(frozen=True)
class McpTool:
    """One tool as the model sees it, and where it really lives."""

    qualified: str  # `<server>__<tool>`, sanitised, unique: the name the model calls
    server: str
    name: str  # the server's own name for it
    description: str
    input_schema: dict[str, Any]
    # As the server declared them (readOnlyHint, destructiveHint, …); None when it declared none.
    annotations: dict[str, Any] | None
    trusted: bool  # `[mcp.servers.<name>] trusted`
    # Why every call must have the user's word, whatever its verdict or `auto_approve`: the
    # tool changed for the worse since it was first listed (`tool_changes`). "": not held.
    held: str = ""


@dataclass(frozen=True)
class ServerTools:
    """The tools one server listed, as JSON objects (`name`, `description`, `inputSchema`, …)."""

    server: str
    trusted: bool
    tools: tuple[Mapping[str, Any], ...]


def build_catalogue(servers: Sequence[ServerTools]) -> list[McpTool]:
    """Every listed tool with a name of its own, sorted by that name.

    A tool without a usable name is dropped; a second tool of the same name on one server is
    dropped too (MCP says names are unique per server; the first one wins).
    """
    entries: dict[tuple[str, str], tuple[ServerTools, Mapping[str, Any]]] = {}
    for server in servers:
        for tool in server.tools:
            name = tool.get("name")
            if isinstance(name, str) and name and (server.server, name) not in entries:
                entries[(server.server, name)] = (server, tool)
    names = qualified_names(entries)
    catalogue = [
        McpTool(
            qualified=names[key],
            server=server.server,
            name=key[1],
            description=_description(tool),
            input_schema=_schema(tool.get("inputSchema")),
            annotations=_annotations(tool.get("annotations")),
            trusted=server.trusted,
        )
        for key, (server, tool) in entries.items()
    ]
    return sorted(catalogue, key=lambda tool: tool.qualified)


def tool_specs(tools: Sequence[McpTool]) -> list[ToolSpec]:
    """The tools as the broker sends them: sorted, with key-sorted copies of the schemas, so
    the same catalogue always produces the same request bytes."""
    return [
        ToolSpec(
            name=tool.qualified, description=tool.description, parameters=_sorted(tool.input_schema)
        )
        for tool in sorted(tools, key=lambda tool: tool.qualified)
    ]


def _description(tool: Mapping[str, Any]) -> str:
    text = tool.get("description")
    if not isinstance(text, str) or not text.strip():
        title = tool.get("title")
        text = title if isinstance(title, str) else ""
    text = valid_text(text.strip())
    return text if len(text) <= _MAX_DESCRIPTION else text[: _MAX_DESCRIPTION - 1] + "…"


def _schema(value: object) -> dict[str, Any]:
    """The input schema as an object schema; providers reject anything else."""
    if not isinstance(value, Mapping):
        return {"type": "object", "properties": {}}
    schema = _sorted(value)
    if "type" not in schema:
        schema["type"] = "object"
    return schema


def _annotations(value: object) -> dict[str, Any] | None:
    return _sorted(value) if isinstance(value, Mapping) else None


def _sorted(value: Mapping[str, Any]) -> dict[str, Any]:
    """A deep copy with every object's keys sorted (JSON round trip: plain types only)."""
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
    copy = json.loads(valid_text(text))
    return copy if isinstance(copy, dict) else {}
