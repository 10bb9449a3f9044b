"""The executor of MCP tool calls: what the gate authorized, and nothing else, reaches a server.

The agent decides nothing here and calls nothing itself: it hands the gate's `Authorization`
to `ToolRunner.run_authorized` (its `ToolExecutor`), which redeems it first
(`aish.run.authorized.redeem`) — a forged, copied, declined or already used authorization is
refused — then finds the tool in the catalogue snapshot and calls it. Like the shell executors,
this lives in `aish.run` (see `tests/unit/test_gate_paths.py`). The toolbox is the agent's
`ToolBox` (`aish.mcp.McpServers`), seen here through the little of it a call needs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from aish.run.authorized import Authorization, ProposedToolCall, redeem

__all__ = ["ToolRunner", "tool_options"]


class _Tool(Protocol):
    @property
    def server(self) -> str: ...

    @property
    def name(self) -> str: ...


class ToolOutcome(Protocol):
    """A call's result (the agent's `ToolOutcome`, `aish.mcp.ToolResult`)."""

    @property
    def text(self) -> str: ...

    @property
    def is_error(self) -> bool: ...

    @property
    def duration_s(self) -> float: ...


class ToolBox(Protocol):
    """What a call needs of the agent's `ToolBox`: the catalogue snapshot and the call."""

    def tools(self) -> Sequence[Any]: ...

    async def call(self, tool: Any, arguments: Mapping[str, Any]) -> ToolOutcome: ...


@dataclass(frozen=True)
class _Missing:
    """The result of a call whose tool left the catalogue (its server went away)."""

    text: str
    is_error: bool = True
    duration_s: float = 0.0


class ToolRunner:
    """Runs authorized tool calls on a `ToolBox` (`aish.mcp.McpServers`)."""

    def __init__(self, toolbox: ToolBox) -> None:
        self._toolbox = toolbox

    async def run_authorized(self, authorization: Authorization) -> ToolOutcome:
        """Call the tool the gate authorized; raises `gate.Unauthorized` for anything else
        (including a shell command: that is not this executor's to run). A server's failure
        is a result with `is_error`, never an exception."""
        approved = redeem(authorization, "tool call")
        action = approved.action
        assert isinstance(action, ProposedToolCall)  # `redeem` checked it
        tool: _Tool
        for tool in self._toolbox.tools():
            # By the server's own names: the qualified name the model used may be sanitised.
            if tool.server == action.server and tool.name == action.tool:
                return await self._call_tool(tool, approved.arguments_to_run())
        return _Missing(f"the tool {action.name} is no longer available")

    async def _call_tool(self, tool: Any, arguments: Mapping[str, Any]) -> ToolOutcome:
        return await self._toolbox.call(tool, arguments)


def tool_options(toolbox: ToolBox | None, max_tool_calls: int) -> dict[str, Any]:
    """The keyword arguments that give a `ChatTurn` or a `NorrisRun` its tools and their
    executor; none without a toolbox (no MCP servers configured)."""
    if toolbox is None:
        return {}
    return {
        "tools": toolbox,
        "run_tool": ToolRunner(toolbox).run_authorized,
        "max_tool_calls": max_tool_calls,
    }
