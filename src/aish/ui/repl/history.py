"""The typed lines' history file, private like bash's.

Typed lines hold what people type at a shell prompt — `export TOKEN=…`, `mysql -p…` — so the
file is created 0600 as bash creates `~/.bash_history`, whatever the umask. Bash leaves an
existing file's mode alone because the user names that file; aish's lives in its own state
folder, and every one found wider than 0600 was made so by aish itself (earlier versions
created it with the umask, usually 0644). So an existing file readable or writable by others
is narrowed to its owner's bits, once, with one line saying so.

A line that cannot be written (a full disk) stays in the session's history and costs one line
saying so, not a traceback inside the prompt; it is said again only after writing worked.

Each line also keeps the directory it was typed in, for the ghost text (`suggest`), which
prefers lines typed here. It rides in the comment prompt_toolkit writes before every entry
(`# <time> cwd="<json>"`), which every reader of the format skips: one file, no second store
to keep in step, and a file written by an older aish simply has no directories.
"""

from __future__ import annotations

import datetime
import errno
import json
import os
import re
import stat
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from prompt_toolkit.history import FileHistory, History, InMemoryHistory

__all__ = ["PRIVATE_MODE", "PlacedLines", "open_line_history", "placed_lines", "single_lines"]

PRIVATE_MODE = 0o600
_OTHERS = stat.S_IRWXG | stat.S_IRWXO


_CWD = re.compile(r' cwd=(".*")$')


def open_line_history(
    path: Path, say: Callable[[str], None], cwd: Callable[[], str] | None = None
) -> History:
    """The history for the prompt; `cwd()` names the directory a line is typed in (None:
    none is kept). A file that cannot be read and appended to (a directory, no permission, a
    read-only disk) costs one line and a history kept in memory: prompt_toolkit would fail on
    it inside the prompt, eating the first line."""
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
        return PlacedMemoryHistory(cwd)
    return PrivateFileHistory(str(path), say, cwd)


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


class PlacedLines:
    """Where each line was typed, oldest first (None: not known)."""

    def __init__(self, cwd: Callable[[], str] | None) -> None:
        self._cwd = cwd
        self._placed: list[tuple[str, str | None]] = []
        # Every line of every entry, oldest first, split once: the ghost text searches it
        # after each key.
        self._lines: list[tuple[str, str | None]] = []

    def placed_lines(self) -> Iterator[tuple[str, str | None]]:
        """(entry, directory typed in), newest first."""
        return reversed(self._placed)

    def single_lines(self) -> Iterator[tuple[str, str | None]]:
        """(line, directory typed in), newest first; a multi-line entry's last line first."""
        return reversed(self._lines)

    def _place(self, string: str, where: str | None) -> None:
        self._placed.append((string, where))
        self._lines.extend((line, where) for line in string.splitlines())

    def _here(self) -> str | None:
        if self._cwd is None:
            return None
        try:
            return self._cwd()
        except Exception:  # a shell gone away: the line is kept without its directory
            return None


def placed_lines(history: History) -> Iterable[tuple[str, str | None]]:
    """`history`'s entries, newest first, with where they were typed when it knows."""
    if isinstance(history, PlacedLines):
        return history.placed_lines()
    return ((line, None) for line in reversed(history.get_strings()))


def single_lines(history: History) -> Iterable[tuple[str, str | None]]:
    """Each line of `history`'s entries, newest first, with where it was typed."""
    if isinstance(history, PlacedLines):
        return history.single_lines()
    return (
        (line, where)
        for entry, where in placed_lines(history)
        for line in reversed(entry.splitlines())
    )


class PlacedMemoryHistory(PlacedLines, InMemoryHistory):
    """The session's lines when the file cannot be used, with their directories."""

    def __init__(self, cwd: Callable[[], str] | None) -> None:
        PlacedLines.__init__(self, cwd)
        InMemoryHistory.__init__(self)

    def store_string(self, string: str) -> None:
        self._place(string, self._here())
        super().store_string(string)


class PrivateFileHistory(PlacedLines, FileHistory):
    """prompt_toolkit's file history, except that a file it has to create again (deleted
    while aish runs) is created 0600 too (prompt_toolkit's own append uses the umask), a
    line it cannot write is one line said, not an exception inside the prompt, and each line
    keeps the directory it was typed in."""

    def __init__(
        self, filename: str, say: Callable[[str], None], cwd: Callable[[], str] | None = None
    ) -> None:
        PlacedLines.__init__(self, cwd)
        FileHistory.__init__(self, filename)
        self._say = say
        self._failing = False

    def load_history_strings(self) -> Iterable[str]:
        """The file's entries, newest first: the `+` lines of each, after a comment line
        that may say where it was typed."""
        entries: list[tuple[str, str | None]] = []
        lines: list[str] = []
        where: str | None = None

        def close() -> None:
            if lines:
                entries.append(("".join(lines)[:-1], where))

        path = os.fsdecode(self.filename)
        if os.path.exists(path):
            with open(path, "rb") as file:
                for raw in file:
                    line = raw.decode("utf-8", errors="replace")
                    if line.startswith("+"):
                        lines.append(line[1:])
                        continue
                    close()
                    lines = []
                    where = _where(line) if line.startswith("#") else None
            close()
        for string, place in entries:
            self._place(string, place)
        return [string for string, _ in reversed(entries)]

    def store_string(self, string: str) -> None:
        path = Path(os.fsdecode(self.filename))
        where = self._here()
        self._place(string, where)
        try:
            os.close(_open_private(path))
            _append_entry(path, string, where)
        except OSError as error:
            if not self._failing:
                self._failing = True
                self._say(_not_written(path, error))
            return
        self._failing = False


def _append_entry(path: Path, string: str, where: str | None) -> None:
    """One entry as prompt_toolkit writes it, the directory in its comment line."""
    place = f" cwd={json.dumps(where)}" if where is not None else ""
    text = f"\n# {datetime.datetime.now()}{place}\n" + "".join(
        f"+{line}\n" for line in string.split("\n")
    )
    with open(path, "ab") as file:
        file.write(text.encode("utf-8", errors="replace"))


def _where(comment: str) -> str | None:
    found = _CWD.search(comment.rstrip("\r\n"))
    if found is None:
        return None
    try:
        where = json.loads(found.group(1))
    except ValueError:
        return None
    return where if isinstance(where, str) else None


def _not_written(path: Path, error: OSError) -> str:
    if error.errno in (errno.ENOSPC, errno.EDQUOT):
        reason = "disk full"
    else:
        reason = f"cannot write it ({error.strerror or error})"
    return f"history file {path}: {reason}: typed lines are kept for this session only"
