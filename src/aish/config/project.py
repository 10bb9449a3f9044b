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
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from aish.config.bounded_read import read_bounded
from aish.config.layers import dotted, leaves
from aish.config.toml_locations import KeyPath

PROJECT_FILE_NAME: Final = ".aish.toml"


@dataclass(frozen=True)
class Trusted:
    """The trust recorded for a project file: the sha256 (hex) of the bytes the user agreed to,
    and whether they also let its allow rules apply (a project otherwise only tightens)."""

    digest: str
    allows: bool = False


# Given a project file's absolute path, the trust the user recorded for it, or None. A bare
# digest is a trust without the file's allow rules.
TrustLookup = Callable[[Path], "Trusted | str | None"]


def as_trusted(recorded: Trusted | str | None) -> Trusted | None:
    return Trusted(recorded) if isinstance(recorded, str) else recorded


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
    return f"project config {path} is not trusted: :trust to review it"


def changed_notice(path: Path) -> str:
    return f"project config {path} changed since you trusted it: :trust to review it again"


def parse_project(data: bytes) -> dict[str, Any]:
    """The file's tables; ValueError with one line when it is not UTF-8 TOML."""
    import tomllib  # a start with a kept config parses no TOML

    try:
        return tomllib.loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise ValueError("not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"syntax: {exc}") from None
    except RecursionError:
        raise ValueError("syntax: values nested too deeply") from None


# What a project file may set without being marked: how much context is kept and how things
# look. Everything else is marked, known or not, so a key added later is marked until it is
# judged here.
_UNMARKED: Final[frozenset[KeyPath]] = frozenset(
    {
        ("context", "max_turns"),
        ("context", "token_budget"),
        ("context", "summarize_on_evict"),
        ("context", "max_summary_chars"),
        ("context", "output_max_lines"),
        ("context", "output_max_bytes"),
        ("context", "project_max_files"),
        ("context", "project_max_depth"),
        ("memory", "inject_max_chars"),
        ("cost", "warn_at_dollars"),
        ("ui", "show_reasoning"),
        ("ui", "edit_mode"),
    }
)

_RUNS: Final = "widens what runs"
_NETWORK: Final = "reaches the network"
_MODEL: Final = "changes models"

_PRESET_REASONS: Final = {
    "endpoint": f"{_NETWORK}: model endpoint",
    "api_key_env": f"{_NETWORK}: API key variable",
    "api_key": f"{_NETWORK}: API key",
    "secrets": f"{_NETWORK}: secret scrubbing",
    "model": _MODEL,
}
_SAFETY_REASONS: Final = {
    "allow": f"{_RUNS}: runs without asking",
    "confirm_cmd": f"{_RUNS}: confirm setting",
    "destructive": "safety rule",
    "llm_second_opinion": f"{_RUNS}: second opinion",
    "llm_model": f"{_MODEL}: second opinion",
}
_MODEL_CHOICES: Final[frozenset[KeyPath]] = frozenset(
    {
        ("default_model",),
        ("memory", "summarizer_model"),
        ("context", "summarizer_model"),
        ("norris", "preplanner"),
        ("norris", "executor"),
        ("routing", "auto"),
        ("routing", "fallback_model"),
    }
)


def sensitive_reason(path: KeyPath) -> str | None:
    """Why setting `path` from a project file deserves the user's attention, or None.

    Marked: whatever widens what runs (allow rules, confirm settings, Norris's unattended
    bounds, MCP auto_approve), reaches the network (endpoints, keys, MCP servers, cloud
    fallback), changes models or starts programs — and any key not known to be harmless.
    """
    if not path or path[:2] in _UNMARKED:
        return None
    head = path[0]
    if path[:2] in _MODEL_CHOICES or path[:1] in _MODEL_CHOICES:
        return _MODEL
    if head == "models":
        return _PRESET_REASONS.get(str(path[2]), "model preset") if len(path) >= 3 else _MODEL
    if head == "safety":
        return _SAFETY_REASONS.get(str(path[1]) if len(path) > 1 else "", "safety rule")
    if head == "mcp":
        return _mcp_reason(path)
    if head == "norris":
        return f"{_RUNS}: Norris runs unattended"
    if head == "routing":
        return f"{_NETWORK}: cloud fallback" if "cloud_fallback" in path else _MODEL
    if path[:2] == ("ui", "shell"):
        return f"{_RUNS}: shell program"
    if path[:2] == ("cost", "stop_at_dollars"):
        return "spending stop"
    return "setting not known to be harmless"


def _mcp_reason(path: KeyPath) -> str:
    if path[1:2] == ("import",):
        return f"{_RUNS}, {_NETWORK}: MCP servers imported"
    if path[1:2] != ("servers",):
        return f"{_RUNS}: MCP tool calls"
    if "auto_approve" in path[3:4]:
        return f"{_RUNS}: MCP tools without asking"
    if "trusted" in path[3:4]:
        return f"{_RUNS}: MCP annotations trusted"
    return f"{_RUNS}, {_NETWORK}: MCP server"


def shown_value(path: KeyPath, value: object, *, whole: bool = False) -> str:
    """A value as a line may show it: TOML-ish, credentials hidden, shortened unless `whole`.

    Control characters come out as JSON escapes; the caller still escapes the whole line for
    the terminal (a key's name can carry them too)."""
    if value is None:
        return "unset"
    hidden = bool(path) and path[-1] in _HIDDEN_KEYS
    if hidden or any(part in _HIDDEN_TABLES for part in path[:-1]):
        return "(hidden)"
    import json

    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if whole or len(text) <= _MAX_SHOWN else text[: _MAX_SHOWN - 1] + "…"


def describe_data(data: dict[str, Any]) -> list[str]:
    """One line per key the file sets: the marked ones first, whole, as
    `! safety.allow = ["*"]  (widens what runs: runs without asking)`, then the others as
    `  context.max_turns = 10`, each group in the file's order.

    A marked value is never shortened: what is cut off could be the part that matters."""
    marked, plain = [], []
    for path, value in leaves(data):
        reason = sensitive_reason(path)
        if reason is None:
            plain.append(f"  {dotted(path)} = {shown_value(path, value)}")
        else:
            shown = shown_value(path, value, whole=True)
            marked.append(f"! {dotted(path)} = {shown}  ({reason})")
    return marked + plain


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
