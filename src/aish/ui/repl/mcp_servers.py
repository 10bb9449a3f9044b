"""The REPL's MCP servers: started once the first prompt is drawn, told about between turns.

A slow or broken server never delays the prompt: the servers start after prompt_toolkit's
first render. A server that fails or dies says so once, above the prompt — only while the
prompt is up, never over a reply, a confirm question or a full-screen program. Tool lists are
adopted at turn boundaries only (prefix stability), and a change after tools were first
offered is said.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from aish.ui.render.visible_text import visible

if TYPE_CHECKING:
    from prompt_toolkit import PromptSession

    from aish.config.schema import McpConfig
    from aish.mcp import McpServers, McpTool, ServerStatus
    from aish.mcp.tool_changes import CatalogueChange

_log = logging.getLogger("aish.repl")

# How often pending notices are looked at while the prompt is up.
_NOTICE_EVERY_S = 0.5
_HELD = "asks before every call until you approve one"
_DESCRIPTION_SHOWN = 160

# A server's names and descriptions are foreign text: shown through the one escaping rule.
_foreign = visible


class ReplMcp:
    """The servers of one REPL session (none when none are configured)."""

    def __init__(
        self,
        config: McpConfig,
        *,
        notice: Callable[[str], None],
        status: Callable[[str], None],
    ) -> None:
        self._config = config
        self._notice = notice  # printed above the prompt
        self._status = status  # printed in the flow of a turn
        self._prompt: PromptSession[str] | None = None
        self.servers: McpServers | None = None
        self._notices: asyncio.Task[None] | None = None

    @property
    def configured(self) -> bool:
        return bool(self._config.servers or self._config.import_)

    def start_after_first_prompt(self, prompt: PromptSession[str]) -> None:
        if not self.configured:
            return
        self._prompt = prompt
        app = prompt.app

        def first_render(_: object) -> None:
            app.after_render -= first_render
            self._start()

        app.after_render += first_render

    def _start(self) -> None:
        from aish.config.paths import state_dir
        from aish.mcp import McpServers

        try:
            self.servers = McpServers.from_config(self._config, os.environ, state_dir() / "mcp")
            self.servers.start()
        except Exception as error:  # MCP must never cost the user their shell
            _log.exception("starting MCP servers failed")
            self._notice(f"MCP servers not started: {error}")
            return
        self._notices = asyncio.create_task(self._show_notices())

    async def _show_notices(self) -> None:
        while self.servers is not None:
            app = self._prompt.app if self._prompt is not None else None
            if app is not None and app.is_running:
                for notice in self.servers.take_notices():
                    self._notice(notice)
            await asyncio.sleep(_NOTICE_EVERY_S)

    def at_turn_boundary(self) -> None:
        """Adopt changed tool lists now, between turns, never within one, and show what
        changed (also what a Norris step adopted since the last boundary)."""
        if self.servers is None:
            return
        self.servers.refresh()
        for change in self.servers.take_changes():
            self._status("\n".join(change_lines(change)))

    async def close(self) -> None:
        if self._notices is not None:
            self._notices.cancel()
        servers, self.servers = self.servers, None
        if servers is not None:
            with contextlib.suppress(Exception):
                await servers.close()

    # ---- for `:mcp` ---------------------------------------------------------------------------

    def statuses(self) -> list[ServerStatus]:
        return self.servers.statuses() if self.servers is not None else []

    def tools(self) -> list[McpTool]:
        # A meta command is between turns: the list shown is the one the next request offers.
        self.at_turn_boundary()
        return self.servers.tools() if self.servers is not None else []

    async def restart(self, name: str) -> str:
        if self.servers is None:
            return "no MCP servers configured"
        return await self.servers.restart(name)

    def tool_options(self) -> dict[str, Any]:
        """Tools and their redeeming executor for a chat turn or a Norris run."""
        from aish.run.tool_calls import tool_options

        return tool_options(self.servers, self._config.max_tool_calls)


def change_lines(change: CatalogueChange) -> list[str]:
    """A changed tool list as a diff: `+` added, `-` removed, `~` changed (what changed), and
    which tools now ask before every call."""
    lines = ["MCP tools changed:"]
    for tool in change.added:
        held = f" ({_HELD})" if tool.qualified in change.held else ""
        lines.append(f"  + {_foreign(tool.qualified)}{held}")
    for tool in change.removed:
        lines.append(f"  - {_foreign(tool.qualified)}")
    for changed in change.changed:
        tool = changed.tool
        held = f" ({_HELD})" if tool.qualified in change.held else ""
        lines.append(f"  ~ {_foreign(tool.qualified)}: {', '.join(changed.differences)}{held}")
        if "description changed" in changed.differences:
            text = " ".join(tool.description.split())
            if len(text) > _DESCRIPTION_SHOWN:
                text = text[: _DESCRIPTION_SHOWN - 1] + "…"
            lines.append(f"      now: {_foreign(text)}")
    return lines
