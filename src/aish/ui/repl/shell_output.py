"""The terminal around the user's shell: a command's output as it is shown, and the modes
around a streaming reply.

`ShellOutput` writes what a command (or a background job) prints, verbatim, and keeps track of
where it left the terminal, so that aish's next line starts clean; it is the `Output` the
executor (`aish.run.user_shell.UserShell`) writes to. The helpers below set the terminal up
while a reply streams: typed keys are not echoed over it, and job-control keys are not for aish.
"""

from __future__ import annotations

import contextlib
import os
import signal
import termios
from collections.abc import Callable, Iterator

from aish.ui.render.clean_slate import OutputModes, clean_slate
from aish.ui.render.line_start import TAIL_BYTES, at_line_start
from aish.ui.render.terminal_actions import TerminalActionFilter

__all__ = ["ShellOutput", "ignoring", "no_echo"]


class ShellOutput:
    """A command's output on the terminal, and what aish undoes after it."""

    def __init__(self, write_raw: Callable[[bytes], None]) -> None:
        self._write_raw = write_raw  # the terminal's (`TerminalIO.write_raw`)
        self._output_ends_line = True
        self._output_tail = b""  # the end of the output shown, to tell where the cursor is
        self._output_since_clean = False  # program output since the terminal was cleaned
        self._modes = OutputModes()
        self._model_filter: TerminalActionFilter | None = None  # for the model's command now

    def write_model_output(self, data: bytes) -> None:
        """A model-proposed command's output: as `write_output`, without the sequences that
        reach past the screen (`aish.ui.render.terminal_actions`)."""
        if self._model_filter is None:
            self._model_filter = TerminalActionFilter()
        self.write_output(self._model_filter.feed(data))

    def write_output(self, data: bytes) -> None:
        """A command's (or a background job's) output, verbatim."""
        if data:
            self._write_raw(data)
            self._modes.feed(data)
            self._output_tail = (self._output_tail + data)[-TAIL_BYTES:]
            self._output_ends_line = at_line_start(self._output_tail, self._output_ends_line)
            self._output_since_clean = True

    def end_partial_output_line(self) -> None:
        """After a program's output, before aish writes: undo what it left the terminal in
        (hidden text, colours, a scroll region …, see `clean_slate`) and end its open line
        (`printf abc` leaves the cursor mid-line; the prompt would be drawn over it; a
        full-screen program that left its screen leaves the cursor at a line start)."""
        if self._model_filter is not None:
            self.write_output(self._model_filter.end())  # a sequence cut off: it never acted
            self._model_filter = None
        if not self._output_since_clean:
            return
        self._write_raw(
            clean_slate(
                line_open=not self._output_ends_line,
                alternate_screen=self._modes.alternate_screen,
            )
        )
        self._modes.reset()
        self._output_tail = b""
        self._output_ends_line = True
        self._output_since_clean = False


# ---- the terminal around a streaming reply --------------------------------------------------


@contextlib.contextmanager
def ignoring(*signals: signal.Signals) -> Iterator[None]:
    before = [signal.signal(number, signal.SIG_IGN) for number in signals]
    try:
        yield
    finally:
        for number, handler in zip(signals, before, strict=True):
            signal.signal(number, handler)


@contextlib.contextmanager
def no_echo(fd: int) -> Iterator[None]:
    """Keys typed while a reply streams must not scribble over it (Ctrl-C still works); `fd`
    is the terminal's input (nothing changes when it is not a terminal)."""
    with _termios_flags(fd, clear=termios.ECHO):
        yield


@contextlib.contextmanager
def _termios_flags(fd: int, *, clear: int) -> Iterator[None]:
    if not os.isatty(fd):
        yield
        return
    before = termios.tcgetattr(fd)
    changed = list(before)
    changed[3] = changed[3] & ~clear
    termios.tcsetattr(fd, termios.TCSANOW, changed)
    try:
        yield
    finally:
        termios.tcsetattr(fd, termios.TCSANOW, before)
