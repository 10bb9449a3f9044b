"""Is the program in a PTY's foreground blocked reading that terminal? (Linux `/proc`.)

Nobody types into the agent's shell, so a command that waits for terminal input — a password
prompt, a `[y/N]` question, a pager, a full-screen program — would sit there until its
timeout. This probe looks at what the kernel says instead of guessing from output:

- the PTY's foreground process group (`tcgetpgrp` on the master) and its processes in `/proc`;
- for each, `/proc/<pid>/syscall`: blocked in `read` on a file descriptor that is this terminal
  (or `/dev/tty`) is a definite "waiting for a line"; blocked in `poll`/`select` is waiting on
  *something*, which counts only when the terminal also left its usual mode;
- the terminal's modes (read through the master: a PTY pair shares one termios): echo off is
  what a password prompt sets, canonical mode off is what a pager or an editor sets.

A process we may not inspect (a setuid `sudo`: its `syscall` file is closed to us) counts as
waiting only when it sleeps and the terminal left its usual mode, which is exactly what a
password prompt on the terminal does. A slow command (`sleep 5`, a build) sleeps in other
system calls and leaves the modes alone, so it never counts. The caller adds the other half
of the evidence: no output for a while.
"""

from __future__ import annotations

import contextlib
import os
import platform
import termios
from dataclasses import dataclass

__all__ = ["TerminalRead", "terminal_read"]

# System call numbers by machine: (read-like, poll-like). Elsewhere only the modes count.
_SYSCALLS: dict[str, tuple[frozenset[int], frozenset[int]]] = {
    # read, readv, pread64, preadv, preadv2; poll, select, pselect6, ppoll, epoll_wait,
    # epoll_pwait, epoll_pwait2
    "x86_64": (frozenset({0, 19, 17, 295, 327}), frozenset({7, 23, 270, 271, 232, 281, 441})),
    # read, readv, pread64, preadv, preadv2; pselect6, ppoll, epoll_pwait, epoll_pwait2
    "aarch64": (frozenset({63, 65, 67, 69, 286}), frozenset({72, 73, 22, 441})),
}
_DEV_TTY = os.makedev(5, 0)  # /dev/tty: "my controlling terminal", as getpass and sudo open it


@dataclass(frozen=True)
class TerminalRead:
    """The foreground job waits for the terminal: `echo` off is a password prompt, `canonical`
    off a full-screen program (a pager, an editor) or a single-key question."""

    pid: int
    echo: bool
    canonical: bool
    # The kernel said so (blocked in read on the terminal), rather than sleep + modes.
    certain: bool


def terminal_read(master_fd: int, slave_path: str) -> TerminalRead | None:
    """What the PTY's foreground job is waiting for, if it is the terminal; None when it is
    not, or when this cannot be told (no `/proc`, the PTY is gone)."""
    try:
        foreground = os.tcgetpgrp(master_fd)
        lflag = termios.tcgetattr(master_fd)[3]
        terminal = os.stat(slave_path).st_rdev
    except (OSError, termios.error):
        return None
    echo, canonical = bool(lflag & termios.ECHO), bool(lflag & termios.ICANON)
    usual = echo and canonical
    reads, polls = _SYSCALLS.get(platform.machine(), (frozenset(), frozenset()))
    members = _group(foreground, terminal)
    if not members:
        return None
    maybe: int | None = None
    for pid, state in members:
        if state not in ("S", "D"):
            return None  # something in the job runs (R) or is stopped (T): not waiting for us
        call = _syscall(pid)
        if call is None:  # not ours to inspect: only the modes can tell
            maybe = pid
            continue
        number, fd = call
        if number in reads and _is_terminal(pid, fd, terminal):
            return TerminalRead(pid, echo, canonical, certain=True)
        if number in polls and not usual:
            maybe = pid
    if maybe is not None and not usual:
        return TerminalRead(maybe, echo, canonical, certain=False)
    return None


def _group(pgrp: int, terminal: int) -> list[tuple[int, str]]:
    """(pid, state) of the processes in process group `pgrp` on this terminal."""
    found = []
    with contextlib.suppress(OSError):
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            try:
                with open(f"/proc/{name}/stat", "rb") as stat:
                    data = stat.read()
            except OSError:
                continue  # it ended meanwhile
            # The command name may hold spaces and parentheses: the fields follow the last ')'.
            fields = data[data.rfind(b")") + 2 :].split()
            if len(fields) < 5 or int(fields[2]) != pgrp:
                continue
            if _same_device(int(fields[4]), terminal):
                found.append((int(name), fields[0].decode("ascii", "replace")))
    return found


def _same_device(tty_nr: int, rdev: int) -> bool:
    """/proc's tty_nr is the kernel's encoding: major in bits 8-19, minor split around it."""
    major = (tty_nr >> 8) & 0xFFF
    minor = (tty_nr & 0xFF) | ((tty_nr >> 12) & 0xFFF00)
    return major == os.major(rdev) and minor == os.minor(rdev)


def _syscall(pid: int) -> tuple[int, int] | None:
    """(system call number, first argument) the process is blocked in; None when that
    cannot be read (another user's process) or it is not in one."""
    try:
        with open(f"/proc/{pid}/syscall") as file:
            words = file.read().split()
    except OSError:
        return None
    if len(words) < 2 or not words[0].lstrip("-").isdigit():
        return None  # "running"
    number = int(words[0])
    if number < 0:
        return None
    return number, int(words[1], 16)


def _is_terminal(pid: int, fd: int, terminal: int) -> bool:
    try:
        rdev = os.stat(f"/proc/{pid}/fd/{fd}").st_rdev
    except OSError:
        return False
    return rdev in (terminal, _DEV_TTY)
