"""Noticing that a command in the agent's shell waits for someone to type, and what it asks.

Nobody types into the agent's shell. A step that asks a question — `read -s -p 'Password: '`,
a `[y/N]`, a pager, an editor — used to sit there until the per-command timeout. `watch`
notices it within about half a second: the command printed nothing for `QUIET_S` and the
kernel says its foreground job is blocked reading the terminal (`ShellSession.terminal_read`),
twice in a row. A slow command (`sleep 5`, a build) sleeps elsewhere and is left alone.

What happens then is the caller's `InputWaitHandler`'s decision (the Norris run's HALT "needs
your input"): let the user take the terminal over, stop the command, abort the run, or — with
nobody there (`aish goal`) — halt it with the prompt text. `sudo`'s password goes another way
(`aish.run.askpass`): the handler's `password` question, asked on aish's own prompt.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Protocol

if TYPE_CHECKING:
    from aish.shell.session import ShellSession
    from aish.shell.terminal_read import TerminalRead

__all__ = [
    "QUIET_S",
    "InputAnswer",
    "InputWait",
    "InputWaitHandler",
    "NeedsInput",
    "OutputTap",
    "Secret",
    "watch",
]

# Silence before the terminal is looked at: a prompt is the last thing a program prints.
QUIET_S = 0.3
_POLL_S = 0.1
_TAIL_BYTES = 4096
_PROMPT_CHARS = 200

# What to do with a command that waits for input: the user takes the terminal over, it is
# stopped (the model hears why), the run is aborted, or it halts (nobody there to ask).
InputAnswer = Literal["take_over", "stop", "abort", "halt"]
WaitKind = Literal["password", "question", "screen"]


@dataclass(frozen=True)
class InputWait:
    """A step waiting for input: its command, the prompt (its last line of output, control
    sequences out, bounded) and what kind of input it seems to want."""

    command: str
    prompt: str
    kind: WaitKind

    def describe(self) -> str:
        """`needs your input: Password:` — the HALT's reason, with the prompt text."""
        said = (
            self.prompt
            or {
                "password": "a password prompt",
                "question": "a question",
                "screen": "a full-screen program",
            }[self.kind]
        )
        return f"needs your input: {said}"


@dataclass(frozen=True)
class Secret:
    """A password the user typed: handed to the program that asked, never kept or shown."""

    value: str

    def __repr__(self) -> str:  # a traceback or a log line never carries it
        return "Secret(***)"


class InputWaitHandler(Protocol):
    """Who decides about a step that waits for input (the Norris run's reaction)."""

    async def needs_input(self, wait: InputWait) -> InputAnswer: ...

    async def password(self, wait: InputWait) -> Secret | InputAnswer | None:
        """The askpass question: the password, None to refuse it (the program is told no
        password came), or what to do with the command instead."""
        ...


class NeedsInput(Exception):
    """The step waits for input and the run does not go on: `answer` is `halt` (nobody to
    ask) or `abort` (the user's). The command was stopped."""

    def __init__(self, wait: InputWait, answer: InputAnswer) -> None:
        super().__init__(wait.describe())
        self.wait, self.answer = wait, answer


class OutputTap:
    """Sees a running command's output as it arrives (a `ShellSession.run` `on_output`):
    when it last printed, its last line, and — while the user has the terminal — a copy for
    them (`mirror`)."""

    def __init__(self) -> None:
        self.last_output = time.monotonic()
        self._tail = bytearray()
        self.mirror: Callable[[bytes], None] | None = None

    def __call__(self, data: bytes) -> None:
        self.last_output = time.monotonic()
        self._tail += data
        del self._tail[:-_TAIL_BYTES]
        if self.mirror is not None:
            self.mirror(data)

    def quiet_for(self) -> float:
        return time.monotonic() - self.last_output

    def partial_line(self) -> bytes:
        """The bytes after the last newline: a prompt waiting for its answer, as printed."""
        return bytes(self._tail[self._tail.rfind(b"\n") + 1 :])

    def last_line(self) -> str:
        """The last line with text, as a person reads it: control sequences out, what a
        carriage return overwrote gone, bounded."""
        text = _CONTROL.sub("", self._tail.decode("utf-8", "replace"))
        for line in reversed(text.split("\n")):
            line = line.rstrip("\r").rsplit("\r", 1)[-1]
            line = "".join(c for c in line if c.isprintable()).strip()
            if line:
                return line[-_PROMPT_CHARS:]
        return ""

    def wait(self, command: str, read: TerminalRead | None) -> InputWait:
        """The wait as the user and the model are told it."""
        if read is not None and not read.canonical:
            kind: WaitKind = "screen"
        elif read is not None and not read.echo:
            kind = "password"
        else:
            kind = "question"
        return InputWait(command, self.last_line(), kind)


# CSI and OSC sequences, then any other escape with its one following character.
_CONTROL = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b.?")


async def watch(session: ShellSession, tap: OutputTap) -> TerminalRead:
    """Return once the running command has printed nothing for `QUIET_S` and its foreground
    job is blocked reading the terminal, on two looks in a row (a program between two reads
    of its own input is not waiting for anyone)."""
    seen = 0
    while True:
        await asyncio.sleep(_POLL_S)
        if tap.quiet_for() < QUIET_S:
            seen = 0
            continue
        read = session.terminal_read()
        seen = seen + 1 if read is not None else 0
        if read is not None and seen >= 2:
            return read
