"""Terminal: the user's real terminal, relayed to the shell's PTY while a command runs.

Inside ``async with Terminal(stdin_fd, stdout_fd, session):`` (or while ``session.run(...,
terminal=terminal)`` runs, which binds and enters it if needed) the real terminal is in raw
mode, every byte typed is forwarded verbatim to the PTY (so Ctrl-C and Ctrl-Z are plain bytes
that the PTY's line discipline turns into SIGINT/SIGTSTP for the program), output is written
verbatim to stdout, and SIGWINCH re-reads the real size and resizes the PTY (the kernel then
signals the program). When the command is done the session stops the relay
(:meth:`Terminal.stop_relaying`): keys typed after that stay unread on the real terminal, for
aish's next prompt. Leaving the block — normally, by an exception or by cancellation — stops
reading stdin first (later keys belong to aish's own prompt) and restores the terminal's modes.

When stdin is not a terminal nothing is relayed, but output is still shown.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import select
import signal
import termios
import tty
from typing import Any, Protocol

__all__ = ["PtyInput", "Terminal"]

_INPUT_HIGH_WATER = 64 * 1024  # stop reading stdin while the PTY has this much unread


class PtyInput(Protocol):
    """What the relay needs from a shell session."""

    def send_nowait(self, data: bytes) -> None: ...

    def resize(self, rows: int, cols: int) -> None: ...

    @property
    def input_backlog(self) -> int: ...

    async def drain_input(self) -> None: ...


class Terminal:
    """Relay between the user's terminal (``stdin_fd``/``stdout_fd``) and a shell's PTY."""

    def __init__(
        self, stdin_fd: int = 0, stdout_fd: int = 1, session: PtyInput | None = None
    ) -> None:
        self._session = session
        self._stdin = stdin_fd
        self._stdout = stdout_fd
        self._saved_mode: list[Any] | None = None
        self._reading = False
        self._relaying = False  # stdin is relayed (from entering until stop_relaying)
        self._winch = False
        self._resume: asyncio.Task[None] | None = None
        self.active = False

    def bind(self, session: PtyInput) -> None:
        """Relay to ``session`` (a terminal serves one shell session)."""
        if self._session is not None and self._session is not session:
            raise ValueError("this terminal already relays to another shell session")
        self._session = session

    @property
    def session(self) -> PtyInput:
        if self._session is None:
            raise RuntimeError("the terminal is not bound to a shell session")
        return self._session

    async def __aenter__(self) -> Terminal:
        loop = asyncio.get_running_loop()
        if self._session is None:  # fail before touching the terminal's modes
            raise RuntimeError("the terminal is not bound to a shell session")
        self.active = True
        try:
            size_fd = next((fd for fd in (self._stdout, self._stdin) if os.isatty(fd)), None)
            if size_fd is not None:
                self._sync_size(size_fd)
                # Signal handlers can only be set from the main thread; elsewhere, no resizes.
                with contextlib.suppress(ValueError, RuntimeError):
                    loop.add_signal_handler(signal.SIGWINCH, self._sync_size, size_fd)
                    self._winch = True
            if os.isatty(self._stdin):
                self._saved_mode = termios.tcgetattr(self._stdin)
                # TCSADRAIN, not setraw's default TCSAFLUSH: keys already typed are kept.
                tty.setraw(self._stdin, termios.TCSADRAIN)
                self._relaying = True
                self._start_reading()
        except BaseException:
            self._restore()
            raise
        return self

    async def __aexit__(self, *exc: object) -> None:
        self._restore()

    def write(self, data: bytes) -> None:
        """Write output verbatim to the real terminal (blocking: a slow terminal slows us)."""
        view = memoryview(data)
        while view:
            try:
                written = os.write(self._stdout, view)
            except BlockingIOError:
                select.select([], [self._stdout], [])
                continue
            except OSError:
                return  # the terminal is gone; the command still runs to its end
            view = view[written:]

    def relay(self) -> None:
        """Relay the user's keys again (a terminal entered once serves several commands)."""
        if self.active and self._saved_mode is not None:
            self._relaying = True
            self._start_reading()

    def stop_relaying(self) -> None:
        """Relay no more keys: the command is done, and what the user types now is for aish's
        next prompt (it stays unread, in order, on the real terminal). Keys already read are
        queued for the PTY ahead of anything the session writes next."""
        self._relaying = False
        self._stop_reading()
        if self._resume is not None:
            self._resume.cancel()
            self._resume = None

    def _restore(self) -> None:
        loop = asyncio.get_running_loop()
        self.stop_relaying()
        if self._winch:
            loop.remove_signal_handler(signal.SIGWINCH)
            self._winch = False
        if self._saved_mode is not None:
            with contextlib.suppress(termios.error):
                termios.tcsetattr(self._stdin, termios.TCSADRAIN, self._saved_mode)
            self._saved_mode = None
        self.active = False

    def _sync_size(self, fd: int) -> None:
        try:
            size = os.get_terminal_size(fd)
        except OSError:
            return
        self.session.resize(size.lines, size.columns)

    def _start_reading(self) -> None:
        if not self._reading:
            asyncio.get_running_loop().add_reader(self._stdin, self._on_stdin)
            self._reading = True

    def _stop_reading(self) -> None:
        if self._reading:
            asyncio.get_running_loop().remove_reader(self._stdin)
            self._reading = False

    def _on_stdin(self) -> None:
        try:
            data = os.read(self._stdin, 4096)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:  # stdin closed: nothing more to relay
            self._stop_reading()
            return
        self.session.send_nowait(data)
        if self.session.input_backlog > _INPUT_HIGH_WATER:
            # The program is not reading: stop taking keys (a paste) until the PTY drains.
            self._stop_reading()
            self._resume = asyncio.get_running_loop().create_task(self._resume_when_drained())

    async def _resume_when_drained(self) -> None:
        await self.session.drain_input()
        self._resume = None
        if self.active and self._relaying:
            self._start_reading()
