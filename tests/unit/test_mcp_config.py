"""MCP config: `${VAR}` expansion, `mcpServers` JSON imports, precedence, validation messages."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from aish.config.loader import load_config
from aish.config.mcp_import import MissingVariable, expand, read_import, resolve_servers
from aish.config.schema import McpConfig
from aish.config.validation import validate_config, validate_section


def _write(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data) if not isinstance(data, str) else data)
    return path


def test_expand_variables_and_defaults() -> None:
    env = {"HOME": "/home/u", "EMPTY": "", "TOKEN": "t0k"}
    assert expand("${HOME}/bin", env) == "/home/u/bin"
    assert expand("Bearer ${TOKEN}", env) == "Bearer t0k"
    assert expand("${env:TOKEN}", env) == "t0k"  # Cursor's spelling
    assert expand("${PORT:-3001}", env) == "3001"
    assert expand("${EMPTY:-fallback}", env) == "fallback"  # like the shell's :-
    assert expand("${EMPTY}", env) == ""
    assert expand("${NOPE:-}", env) == ""
    assert expand("$HOME and $ {HOME} stay", env) == "$HOME and $ {HOME} stay"
    with pytest.raises(MissingVariable) as missing:
        expand("x ${NOT_SET} y", env)
    assert missing.value.name == "NOT_SET"


def test_import_reads_the_common_shapes(tmp_path: Path) -> None:
    claude = {
        "mcpServers": {
            "files": {"command": "npx", "args": ["-y", "server-files", "/tmp"], "env": {"N": 3}},
            "web": {"type": "http", "url": "https://example.com/mcp", "headers": {"A": "b"}},
            "gemini": {"httpUrl": "https://example.com/g", "timeout": 5000, "trust": True},
            "plain": {"url": "https://example.com/p"},
            "old": {"type": "sse", "url": "https://example.com/sse"},
            "off": {"command": "x", "disabled": True},
            "odd": {"type": "websocket", "url": "wss://x"},
            "empty": {},
            "bad": [],
        }
    }
    tables, warnings = read_import(_write(tmp_path / "c.json", claude))
    assert tables == {
        "files": {"command": "npx", "args": ["-y", "server-files", "/tmp"], "env": {"N": "3"}},
        "web": {"url": "https://example.com/mcp", "headers": {"A": "b"}},
        "gemini": {"url": "https://example.com/g"},
        "plain": {"url": "https://example.com/p"},
    }
    path = tmp_path / "c.json"
    assert warnings == [
        f"{path}: server 'old': skipped: the SSE transport is not supported (Streamable HTTP is)",
        f"{path}: server 'odd': skipped: unknown type 'websocket'",
        f"{path}: server 'empty': has neither `command` nor `url`",
        f"{path}: server 'bad': not an object",
    ]
    vscode = {"servers": {"git": {"type": "stdio", "command": "uvx", "args": ["mcp-server-git"]}}}
    tables, warnings = read_import(_write(tmp_path / "mcp.json", vscode))
    assert tables == {"git": {"command": "uvx", "args": ["mcp-server-git"]}} and warnings == []


def test_malformed_import_files_are_one_line_each(tmp_path: Path) -> None:
    cases = {
        "syntax.json": ('{\n  "mcpServers": {,\n}', ":2: not valid JSON: "),
        "list.json": ("[]", ": not a JSON object"),
        "none.json": ('{"other": {}}', ": no `mcpServers` (or `servers`) object"),
        "wrong.json": ('{"mcpServers": []}', ": `mcpServers` is not an object"),
    }
    for name, (text, expected) in cases.items():
        tables, warnings = read_import(_write(tmp_path / name, text))
        assert tables == {} and len(warnings) == 1 and expected in warnings[0], warnings
        assert "\n" not in warnings[0]
    assert read_import(tmp_path / "absent.json") == (
        {},
        [f"mcp.import {tmp_path / 'absent.json'}: no such file"],
    )


def test_declared_servers_win_and_the_rest_still_work(tmp_path: Path) -> None:
    first = _write(
        tmp_path / "first.json",
        {"mcpServers": {"time": {"command": "imported"}, "a": {"command": "first-a"}}},
    )
    second = _write(tmp_path / "second.json", {"mcpServers": {"a": {"command": "second-a"}}})
    broken = _write(tmp_path / "broken.json", "{")
    config = validate_section(
        McpConfig,
        {
            "servers": {"time": {"command": "declared", "trusted": True}},
            "import": [str(first), str(broken), str(second)],
        },
    )
    resolved = resolve_servers(config, {})
    assert list(resolved.servers) == ["time", "a"]
    assert resolved.servers["time"].command == "declared" and resolved.servers["time"].trusted
    assert resolved.servers["a"].command == "first-a" and not resolved.servers["a"].trusted
    assert len(resolved.warnings) == 1 and str(broken) in resolved.warnings[0]


def test_variables_are_expanded_in_declared_and_imported_servers(tmp_path: Path) -> None:
    imported = _write(
        tmp_path / "i.json",
        {
            "mcpServers": {
                "gh": {
                    "url": "https://${HOST:-example.com}/mcp",
                    "headers": {"Authorization": "Bearer ${GH_TOKEN}"},
                },
                "needs": {"command": "srv", "env": {"KEY": "${MISSING_KEY}"}},
            }
        },
    )
    config = validate_section(
        McpConfig,
        {
            "servers": {
                "local": {
                    "command": "${TOOLS}/srv",
                    "args": ["--root", "${HOME}"],
                    "cwd": "${HOME}",
                    "env": {"LEVEL": "${LEVEL:-2}"},
                },
                "web": {"url": "${WEB_URL}"},
            },
            "import": [str(imported)],
        },
    )
    env = {"TOOLS": "/opt/t", "HOME": "/home/u", "GH_TOKEN": "s3cret", "WEB_URL": "ftp://x"}
    resolved = resolve_servers(config, env)
    local = resolved.servers["local"]
    assert (local.command, local.args, local.cwd) == (
        "/opt/t/srv",
        ["--root", "/home/u"],
        "/home/u",
    )
    assert local.env == {"LEVEL": "2"}
    gh = resolved.servers["gh"]
    assert gh.url == "https://example.com/mcp"
    assert gh.headers == {"Authorization": "Bearer s3cret"}
    assert set(resolved.servers) == {"local", "gh"}
    assert resolved.warnings == [
        "mcp.servers.web: skipped: url: must be an http:// or https:// URL with a host",
        f"{imported}: server 'needs': skipped: ${{MISSING_KEY}} is not set",
    ]


def test_relative_import_paths_are_next_to_the_config_file(tmp_path: Path) -> None:
    _write(tmp_path / "servers.json", {"mcpServers": {"s": {"command": "x"}}})
    config = validate_section(McpConfig, {"import": ["servers.json", "${NOPE}/x.json"]})
    resolved = resolve_servers(config, {"AISH_CONFIG": str(tmp_path / "config.toml")})
    assert list(resolved.servers) == ["s"]
    assert resolved.warnings == ["mcp.import ${NOPE}/x.json: skipped: ${NOPE} is not set"]


def test_schema_additions() -> None:
    config = validate_config(
        {
            "models": {"small": {"endpoint": "http://127.0.0.1:8080/v1", "model": "m"}},
            "mcp": {"servers": {"q": {"url": "https://example.com/mcp?key=1"}}},
        }
    )
    assert config.models["small"].tools is True
    assert config.mcp.max_tool_calls == 8
    assert config.mcp.servers["q"].url == "https://example.com/mcp?key=1"  # as written


def test_config_mistakes_are_one_warning_line_each(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(
        "[mcp]\nmax_tool_calls = 0\n\n"
        '[mcp.servers.both]\ncommand = "a"\nurl = "http://127.0.0.1:1/mcp"\n\n'
        '[mcp.servers.typo]\ncommand = "b"\ntmeout_s = 3\n\n'
        '[mcp.servers.fine]\ncommand = "c"\n\n'
        "[models.small]\nendpoint = 'http://127.0.0.1:8080/v1'\nmodel = 'm'\ntools = 'maybe'\n"
    )
    loaded = load_config(config_path=path, env={}, autodetect=False)
    assert sorted(loaded.warnings) == sorted(
        [
            f"{path}:2: key mcp.max_tool_calls: must be greater than or equal to 1 (got 0)",
            f"{path}:4: key mcp.servers.both: set exactly one of `command` (stdio) or `url` (HTTP)",
            f"{path}:10: key mcp.servers.typo.tmeout_s: unknown key (did you mean timeout_s?)",
            f"{path}:18: key models.small.tools: must be true or false (got 'maybe')",
        ]
    )
    assert list(loaded.config.mcp.servers) == ["typo", "fine"]
    assert loaded.config.mcp.max_tool_calls == 8
