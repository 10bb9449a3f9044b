"""Shared fixtures: a real aish-testllm server on 127.0.0.1 and an isolated XDG home."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from aish_testllm.server import TestLLMServer

ServeFn = Callable[[dict[str, Any]], "TestLLMServer"]


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[ServeFn]:
    """Start a scenario on a real HTTP server; every server is closed after the test."""
    from aish_testllm.server import TestLLMServer

    servers: list[TestLLMServer] = []

    def start(scenario: dict[str, Any]) -> TestLLMServer:
        server = TestLLMServer(scenario, log_path=tmp_path / f"testllm-{len(servers)}.jsonl")
        server.__enter__()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.close()


@pytest.fixture
def xdg_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """XDG dirs inside tmp_path, so no test reads or writes the developer's real config."""
    home = tmp_path / "home"
    for var, sub in (
        ("XDG_CONFIG_HOME", "config"),
        ("XDG_STATE_HOME", "state"),
        ("XDG_DATA_HOME", "data"),
        ("XDG_CACHE_HOME", "cache"),
    ):
        (home / sub).mkdir(parents=True)
        monkeypatch.setenv(var, str(home / sub))
    monkeypatch.setenv("HOME", str(home))
    # Nor the machine's system policy (/etc/aish/policy.toml): tests that want one write it.
    monkeypatch.setenv("AISH_SYSTEM_POLICY", str(home / "no-system-policy.toml"))
    for var in (
        "AISH_CONFIG",
        "AISH_LOG",
        "OPENAI_API_KEY",
        "OPENROUTER_API_KEY",
        "ANTHROPIC_API_KEY",
        "NO_COLOR",
    ):
        monkeypatch.delenv(var, raising=False)
    return home
