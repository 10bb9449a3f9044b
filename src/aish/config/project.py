"""Project config: finding `.aish.toml`, hashing it, and saying what it would change.

A project file overlays the user config (models to prefer, system notes, MCP servers, safety
rules), but it can arrive with a cloned repository, so it applies only once the user has trusted
exactly its bytes (`:trust`; the store keeps path + sha256). This module is pure apart from
reading files: the store is asked through a callable the loader is given, never imported here.

Discovery looks in the cwd and its parents, nearest first, and never above the git root (a
directory holding `.git`) or `$HOME`, whichever comes first; when neither is above the cwd, only
the cwd itself counts, so a file in `/tmp` or `/` cannot reach every directory below it.
"""

from __future__ import annotations

import hashlib
import json
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

from aish.config.bounded_read import read_bounded
from aish.config.layers import dotted, leaves
from aish.config.toml_locations import KeyPath

PROJECT_FILE_NAME: Final = ".aish.toml"

# Given a project file's absolute path, the sha256 (hex) the user trusted for it, or None.
TrustLookup = Callable[[Path], str | None]

# Values never shown back: they may be credentials.
_HIDDEN_KEYS: Final = frozenset({"api_key"})
_HIDDEN_TABLES: Final = frozenset({"headers", "env"})
_MAX_SHOWN: Final = 80


def find_project_file(cwd: Path | str, home: Path | str | None) -> Path | None:
    """The nearest `.aish.toml` at or above `cwd`, within the git root or `home` (inclusive)."""
    start = Path(cwd).absolute()
    top = Path(home).absolute() if home is not None else None
    chain = [start, *start.parents]
    stop = next(
        (i for i, folder in enumerate(chain) if folder == top or _is_git_root(folder)),
        0,  # no bound above: the cwd only
    )
    for folder in chain[: stop + 1]:
        candidate = folder / PROJECT_FILE_NAME
        if candidate.is_file():
            return candidate
    return None


def _is_git_root(folder: Path) -> bool:
    try:
        return (folder / ".git").exists()  # a file in worktrees and submodules
    except OSError:
        return False


def digest_of(data: bytes) -> str:
    """What trust is recorded against: the sha256 of the file's bytes, in hex."""
    return hashlib.sha256(data).hexdigest()


def not_trusted_notice(path: Path) -> str:
    return f"project config {path} is not trusted: :trust to use it"


def changed_notice(path: Path) -> str:
    return f"project config {path} changed since you trusted it: :trust again to use it"


def parse_project(data: bytes) -> dict[str, Any]:
    """The file's tables; ValueError with one line when it is not UTF-8 TOML."""
    try:
        return tomllib.loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise ValueError("not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"syntax: {exc}") from None
    except RecursionError:
        raise ValueError("syntax: values nested too deeply") from None


def sensitive_reason(path: KeyPath) -> str | None:
    """Why setting `path` from a project file deserves the user's attention, or None.

    These keys decide where questions and keys go, what runs without asking, and which
    programs start: a project must not change them without the user seeing it.
    """
    head = path[:1]
    if head == ("models",) and len(path) >= 3:
        return {
            "endpoint": "endpoint",
            "api_key_env": "API key variable",
            "api_key": "API key",
            "secrets": "secret scrubbing",
        }.get(str(path[2]))
    if head == ("mcp",) and len(path) >= 2:
        if path[1] == "import":
            return "MCP servers imported"
        if path[1] == "servers":
            return "MCP auto_approve" if "auto_approve" in path[3:4] else "MCP server"
        return None
    if head == ("safety",):
        return "safety rule"
    if path[:2] == ("ui", "shell"):
        return "shell program"
    if path[:2] in (("routing", "cloud_fallback"), ("routing", "fallback_model")):
        return "cloud fallback"
    return None


def shown_value(path: KeyPath, value: object) -> str:
    """A value as a line may show it: TOML-ish, shortened, credentials hidden."""
    if value is None:
        return "unset"
    hidden = bool(path) and path[-1] in _HIDDEN_KEYS
    if hidden or any(part in _HIDDEN_TABLES for part in path[:-1]):
        return "(hidden)"
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= _MAX_SHOWN else text[: _MAX_SHOWN - 1] + "…"


def describe_data(data: dict[str, Any]) -> list[str]:
    """One line per key the file sets: `! models.x.endpoint = "…"  (endpoint)` when sensitive,
    `  context.max_turns = 10` otherwise, in the file's order."""
    lines = []
    for path, value in leaves(data):
        reason = sensitive_reason(path)
        mark = "!" if reason else " "
        note = f"  ({reason})" if reason else ""
        lines.append(f"{mark} {dotted(path)} = {shown_value(path, value)}{note}")
    return lines


def describe_project(path: Path, data: bytes | None = None) -> list[str]:
    """What the project file at `path` sets (see `describe_data`).

    `data`: the bytes already read (so what is described is what gets hashed). OSError when the
    file cannot be read, ValueError (one line) when it is not valid TOML.
    """
    raw = read_bounded(Path(path)) if data is None else data
    return describe_data(parse_project(raw))


def is_sensitive_line(line: str) -> bool:
    """Whether a `describe_project` line is a sensitive key."""
    return line.startswith("!")
