"""`[t]ake over`: the user's terminal, attached to the agent's shell while a step waits.

The user's keys go to the agent's PTY byte for byte (the real terminal in raw mode: Ctrl-C is a
byte the PTY turns into SIGINT for the step, as in any terminal), the step's output goes to the
user's terminal, and the prompt it is waiting at is shown again first, so the user sees what
they answer. `DETACH_KEY` (Ctrl-], as in telnet) gives the terminal back; so does the step
ending. What the step printed meanwhile is in its captured output as always (bounded, and
scrubbed on its way to a model); what the user typed is not recorded — with echo off (a
password) it was never printed at all.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import select
import termios
import time
import tty
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from aish.run.input_wait import OutputTap
    from aish.shell.session import ShellSession

__all__ = ["DETACH_KEY", "DETACH_NAME", "TakenOver", "take_over"]

DETACH_KEY = b"\x1d"
DETACH_NAME = "Ctrl-]"


@dataclass(frozen=True)
class TakenOver:
    """How long the user had the terminal, and whether the step ended meanwhile."""

    seconds: float
    ended: bool

    def notice(self) -> str:
        """What the model is told about it (never what was typed)."""
        return (
            f"the user took over the terminal for {self.seconds:.1f}s "
            "(what they typed is not recorded)"
        )


async def take_over(
    session: ShellSession,
    tap: OutputTap,
    running: asyncio.Future[Any],
    stdin_fd: int,
    stdout_fd: int,
) -> TakenOver:
    """Relay until the user presses `DETACH_KEY`, stdin closes, or `running` ends."""
    loop = asyncio.get_running_loop()
    began = time.monotonic()
    detached: asyncio.Future[None] = loop.create_future()

    def show(data: bytes) -> None:
        _write_all(stdout_fd, data)

    def on_key() -> None:
        try:
            data = os.read(stdin_fd, 4096)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        before, key, _ = data.partition(DETACH_KEY)
        if before:
            session.send_nowait(before)
        if (key or not data) and not detached.done():
            detached.set_result(None)

    saved = termios.tcgetattr(stdin_fd) if os.isatty(stdin_fd) else None
    show(tap.partial_line())
    tap.mirror = show
    try:
        if saved is not None:
            # TCSADRAIN, not TCSAFLUSH: keys typed just before are kept for the step.
            tty.setraw(stdin_fd, termios.TCSADRAIN)
        if os.isatty(stdout_fd):
            size = os.get_terminal_size(stdout_fd)
            session.resize(size.lines, size.columns)
        loop.add_reader(stdin_fd, on_key)
        try:
            await asyncio.wait({running, detached}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            loop.remove_reader(stdin_fd)
    finally:
        tap.mirror = None
        if saved is not None:
            with contextlib.suppress(termios.error):
                termios.tcsetattr(stdin_fd, termios.TCSADRAIN, saved)
        show(b"\r\n")  # aish's next line starts at the left, whatever the step left behind
    return TakenOver(time.monotonic() - began, running.done())


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        try:
            written = os.write(fd, view)
        except BlockingIOError:
            select.select([], [fd], [])
            continue
        except OSError:
            return  # the terminal is gone: the step still runs to its end
        view = view[written:]
