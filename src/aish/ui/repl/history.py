"""The typed lines' history file, private like bash's.

Typed lines hold what people type at a shell prompt — `export TOKEN=…`, `mysql -p…` — so the
file is created 0600 as bash creates `~/.bash_history`, whatever the umask. Bash leaves an
existing file's mode alone because the user names that file; aish's lives in its own state
folder, and every one found wider than 0600 was made so by aish itself (earlier versions
created it with the umask, usually 0644). So an existing file readable or writable by others
is narrowed to its owner's bits, once, with one line saying so.

A line that cannot be written (a full disk) stays in the session's history and costs one line
saying so, not a traceback inside the prompt; it is said again only after writing worked.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable
from pathlib import Path

from prompt_toolkit.history import FileHistory, History, InMemoryHistory

__all__ = ["PRIVATE_MODE", "open_line_history"]

PRIVATE_MODE = 0o600
_OTHERS = stat.S_IRWXG | stat.S_IRWXO


def open_line_history(path: Path, say: Callable[[str], None]) -> History:
    """The history for the prompt. A file that cannot be read and appended to (a directory,
    no permission, a read-only disk) costs one line and a history kept in memory:
    prompt_toolkit would fail on it inside the prompt, eating the first line."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        descriptor = _open_private(path)
        try:
            _narrow(descriptor, path, say)
            os.read(descriptor, 1)
        finally:
            os.close(descriptor)
    except OSError as error:
        reason = error.strerror or str(error)
        say(f"history file {path} unusable ({reason}): kept in memory only")
        return InMemoryHistory()
    return PrivateFileHistory(str(path), say)


def _open_private(path: Path) -> int:
    return os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, PRIVATE_MODE)


def _narrow(descriptor: int, path: Path, say: Callable[[str], None]) -> None:
    mode = os.fstat(descriptor).st_mode
    if not stat.S_ISREG(mode) or not mode & _OTHERS:
        return
    try:
        os.fchmod(descriptor, stat.S_IMODE(mode) & ~_OTHERS)
    except OSError:
        return  # not ours to change (a link to someone else's file): it still works
    say(
        f"history file {path} was open to others (mode {stat.S_IMODE(mode):04o}): "
        f"now {stat.S_IMODE(mode) & ~_OTHERS:04o}, as bash keeps its history"
    )


class PrivateFileHistory(FileHistory):
    """prompt_toolkit's file history, except that a file it has to create again (deleted
    while aish runs) is created 0600 too (prompt_toolkit's own append uses the umask), and a
    line it cannot write is one line said, not an exception inside the prompt."""

    def __init__(self, filename: str, say: Callable[[str], None]) -> None:
        super().__init__(filename)
        self._say = say
        self._failing = False

    def store_string(self, string: str) -> None:
        path = Path(os.fsdecode(self.filename))
        try:
            os.close(_open_private(path))
            super().store_string(string)
        except OSError as error:
            if not self._failing:
                self._failing = True
                self._say(_not_written(path, error))
            return
        self._failing = False


def _not_written(path: Path, error: OSError) -> str:
    if error.errno in (errno.ENOSPC, errno.EDQUOT):
        reason = "disk full"
    else:
        reason = f"cannot write it ({error.strerror or error})"
    return f"history file {path}: {reason}: typed lines are kept for this session only"
