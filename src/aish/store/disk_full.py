"""Telling a full disk from a broken store.

SQLite reports a full disk in more than one way: SQLITE_FULL ("database or disk is full") when
a page cannot be written, but a plain SQLITE_IOERR ("disk I/O error") when the WAL index
(`-shm`) cannot grow, which is what opening a store on a full disk meets first. That one was
reported as a corrupted store to be moved aside: advice that loses a good store to cure an
empty disk. An I/O error is therefore read as a full disk when the file system holding the
store has (almost) no room left.
"""

from __future__ import annotations

import errno
import os
import sqlite3
from pathlib import Path
from typing import Final

__all__ = ["DISK_FULL", "is_disk_full", "is_full_disk_os_error"]

DISK_FULL: Final = (
    "disk full: no space left on the file system that holds it "
    "(nothing in the store is lost; free some space)"
)
# Below this much free space an I/O error is taken for the full disk it almost certainly is.
_NEARLY_FULL_BYTES: Final = 1 << 20


def is_disk_full(exc: sqlite3.Error, path: Path) -> bool:
    """Whether `exc`, raised using the store at `path`, comes from a full disk."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None and code & 0xFF == sqlite3.SQLITE_FULL:
        return True
    if "disk is full" in str(exc):
        return True
    io_error = (code is not None and code & 0xFF == sqlite3.SQLITE_IOERR) or (
        code is None and "disk I/O error" in str(exc)
    )
    return io_error and _nearly_full(path.parent)


def is_full_disk_os_error(exc: OSError) -> bool:
    return exc.errno in (errno.ENOSPC, errno.EDQUOT)


def _nearly_full(folder: Path) -> bool:
    try:
        stats = os.statvfs(folder)
    except OSError:
        return False
    return stats.f_bavail * stats.f_frsize < _NEARLY_FULL_BYTES
