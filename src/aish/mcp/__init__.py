"""MCP tools: connections to MCP servers, the tool catalogue the model is offered, and calls
with timeouts.

`servers.McpServers` is the public face: it starts every configured server in the background,
adopts their tool lists at turn boundaries (`refresh`) and calls tools, never raising for a
server's failure. `catalogue` (names and schemas as the model sees them) and `results` (a
call's outcome as text) are pure; `connection` and `transport` are the only modules that touch
the `mcp` SDK, which is imported when the first server starts, never by `import aish.mcp`.

Imports nothing from `agent`, `conversation`, `shell` or `ui`; it uses the `config` schema
and the `llm` request types only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from aish._lazy_face import lazy_names

if TYPE_CHECKING:
    from aish.mcp.catalogue import McpTool, tool_specs
    from aish.mcp.results import ToolResult
    from aish.mcp.servers import McpServers, ServerStatus

__all__ = ["McpServers", "McpTool", "ServerStatus", "ToolResult", "tool_specs"]

# Public name → module that defines it, resolved on first use so `import aish.mcp` stays cheap.
_HOMES = {
    "McpServers": "aish.mcp.servers",
    "McpTool": "aish.mcp.catalogue",
    "ServerStatus": "aish.mcp.servers",
    "ToolResult": "aish.mcp.results",
    "tool_specs": "aish.mcp.catalogue",
}

__getattr__ = lazy_names(__name__, _HOMES)
