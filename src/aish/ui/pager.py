"""Long listings (`:history`, `:safety rules`, `:help` …) through the user's pager, as git does.

Only on a terminal and only when the text is taller than the screen; `$PAGER` (a shell command
line), else `less`, with `LESS=FRX` when the user has no `LESS` of their own: quit at once if
the text fits after all, keep colours, leave the text on the screen after quitting. An empty
`PAGER` or `cat` means no pager. A pager that cannot start leaves the text to be printed.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from collections.abc import Mapping
from typing import TextIO

__all__ = ["page", "pager_command"]

_NOT_FOUND = 127  # the shell's status for a command it could not find


def pager_command(env: Mapping[str, str]) -> str | None:
    """The pager to run, or None for none."""
    command = env.get("PAGER", "less")
    if not command.strip() or command.strip() == "cat":
        return None
    return command


def page(text: str, stream: TextIO, env: Mapping[str, str] | None = None) -> bool:
    """Show `text` through the pager when `stream` is a terminal it does not fit on; True when
    the pager showed it, False when the caller should print it."""
    env = os.environ if env is None else env
    command = pager_command(env)
    if command is None or not stream.isatty():
        return False
    try:
        size = os.get_terminal_size(stream.fileno())
    except (OSError, ValueError):
        return False
    if _screen_rows(text, size.columns) < size.lines:
        return False
    child_env = dict(env)
    child_env.setdefault("LESS", "FRX")
    stream.flush()
    # Ctrl-C belongs to the pager while it runs (less installs its own handler, to stop a
    # search), not to aish, which would take it for "stop what is in flight".
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with contextlib.suppress(BrokenPipeError):
            done = subprocess.run(
                command,
                shell=True,
                input=text.encode("utf-8", "replace"),
                env=child_env,
                check=False,
            )
            return done.returncode != _NOT_FOUND
    except OSError:
        return False
    finally:
        signal.signal(signal.SIGINT, before)
    return True


def _screen_rows(text: str, columns: int) -> int:
    """How many terminal rows `text` takes, long lines wrapped."""
    width = max(columns, 1)
    return sum(max(1, -(-len(line) // width)) for line in text.splitlines())
