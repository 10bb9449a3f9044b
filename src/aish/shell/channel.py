"""PtyChannel: non-blocking reads and writes on one shell's PTY master, and noticing its end.

The master is read whenever it is readable, at all times: a background job writing while no
command runs must never block on a full PTY. Writes are queued and flushed when the kernel takes
them (a program that does not read its input fills the line discipline's queue; a blocking
write would freeze aish). The end of the shell is seen two ways: EIO (or EOF) on the master when
every copy of the slave is closed, and the shell's pid exiting (through a pidfd), which also
covers a background job that keeps the slave open after the shell is gone.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Callable

from aish.shell.process import ShellProcess

__all__ = ["PtyChannel"]

_READ_SIZE = 65536
_READS_PER_WAKEUP = 16  # so one chatty program cannot starve the event loop
# After the pid exits, its last output may still be on its way through the PTY's buffers.
_EXIT_GRACE_S = 0.1


class PtyChannel:
    """Feeds what the shell prints to ``on_data``; calls ``on_hangup`` once when it is gone."""

    def __init__(
        self,
        proc: ShellProcess,
        *,
        on_data: Callable[[bytes], None],
        on_hangup: Callable[[], None],
    ) -> None:
        self._proc = proc
        self._on_data = on_data
        self._on_hangup = on_hangup
        self._loop = asyncio.get_running_loop()
        self._out = bytearray()
        self._drained = asyncio.Event()
        self._drained.set()
        self._writing = False
        self._open = True
        self._exit_timer: asyncio.TimerHandle | None = None
        self._pidfd = -1
        self._loop.add_reader(proc.master_fd, self._on_readable)
        with contextlib.suppress(AttributeError, OSError):  # no pidfd: EIO alone must do
            self._pidfd = os.pidfd_open(proc.pid)
            self._loop.add_reader(self._pidfd, self._on_pid_exit)

    @property
    def backlog(self) -> int:
        """Bytes queued for the PTY that the kernel has not taken yet."""
        return len(self._out)

    def write(self, data: bytes) -> None:
        if not self._open or not data:
            return
        self._out += data
        self._drained.clear()
        self._flush()

    async def drained(self) -> None:
        await self._drained.wait()

    def close(self) -> None:
        """Stop watching the PTY (the master fd itself belongs to the process)."""
        if not self._open:
            return
        self._open = False
        fd = self._proc.master_fd
        if fd >= 0:
            self._loop.remove_reader(fd)
            if self._writing:
                self._loop.remove_writer(fd)
        if self._pidfd >= 0:
            self._loop.remove_reader(self._pidfd)
            os.close(self._pidfd)
            self._pidfd = -1
        if self._exit_timer is not None:
            self._exit_timer.cancel()
            self._exit_timer = None
        self._out.clear()
        self._drained.set()

    def _flush(self) -> None:
        fd = self._proc.master_fd
        try:
            while self._out and self._open:
                del self._out[: os.write(fd, self._out)]
        except BlockingIOError:
            # The line discipline's input queue is full (a program not reading its input).
            if not self._writing:
                self._loop.add_writer(fd, self._flush)
                self._writing = True
            return
        except OSError:
            self._out.clear()  # the shell is going away; reading will say so
        if self._writing:
            self._loop.remove_writer(fd)
            self._writing = False
        self._drained.set()

    def _on_readable(self) -> None:
        self._read(limit=_READS_PER_WAKEUP)

    def _read(self, *, limit: int) -> None:
        reads = 0
        while self._open and reads < limit:
            reads += 1
            try:
                data = os.read(self._proc.master_fd, _READ_SIZE)
            except BlockingIOError:
                return
            except OSError:  # EIO: every copy of the slave is closed (Linux)
                data = b""
            if not data:  # EOF (BSD) or EIO
                self._hang_up()
                return
            self._on_data(data)

    def _on_pid_exit(self) -> None:
        # A background job may hold the slave open, so EIO may never come: after a moment for
        # the shell's last output, read what is there and report the end.
        self._loop.remove_reader(self._pidfd)
        if self._exit_timer is None and self._open:
            self._exit_timer = self._loop.call_later(_EXIT_GRACE_S, self._after_exit_grace)

    def _after_exit_grace(self) -> None:
        self._exit_timer = None
        if self._open:
            self._read(limit=_READS_PER_WAKEUP)
            self._hang_up()

    def _hang_up(self) -> None:
        if self._open:
            self.close()
            self._on_hangup()
