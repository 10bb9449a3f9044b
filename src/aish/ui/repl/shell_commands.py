"""Running command lines in the user's shell, and the terminal modes around it.

`ShellCommands` is the REPL's only executor. It has two doors: the line the user typed (run as
theirs) and what the gate authorized (redeemed first, so anything the gate did not issue, did
not allow, or already ran is refused before the shell is even asked for). While a command runs
the real terminal is relayed to the shell's PTY; its output is shown as it comes and its capture
becomes context for the model. `start_shell` starts that shell.

The helpers below set the terminal up while a reply streams: typed keys are not echoed over it,
and job-control keys are not for aish.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import termios
from collections.abc import Awaitable, Callable, Iterator
from typing import TYPE_CHECKING, Any, Literal

from aish.agent import gate
from aish.conversation.context import CommandRun
from aish.ui import type_ahead
from aish.ui.agent_shell import as_command_run
from aish.ui.render.clean_slate import OutputModes, clean_slate
from aish.ui.render.line_start import TAIL_BYTES, at_line_start

if TYPE_CHECKING:
    from aish.config.schema import ContextConfig
    from aish.run.undo import UndoRecorder
    from aish.shell.session import ShellSession
    from aish.ui.chat_view import ChatView

__all__ = ["ShellCommands", "ignoring", "no_echo", "start_shell", "write_raw"]

AfterRun = Callable[[CommandRun, "ShellSession"], None]
"""Told about every command that ran (to note it for the model, log it, refresh names)."""


class ShellCommands:
    """Runs lines in the user's shell with the terminal relayed; the capture becomes context."""

    def __init__(
        self,
        shell: Callable[[], Awaitable[ShellSession]],
        view: ChatView,
        context: ContextConfig,
        after: AfterRun,
        undo: UndoRecorder | None = None,
    ) -> None:
        self._shell = shell
        # Snapshots what an approved command will touch, for `:undo` (None: undo is off).
        self.undo = undo
        self._view = view
        self._context = context
        self._after = after
        self.last_status = 0
        self._output_ends_line = True
        self._output_tail = b""  # the end of the output shown, to tell where the cursor is
        self._output_since_clean = False  # program output since the terminal was cleaned
        self._modes = OutputModes()

    def use_context(self, context: ContextConfig) -> None:
        """A reloaded config's output limits, for the commands that run from now on."""
        self._context = context

    async def run_users_line(self, command: str) -> CommandRun:
        """Run a line the user typed, as theirs."""
        return await self._execute(command, "user")

    async def end_shell(self, line: str, *, typed: bool = True) -> int | None:
        """Hand the user's `exit` to their shell, which decides as at its own prompt (running
        jobs are left alone; stopped jobs are warned about once). The shell's exit status when
        it ended, None when it stayed. Ctrl-D is not `typed`: it stays out of the history."""
        from aish.shell.terminal import Terminal

        shell = await self._shell()
        self._view.end_line()
        async with Terminal(sys.stdin.fileno(), sys.stdout.fileno(), shell) as terminal:
            ended = await shell.run_exit(line, terminal=terminal, private=not typed)
        if ended is None:
            self.last_status = 1  # bash's status for a refused exit
            return None
        return ended.status

    async def run_authorized(self, authorization: gate.Authorization) -> CommandRun:
        """Run what the gate authorized; anything it did not issue, did not allow, or already
        ran is refused (`gate.Unauthorized`) before the shell sees it."""
        approved = gate.redeem(authorization)
        if not isinstance(approved.action, gate.ProposedCommand):
            raise gate.Unauthorized(f"not a shell command: {approved.action.text}")
        snapshot = None
        if self.undo is not None:
            snapshot, notice = self.undo.before(approved.radius, approved.command)
            if notice:
                self._view.status(notice)
        try:
            return await self._execute(
                approved.command_to_run,
                approved.source,
                asked=approved.outcome != "auto",
                shown=approved.command,
            )
        finally:
            if self.undo is not None and snapshot is not None:
                self._view.status(self.undo.after(snapshot))

    async def _execute(
        self,
        command: str,
        source: Literal["user", "model"],
        *,
        asked: bool = True,
        shown: str | None = None,
    ) -> CommandRun:
        from aish.shell.terminal import Terminal

        shell = await self._shell()
        self._view.end_line()
        if source == "user":
            # Keys typed after the user's line wait for its command, as in bash.
            typeahead = type_ahead.take_keys()
        else:
            # Keys typed while the reply streamed are for the prompt, not for the model's command.
            type_ahead.queue_unread()
            typeahead = b""
        async with Terminal(sys.stdin.fileno(), sys.stdout.fileno(), shell) as terminal:
            result = await shell.run(
                command,
                terminal=terminal,
                on_output=self.write_output,
                max_lines=self._context.output_max_lines,
                max_bytes=self._context.output_max_bytes,
                # What the model proposed is not the user's history (bash's own file).
                private=source == "model",
                typeahead=typeahead,
            )
        type_ahead.queue_keys(result.typeahead)  # what it did not read: the next prompt's
        self.end_partial_output_line()  # before the notice, the verdict or the prompt
        run = as_command_run(result, source, asked=asked, shown=shown)
        if result.notice:
            self._view.status(result.notice)
        self.last_status = result.exit_status
        self._after(run, shell)
        return run

    # ---- output ------------------------------------------------------------------------------

    def write_output(self, data: bytes) -> None:
        """A command's (or a background job's) output, verbatim."""
        if data:
            write_raw(data)
            self._modes.feed(data)
            self._output_tail = (self._output_tail + data)[-TAIL_BYTES:]
            self._output_ends_line = at_line_start(self._output_tail, self._output_ends_line)
            self._output_since_clean = True

    def end_partial_output_line(self) -> None:
        """After a program's output, before aish writes: undo what it left the terminal in
        (hidden text, colours, a scroll region …, see `clean_slate`) and end its open line
        (`printf abc` leaves the cursor mid-line; the prompt would be drawn over it; a
        full-screen program that left its screen leaves the cursor at a line start)."""
        if not self._output_since_clean:
            return
        write_raw(
            clean_slate(
                line_open=not self._output_ends_line,
                alternate_screen=self._modes.alternate_screen,
            )
        )
        self._modes.reset()
        self._output_tail = b""
        self._output_ends_line = True
        self._output_since_clean = False


async def start_shell(
    wanted: str | None,
    cwd: str | None,
    *,
    on_notice: Callable[[str], None],
    on_background_output: Callable[[bytes], None],
) -> ShellSession:
    """The user's persistent shell, sized like the terminal; bash when the configured shell
    cannot run (a configured shell aish cannot run must not leave the user without one)."""
    from aish.shell.session import ShellSession

    size = os.get_terminal_size() if sys.stdout.isatty() else os.terminal_size((80, 24))
    options: dict[str, Any] = {
        "rows": size.lines,
        "cols": size.columns,
        "on_notice": on_notice,
        "on_background_output": on_background_output,
    }
    if cwd is not None:
        options["cwd"] = cwd
    try:
        return await ShellSession.start(shell=wanted, **options)
    except (ValueError, OSError) as error:
        if wanted is None:
            raise
        on_notice(f"{error}; using bash")
        return await ShellSession.start(shell="bash", **options)


# ---- the terminal around a streaming reply --------------------------------------------------


def write_raw(data: bytes) -> None:
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()


@contextlib.contextmanager
def ignoring(*signals: signal.Signals) -> Iterator[None]:
    before = [signal.signal(number, signal.SIG_IGN) for number in signals]
    try:
        yield
    finally:
        for number, handler in zip(signals, before, strict=True):
            signal.signal(number, handler)


@contextlib.contextmanager
def no_echo() -> Iterator[None]:
    """Keys typed while a reply streams must not scribble over it (Ctrl-C still works)."""
    with _termios_flags(clear=termios.ECHO):
        yield


@contextlib.contextmanager
def _termios_flags(*, clear: int) -> Iterator[None]:
    fd = sys.stdin.fileno()
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
