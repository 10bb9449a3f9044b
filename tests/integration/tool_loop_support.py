"""Real MCP servers for the tool-loop tests: `mcp-server-time` (PyPI) and the notes server
(`notes_mcp_server.py`, the official SDK over stdio), through the real `McpServers`."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import time
from collections.abc import AsyncIterator, Mapping
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import pytest

from aish.config.schema import McpConfig
from aish.config.validation import validate_section
from aish.mcp import McpServers
from aish_testllm.prefix import serialise_prompt

NOTES_SERVER = Path(__file__).resolve().parent / "notes_mcp_server.py"

needs_time = pytest.mark.skipif(
    find_spec("mcp_server_time") is None,
    reason="mcp-server-time is not installed (`make test` installs the dev extra)",
)


def time_server(**options: Any) -> dict[str, Any]:
    args = ["-m", "mcp_server_time", "--local-timezone=UTC"]
    return {"command": sys.executable, "args": args, **options}


def notes_server(folder: Path, **options: Any) -> dict[str, Any]:
    return {"command": sys.executable, "args": [str(NOTES_SERVER), str(folder)], **options}


@contextlib.asynccontextmanager
async def mcp_servers(
    tables: Mapping[str, Mapping[str, Any]], log_dir: Path, *, deadline_s: float = 60.0
) -> AsyncIterator[McpServers]:
    """The servers started and their tools adopted (a turn boundary's `refresh`)."""
    config = validate_section(McpConfig, {"servers": dict(tables)})
    servers = McpServers.from_config(config, os.environ, log_dir)
    servers.start()
    try:
        end = time.monotonic() + deadline_s
        while True:
            servers.refresh()
            if {tool.server for tool in servers.tools()} == set(tables):
                break
            assert time.monotonic() < end, "the MCP servers did not list their tools in time"
            await asyncio.sleep(0.05)
        yield servers
    finally:
        await servers.close()


def chat_requests(server: Any) -> list[dict[str, Any]]:
    return [r for r in server.requests if r["path"].endswith("/chat/completions")]


def sent(request: dict[str, Any]) -> str:
    """A request as the test server serialises it for its prefix cache."""
    body = request["body"]
    return serialise_prompt(body.get("tools") or [], None, body["messages"])
