"""One shell process on a PTY: spawning it, and the low-level PTY operations the session
needs (resize, foreground process group, reaping).

The child is started with ``posix_spawn`` and ``setsid``; opening the slave by name in the new
session makes it the controlling terminal, which job control (Ctrl-Z, ``fg``) and the kernel's
SIGINT/SIGWINCH delivery need. ``posix_spawn`` runs no Python code in the child, so it is safe
in a process with threads, and it is cheaper than ``fork`` for a large parent.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import secrets
import signal
import struct
import termios
import time
from dataclasses import dataclass

from aish.shell.launch import LaunchSpec, shell_environment, write_rc_files
from aish.shell.results import ShellExit

__all__ = ["ShellProcess", "reap"]

# Dispositions a Python process may hold as SIG_IGN (SIGPIPE always): ignored signals survive
# exec, and a shell that ignores SIGPIPE breaks `yes | head`.
_DEFAULT_SIGNALS = tuple(
    getattr(signal, name)
    for name in ("SIGPIPE", "SIGXFSZ", "SIGINT", "SIGQUIT", "SIGTSTP", "SIGTTIN", "SIGTTOU")
    if hasattr(signal, name)
)
_REAP_KILL_AFTER_S = 1.0


@dataclass
class ShellProcess:
    """One running shell: its pid, the PTY master (non-blocking) and the slave's path."""

    pid: int
    master_fd: int
    slave_path: str
    kind: str
    nonce: str
    wait_status: int | None = None  # set once reaped; the pid may be reused after that

    @classmethod
    def spawn(cls, spec: LaunchSpec, *, cwd: str, rows: int, cols: int) -> ShellProcess:
        shell_path, kind = spec.shell_path, spec.kind
        args, extra_env = write_rc_files(kind, spec.rcfile_dir)
        nonce = secrets.token_hex(8)
        child_env = shell_environment(spec.env, kind, nonce=nonce, cwd=cwd, extra=extra_env)
        master, slave = os.openpty()
        try:
            slave_path = os.ttyname(slave)
            _set_winsize(master, rows, cols)
            attrs = termios.tcgetattr(slave)
            attrs[0] |= getattr(termios, "IUTF8", 0)  # erase whole UTF-8 characters
            termios.tcsetattr(slave, termios.TCSANOW, attrs)
            argv = [*spec.wrapper, shell_path, *args]
            pid = os.posix_spawn(
                argv[0],
                argv,
                child_env,
                file_actions=[
                    (os.POSIX_SPAWN_OPEN, 0, slave_path, os.O_RDWR, 0),
                    (os.POSIX_SPAWN_DUP2, 0, 1),
                    (os.POSIX_SPAWN_DUP2, 0, 2),
                ],
                setsid=True,
                setsigmask=(),
                setsigdef=_DEFAULT_SIGNALS,
            )
        except BaseException:
            os.close(master)
            raise
        finally:
            # The parent must not hold the slave open, or the master never reports EOF/EIO.
            os.close(slave)
        os.set_blocking(master, False)
        return cls(pid, master, slave_path, kind, nonce)

    def resize(self, rows: int, cols: int) -> None:
        """Set the PTY size; the kernel sends SIGWINCH to the foreground process group."""
        _set_winsize(self.master_fd, rows, cols)

    def foreground_pgrp(self) -> int | None:
        try:
            return os.tcgetpgrp(self.master_fd)
        except OSError:
            return None

    def poll(self) -> int | None:
        """The raw wait status if the shell has exited (reaping it), else None."""
        if self.wait_status is not None:
            return self.wait_status
        try:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
        except ChildProcessError:
            pid, status = self.pid, 0  # somebody else reaped it: all we know is that it is gone
        if pid:
            self.wait_status = status
        return self.wait_status

    def kill(self, sig: int = signal.SIGKILL) -> None:
        if self.wait_status is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, sig)

    def close_master(self) -> None:
        if self.master_fd >= 0:
            os.close(self.master_fd)
            self.master_fd = -1


async def reap(proc: ShellProcess) -> ShellExit:
    """Wait for the shell to exit; a shell that outlives its terminal is useless, so after a
    grace period it is killed."""
    deadline = time.monotonic() + _REAP_KILL_AFTER_S
    killed = False
    while True:
        status = proc.poll()
        if status is not None:
            return ShellExit.from_wait_status(status)
        if not killed and time.monotonic() > deadline:
            proc.kill()
            killed = True
        await asyncio.sleep(0.005)


def _set_winsize(fd: int, rows: int, cols: int) -> None:
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
