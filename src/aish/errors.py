"""The root of aish's own errors, and the one error every room may raise: `ConfigError`.

Why a root: a failure aish reports to the user (a broker error, a config that cannot be used,
the spending stop, a dead shell, an unusable database) is an `AishError`, so "something aish
says went wrong" is one `except` clause, and a bug (any other exception) is not swallowed by it.
Each room still defines its own kinds (`llm.errors`, `store.errors`, `shell.results`,
`agent.outbound.SpendingStopped`); callers catch the kinds they mean.

Why `ConfigError` lives here and not in `llm/`: it is raised on both sides of a door that
points no way between them — resolving a preset (config and keys) and building a request (a
header or URL the broker cannot send) — and it is not a broker failure: it is never retried and
never falls back. This module imports nothing from aish.
"""

from __future__ import annotations

__all__ = ["AishError", "ConfigError"]


class AishError(Exception):
    """Base of every error aish raises on purpose; `str()` is one line meant for the user."""


class ConfigError(AishError):
    """The request cannot be made as configured (unknown preset, missing API key variable, a
    key or URL HTTP cannot carry). `target` names the preset when known."""

    def __init__(self, message: str, *, target: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.target = target

    def __str__(self) -> str:
        where = f"{self.target}: " if self.target else ""
        return f"{where}{self.message}"
