"""Looking at the machine's processes from tests (Linux /proc)."""

from __future__ import annotations

import time
from pathlib import Path


def running(command: str) -> bool:
    """Whether a process with exactly this command line exists."""
    for entry in Path("/proc").iterdir():
        try:
            if (entry / "cmdline").read_bytes().replace(b"\0", b" ").strip() == command.encode():
                return True
        except OSError:
            continue
    return False


def eventually_running(command: str, timeout_s: float = 5.0) -> bool:
    """Whether such a process appears within `timeout_s` (a command shown as started may take
    a moment to exec)."""
    deadline = time.monotonic() + timeout_s
    while not running(command):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def interruptible_like_at_a_terminal() -> None:
    """`preexec_fn` for a child that a Ctrl-C test interrupts: SIGINT at its default, as for a
    program started at a terminal. A test run started in the background by a non-interactive
    shell (`… &`, nohup) has SIGINT ignored, and a child would inherit that and never hear it."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)
