"""The MCP servers to start: `[mcp.servers]` plus the `mcpServers` JSON files of `mcp.import`.

Other MCP hosts keep their servers in one JSON shape (Claude Desktop and Code, Cursor, Gemini
CLI; VS Code names the key `servers`), so a user can point aish at the file they already have:

    {"mcpServers": {"name": {"command": "...", "args": [...], "env": {...}, "cwd": "..."},
                    "web":  {"type": "http", "url": "https://...", "headers": {...}}}}

Entries may say `type` (`stdio`, `http`, `streamable-http`); `httpUrl` is Gemini's name for a
Streamable HTTP URL; the old HTTP+SSE transport is not supported and such entries are skipped;
other keys are ignored. `${VAR}` and `${VAR:-default}` (also `${env:VAR}`) are expanded in
command, args, env, cwd, url and headers of imported and declared servers alike; a server that
names an unset variable without a default is skipped. A server declared in the config wins
over an imported one of the same name, an earlier file over a later one. Relative import paths
are relative to the config file's folder.

Every problem is one warning line; the servers that are fine are still returned.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aish.config.bounded_read import FileTooLarge, read_bounded
from aish.config.paths import config_file
from aish.config.schema import McpConfig, McpServer
from aish.config.schema_fields import toml_data

__all__ = ["MissingVariable", "ResolvedServers", "expand", "read_import", "resolve_servers"]

_VARIABLE = re.compile(r"\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
_HTTP_TYPES = frozenset({"http", "streamable-http", "streamable_http", "streamablehttp"})
_STDIO_TYPES = frozenset({"stdio"})
_MAX_FILE_BYTES = 1024 * 1024


class MissingVariable(Exception):
    """A `${NAME}` without a default whose variable is not set."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name


@dataclass
class ResolvedServers:
    servers: dict[str, McpServer] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


def expand(text: str, env: Mapping[str, str]) -> str:
    """`text` with `${NAME}` and `${NAME:-default}` replaced from `env`.

    Like the shell, the default also stands in for a variable that is set but empty.
    Raises MissingVariable for an unset `${NAME}` without a default.
    """

    def value(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        found = env.get(name)
        if default is not None:
            return found if found else default
        if found is None:
            raise MissingVariable(name)
        return found

    return _VARIABLE.sub(value, text)


def resolve_servers(config: McpConfig, env: Mapping[str, str]) -> ResolvedServers:
    """The declared servers, then the imported ones, expanded and validated."""
    resolved = ResolvedServers()
    for name, server in config.servers.items():
        _add(resolved, name, toml_data(server), env, f"mcp.servers.{name}")
    base = config_file(env).parent
    for written in config.import_:
        try:
            path = Path(expand(written, env)).expanduser()
        except MissingVariable as missing:
            resolved.warnings.append(
                f"mcp.import {written}: skipped: ${{{missing.name}}} is not set"
            )
            continue
        path = path if path.is_absolute() else base / path
        entries, warnings = read_import(path)
        resolved.warnings += warnings
        for name, table in entries.items():
            if name not in resolved.servers:
                _add(resolved, name, table, env, f"{path}: server '{name}'")
    return resolved


def read_import(path: Path) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """The server tables of one `mcpServers` file, in aish's shape, and warnings about it."""
    try:
        raw = read_bounded(path, _MAX_FILE_BYTES)
    except FileNotFoundError:
        return {}, [f"mcp.import {path}: no such file"]
    except FileTooLarge as exc:
        return {}, [f"mcp.import {path}: not read: {exc}"]
    except OSError as exc:
        return {}, [f"mcp.import {path}: cannot read: {exc.strerror or exc}"]
    try:
        data = json.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError:
        return {}, [f"mcp.import {path}: not UTF-8 text"]
    except json.JSONDecodeError as exc:
        return {}, [f"{path}:{exc.lineno}: not valid JSON: {exc.msg}"]
    if not isinstance(data, dict):
        return {}, [f"mcp.import {path}: not a JSON object"]
    servers = data.get("mcpServers", data.get("servers"))
    if servers is None:
        return {}, [f"mcp.import {path}: no `mcpServers` (or `servers`) object"]
    if not isinstance(servers, dict):
        return {}, [f"mcp.import {path}: `mcpServers` is not an object"]
    tables: dict[str, dict[str, Any]] = {}
    warnings: list[str] = []
    for name, entry in servers.items():
        table, problem = _table(entry)
        if problem is not None:
            warnings.append(f"{path}: server '{name}': {problem}")
        elif table is not None:
            tables[name] = table
    return tables, warnings


def _table(entry: object) -> tuple[dict[str, Any] | None, str | None]:
    """One entry in aish's shape; (None, None) for an entry the user disabled."""
    if not isinstance(entry, dict):
        return None, "not an object"
    if entry.get("disabled") is True:
        return None, None
    kind = entry.get("type", entry.get("transport"))
    kind = kind.strip().lower() if isinstance(kind, str) else None
    if kind == "sse":
        return None, "skipped: the SSE transport is not supported (Streamable HTTP is)"
    if kind is not None and kind not in _HTTP_TYPES | _STDIO_TYPES:
        return None, f"skipped: unknown type {kind!r}"
    url = entry.get("httpUrl", entry.get("url"))
    table: dict[str, Any] = {}
    if kind in _STDIO_TYPES or (kind is None and "command" in entry):
        for key in ("command", "args", "env", "cwd"):
            if key in entry:
                table[key] = entry[key]
    elif url is not None:
        table["url"] = url
        if "headers" in entry:
            table["headers"] = entry["headers"]
    else:
        return None, "has neither `command` nor `url`"
    for key in ("env", "headers"):
        if isinstance(table.get(key), dict):
            table[key] = {k: _scalar_text(v) for k, v in table[key].items()}
    return table, None


def _add(
    resolved: ResolvedServers,
    name: str,
    table: Mapping[str, Any],
    env: Mapping[str, str],
    where: str,
) -> None:
    from aish.config.validation import ValidationError, validate_server  # pydantic, now

    try:
        expanded = _expanded(table, env)
        resolved.servers[name] = validate_server(expanded)
    except MissingVariable as missing:
        resolved.warnings.append(f"{where}: skipped: ${{{missing.name}}} is not set")
    except ValidationError as exc:
        error = exc.errors()[0]
        location = ".".join(str(part) for part in error["loc"])
        message = error["msg"].removeprefix("Value error, ")
        resolved.warnings.append(
            f"{where}: skipped: {location + ': ' if location else ''}{message}"
        )


def _expanded(table: Mapping[str, Any], env: Mapping[str, str]) -> dict[str, Any]:
    out = dict(table)
    for key in ("command", "cwd", "url"):
        if isinstance(out.get(key), str):
            out[key] = expand(out[key], env)
    for key in ("command", "cwd"):  # a program is not started by a shell: `~` is ours to expand
        if isinstance(out.get(key), str) and out[key].startswith("~"):
            out[key] = str(Path(out[key]).expanduser())
    if isinstance(out.get("args"), list):
        out["args"] = [expand(a, env) if isinstance(a, str) else a for a in out["args"]]
    for key in ("env", "headers"):
        if isinstance(out.get(key), dict):
            out[key] = {k: expand(v, env) if isinstance(v, str) else v for k, v in out[key].items()}
    return out


def _scalar_text(value: object) -> object:
    """JSON files write `"PORT": 3000`; the environment only holds text."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value) if isinstance(value, int | float) else value
