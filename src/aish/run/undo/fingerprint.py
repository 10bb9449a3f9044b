"""A fingerprint of what lies at a path — every entry's type, mode, size, modification time and
link target, plus a SHA-256 of small files — and the differences between two of them.

Recorded right after a command ran, it is how `:undo` knows whether anything changed since:
restoring over a file someone edited afterwards would lose that edit, so `:undo` shows the
differences and asks first. Times catch every write through the usual interfaces; the hash
also catches a same-size rewrite within the clock's resolution.
"""

from __future__ import annotations

import hashlib
import os
import stat

__all__ = ["Entry", "differences", "tree_state"]

# [relative path ("" for the path itself), kind, mode, size, mtime_ns, link target or digest]
Entry = list[str | int]

_HASHED_UP_TO = 1024 * 1024


def tree_state(path: str) -> list[Entry]:
    """The fingerprint of `path` (empty when nothing is there). Symlinks are not followed."""
    entries: list[Entry] = []
    pending = [""]
    while pending:
        relative = pending.pop()
        full = os.path.join(path, relative) if relative else path
        try:
            info = os.lstat(full)
        except OSError:
            continue
        kind, extra = _kind(full, info)
        entries.append(
            [relative, kind, stat.S_IMODE(info.st_mode), _size(info), info.st_mtime_ns, extra]
        )
        if kind == "dir":
            try:
                names = os.listdir(full)
            except OSError:
                continue
            pending += [os.path.join(relative, name) if relative else name for name in names]
    entries.sort(key=lambda entry: str(entry[0]))
    return entries


def differences(before: list[Entry], after: list[Entry]) -> list[tuple[str, str]]:
    """`(relative path, what happened)` for every entry that was created, deleted or changed
    from `before` to `after`. A directory's own time is not a change (its entries say it)."""
    old = {str(entry[0]): entry for entry in before}
    new = {str(entry[0]): entry for entry in after}
    found: list[tuple[str, str]] = []
    for name in sorted(old.keys() | new.keys()):
        was, now = old.get(name), new.get(name)
        if was is None:
            found.append((name, "created"))
        elif now is None:
            found.append((name, "deleted"))
        elif was[1] != now[1]:
            found.append((name, "replaced"))
        elif was[2] != now[2]:
            found.append((name, "mode changed"))
        elif was[1] != "dir" and (was[3] != now[3] or was[4] != now[4] or was[5] != now[5]):
            found.append((name, "changed"))
    return found


def _kind(path: str, info: os.stat_result) -> tuple[str, str]:
    mode = info.st_mode
    if stat.S_ISLNK(mode):
        try:
            return "link", os.readlink(path)
        except OSError:
            return "link", ""
    if stat.S_ISDIR(mode):
        return "dir", ""
    if stat.S_ISREG(mode):
        return "file", _digest(path) if info.st_size <= _HASHED_UP_TO else ""
    return "other", ""


def _size(info: os.stat_result) -> int:
    return info.st_size if stat.S_ISREG(info.st_mode) else 0


def _digest(path: str) -> str:
    try:
        with open(path, "rb") as file:
            return hashlib.sha256(file.read()).hexdigest()
    except OSError:
        return ""
