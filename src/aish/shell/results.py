"""What the shell session hands back: command results, known names, errors, and the notices
the user reads when the shell dies or a command cannot run (all user-visible text of the session
lives here, in one place).
"""

from __future__ import annotations

import os
import signal
from dataclasses import dataclass
from typing import TYPE_CHECKING

from aish.errors import AishError

if TYPE_CHECKING:
    from aish.shell.capture import CapturedOutput

__all__ = [
    "CommandResult",
    "KnownNames",
    "ShellBusyError",
    "ShellClosedError",
    "ShellError",
    "ShellExit",
    "ShellStartError",
    "death_notice",
    "respawn_failed_notice",
    "start_failed_message",
]

INCOMPLETE_NOTICE = (
    "the command is incomplete (the shell asked for a continuation line), so it was cancelled"
)
HOOKS_RESTORED_NOTICE = (
    "the command replaced aish's PROMPT_COMMAND hook; it has been put back "
    "(the exit status came from the prompt)"
)


@dataclass(frozen=True)
class CommandResult:
    """One command run in the shell, as the model and the session log see it."""

    command: str
    exit_status: int
    cwd_before: str
    cwd_after: str
    duration_s: float
    output: CapturedOutput
    notice: str | None = None
    # Keys the user typed while it ran (or typed ahead for it) that it did not read: the start
    # of the next prompt's input, as bash would have them.
    typeahead: bytes = b""


@dataclass(frozen=True)
class KnownNames:
    """Names the live shell resolves without PATH: for routing a line and for completion."""

    builtins: frozenset[str] = frozenset()
    keywords: frozenset[str] = frozenset()
    aliases: frozenset[str] = frozenset()
    functions: frozenset[str] = frozenset()

    def all(self) -> frozenset[str]:
        """Every name of every kind."""
        return self.builtins | self.keywords | self.aliases | self.functions


@dataclass(frozen=True)
class ShellExit:
    """How a shell process ended: an exit code, or the signal that killed it."""

    code: int | None
    signal: int | None

    @classmethod
    def from_wait_status(cls, status: int) -> ShellExit:
        if os.WIFSIGNALED(status):
            return cls(None, os.WTERMSIG(status))
        return cls(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 0, None)

    @property
    def status(self) -> int:
        """The shell convention: the exit code, or 128 + the signal number."""
        if self.signal is not None:
            return 128 + self.signal
        return self.code if self.code is not None else 0

    def describe(self) -> str:
        if self.signal is not None:
            try:
                name = signal.Signals(self.signal).name
            except ValueError:
                name = f"signal {self.signal}"
            return f"the shell was killed by {name}"
        return f"the shell exited (status {self.status})"


def death_notice(how: ShellExit, new_cwd: str) -> str:
    """What the user is told when the shell died and a new one took its place."""
    return (
        f"{how.describe()}; started a new one in {new_cwd} — "
        "its variables, aliases and functions are gone"
    )


def respawn_failed_notice(how: ShellExit, reason: str) -> str:
    return f"{how.describe()} and a new one could not be started: {reason}"


def start_failed_message(kind: str, how: ShellExit | None, timeout_s: float, printed: str) -> str:
    """Why a shell never reached its first prompt (``how`` is None when it is still running)."""
    if how is None:
        text = f"{kind} did not become ready within {timeout_s:g} s"
    else:
        text = f"{how.describe()} before its first prompt"
    return text + (f"; it printed: {printed}" if printed else "")


class ShellError(AishError, RuntimeError):
    """Base of the session's errors (still a `RuntimeError`, as it always was)."""


class ShellBusyError(ShellError):
    """A command (or a name query) was started while a command is running."""


class ShellStartError(ShellError):
    """The shell did not reach its first prompt (it exited, or never became ready)."""


class ShellClosedError(ShellError):
    """The session was closed."""
