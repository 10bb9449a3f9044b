"""Every configured MCP server, and the catalogue of their tools the model is offered.

Servers connect in the background (`start` returns at once), each in its own connection task,
so a slow or broken one never delays the prompt nor the others. The catalogue is a snapshot:
servers coming up, going down or announcing new tools change it only when the conversation
reaches a turn boundary and calls `refresh`, because the tool list is part of the cached
request prefix. Each change is kept as a diff for the frontend to show (`take_changes`), and a
tool that changed for the worse is *held* (`tool_changes`) until a call of it runs — which,
for a held tool, only the user's yes at the confirm or HALT prompt lets happen.

User-visible lines (notices, restart results) are written here.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

from aish.config.mcp_import import resolve_servers
from aish.config.schema import McpConfig, McpServer
from aish.mcp.catalogue import McpTool, ServerTools, build_catalogue
from aish.mcp.connection import ServerConnection, State
from aish.mcp.naming import sanitise
from aish.mcp.results import ToolResult
from aish.mcp.tool_changes import CatalogueChange, catalogue_change

__all__ = ["McpServers", "ServerStatus"]


@dataclass(frozen=True)
class ServerStatus:
    """One line of `:mcp`."""

    name: str
    state: State
    tools: int
    transport: Literal["stdio", "http"]
    error: str | None  # the last error, one line
    log_path: Path | None  # where a stdio server's stderr goes


class McpServers:
    """The configured servers: their connections, the adopted catalogue and pending notices."""

    def __init__(
        self,
        servers: Mapping[str, McpServer],
        env: Mapping[str, str],
        log_dir: Path,
        notices: list[str] | None = None,
    ) -> None:
        self._env = dict(env)
        self._log_dir = log_dir
        self._config = dict(servers)
        self._connections = {name: self._connection(name) for name in self._config}
        self._notices: list[tuple[str | None, str]] = [(None, n) for n in notices or []]
        self._catalogue: list[McpTool] = []
        self._built: list[McpTool] = []  # as the servers listed them, before any hold
        self._by_name: dict[str, McpTool] = {}
        # Qualified name → why the tool is held (kept across refreshes until a call runs).
        self._held: dict[str, str] = {}
        self._changes: list[CatalogueChange] = []
        # Every tool ever listed, in its latest version: what a tool list is compared with.
        self._ever: dict[tuple[str, str], McpTool] = {}
        self._seen: dict[str, int] = {}
        self._started = False

    @classmethod
    def from_config(cls, config: McpConfig, env: Mapping[str, str], log_dir: Path) -> McpServers:
        """The servers of `[mcp.servers]` and of the `mcp.import` files (the former win).

        Problems with an import file or an entry in it become notices; the rest still works.
        """
        resolved = resolve_servers(config, env)
        return cls(resolved.servers, env, log_dir, resolved.warnings)

    # ---- lifecycle ---------------------------------------------------------------------------

    def start(self) -> None:
        """Connect every server in the background; returns at once (needs a running loop)."""
        _keep_sdk_logs_off_the_terminal()
        self._started = True
        for connection in self._connections.values():
            connection.start()

    async def restart(self, name: str) -> str:
        """Stop server `name` and connect it again; the outcome as one line for `:mcp restart`."""
        old = self._connections.get(name)
        if old is None:
            known = ", ".join(self._connections) or "none configured"
            return f"no mcp server named '{name}' (known: {known})"
        await old.close()
        connection = self._connection(name)
        self._connections[name] = connection
        connection.start()
        await connection.settled(3 * connection.server.timeout_s + 1)
        if connection.state == "up":
            count = len(connection.tools)
            return f"mcp server '{name}' restarted: {count} tool{'s' if count != 1 else ''}"
        if connection.state == "down":
            # The restart's answer says it; the same failure is not reported again.
            self._notices = [(server, n) for server, n in self._notices if server != name]
            return f"mcp server '{name}' failed to start: {connection.error}"
        return f"mcp server '{name}' is still starting"

    async def close(self) -> None:
        """Stop every server (stdio children get stdin closed, then signals)."""
        await asyncio.gather(*(c.close() for c in self._connections.values()))

    # ---- the catalogue -----------------------------------------------------------------------

    def tools(self) -> list[McpTool]:
        """The adopted catalogue, sorted by qualified name."""
        return list(self._catalogue)

    def refresh(self) -> bool:
        """Adopt what changed since the last turn boundary; True if the catalogue changed."""
        generations = {name: c.generation for name, c in self._connections.items()}
        if generations == self._seen:
            return False
        self._seen = generations
        lists = [
            ServerTools(name, self._config[name].trusted, connection.tools)
            for name, connection in self._connections.items()
            if connection.state == "up"
        ]
        catalogue = build_catalogue(lists)
        if catalogue == self._built:
            return False
        # Held is judged against every tool ever listed, not only the last snapshot: a server
        # that went down and came back with its tools changed does not escape it.
        listed_ever = list(self._ever.values())
        held = catalogue_change(listed_ever, catalogue).held if listed_ever else {}
        change = catalogue_change(self._built, catalogue)
        if self._built and change:  # servers coming up is no news
            self._changes.append(replace(change, held=held))
        self._ever.update({(tool.server, tool.name): tool for tool in catalogue})
        self._built = catalogue
        listed = {tool.qualified for tool in catalogue}
        self._held = {name: why for name, why in self._held.items() if name in listed}
        self._held.update(held)
        self._adopt()
        return True

    def _adopt(self) -> None:
        """The snapshot: the listed tools, each held one marked."""
        self._catalogue = [
            replace(tool, held=self._held.get(tool.qualified, "")) for tool in self._built
        ]
        self._by_name = {tool.qualified: tool for tool in self._catalogue}

    def take_changes(self) -> list[CatalogueChange]:
        """The tool-list changes adopted since the last call, oldest first; each returned once."""
        changes, self._changes = self._changes, []
        return changes

    def find(self, qualified: str) -> McpTool | None:
        return self._by_name.get(qualified)

    async def call(self, tool: McpTool, arguments: Mapping[str, Any]) -> ToolResult:
        """Call `tool` with `arguments`, bounded by its server's `timeout_s`.

        Never raises except CancelledError (which cancels the request at the server too).
        """
        connection = self._connections.get(tool.server)
        if connection is None:
            return ToolResult(f"no mcp server named '{tool.server}'", is_error=True, duration_s=0)
        if not self._started:
            return ToolResult("mcp servers are not started", is_error=True, duration_s=0)
        if tool.held and self._held.get(tool.qualified) == tool.held:
            # A held tool is only called after the user said yes to this very change (the
            # gate never runs one unasked): from now on it is judged as any other tool.
            del self._held[tool.qualified]
            self._adopt()
        return await connection.call(tool.name, arguments)

    # ---- status ------------------------------------------------------------------------------

    def statuses(self) -> list[ServerStatus]:
        """Each server's state, in config order."""
        return [
            ServerStatus(
                name=name,
                state=connection.state,
                tools=len(connection.tools),
                transport=connection.transport,
                error=connection.error,
                log_path=connection.log_path,
            )
            for name, connection in self._connections.items()
        ]

    def take_notices(self) -> list[str]:
        """One-line notices not shown yet; each is returned once."""
        notices = [text for _, text in self._notices]
        self._notices = []
        return notices

    # ---- inside ------------------------------------------------------------------------------

    def _connection(self, name: str) -> ServerConnection:
        server = self._config[name]
        log_path = self._log_dir / f"{sanitise(name)}.stderr.log" if server.command else None
        return ServerConnection(
            name=name, server=server, env=self._env, log_path=log_path, on_down=self._down
        )

    def _down(self, name: str, reason: str) -> None:
        self._notices.append((name, f"mcp server '{name}' is down: {reason}"))


def _keep_sdk_logs_off_the_terminal() -> None:
    """Send the SDK's log records where aish's go.

    Python prints records of a logger without handlers on stderr, which would write over the
    prompt; the SDK logs, for instance, every unparseable line a server prints on stdout.
    """
    sdk = logging.getLogger("mcp")
    if sdk.handlers:
        return
    handlers = logging.getLogger("aish").handlers
    for handler in handlers or [logging.NullHandler()]:
        sdk.addHandler(handler)
    sdk.propagate = False
