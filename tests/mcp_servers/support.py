"""Finding and running the MCP servers the tests talk to.

`make test` installs `@modelcontextprotocol/server-everything` (npm) into `.tools/` and
`mcp-server-time` (PyPI, a dev extra) into the venv; run outside make, the tests that need a
missing one are skipped with the reason.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import pytest

from aish.config.schema import McpConfig
from aish.config.validation import validate_section
from aish.mcp import McpServers

ROOT = Path(__file__).resolve().parents[2]
EVERYTHING = ROOT / ".tools/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
SCRIPTED = Path(__file__).resolve().parent / "scripted_server.py"
MODERN = Path(__file__).resolve().parent / "modern_server.py"

needs_everything = pytest.mark.skipif(
    not EVERYTHING.is_file() or shutil.which("node") is None,
    reason=f"server-everything is not installed at {EVERYTHING} (`make test` installs it)",
)
needs_time = pytest.mark.skipif(
    find_spec("mcp_server_time") is None,
    reason="mcp-server-time is not installed (`make test` installs the dev extra)",
)


def everything_stdio() -> dict[str, Any]:
    return {"command": "node", "args": [str(EVERYTHING), "stdio"]}


def time_stdio() -> dict[str, Any]:
    return {"command": sys.executable, "args": ["-m", "mcp_server_time", "--local-timezone=UTC"]}


def scripted(**options: Any) -> dict[str, Any]:
    return {"command": sys.executable, "args": [str(SCRIPTED)], **options}


def servers(tables: Mapping[str, Mapping[str, Any]], log_dir: Path, **config: Any) -> McpServers:
    """McpServers for these `[mcp.servers]` tables, with the test's environment."""
    mcp = validate_section(McpConfig, {"servers": dict(tables), **config})
    return McpServers.from_config(mcp, os.environ, log_dir)


async def settled(mcp: McpServers, deadline_s: float = 60.0) -> None:
    """Wait until no server is starting any more (fails the test after `deadline_s`)."""
    end = time.monotonic() + deadline_s
    while any(status.state == "starting" for status in mcp.statuses()):
        assert time.monotonic() < end, f"servers still starting: {mcp.statuses()}"
        await asyncio.sleep(0.05)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@contextlib.contextmanager
def everything_http(log: Path) -> Iterator[str]:
    """server-everything over Streamable HTTP on a free port; yields its URL."""
    port = free_port()
    with log.open("wb") as output:
        process = subprocess.Popen(
            ["node", str(EVERYTHING), "streamableHttp"],
            env={**os.environ, "PORT": str(port)},
            stdout=output,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
    try:
        end = time.monotonic() + 30
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
                break
            assert process.poll() is None, log.read_text()
            assert time.monotonic() < end, "server-everything did not listen within 30 s"
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        try:
            process.wait(5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
