"""Reading a config file without trusting its size.

A config file is a few kilobytes; a project `.aish.toml` arrives with whatever repository was
cloned, and a 3 GB sparse one took 16 s and 3 GB of memory to be read whole and refused as
TOML. Here a file is opened first and its size asked of the open descriptor (so the file
measured is the file read), a regular file over the limit is refused without reading a byte,
and anything else (a FIFO, `/dev/zero`, `<(…)`) is read up to one byte past the limit. The
open does not block: a FIFO nobody writes to reads as empty instead of hanging start-up.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import Final

__all__ = ["MAX_CONFIG_BYTES", "FileTooLarge", "read_bounded"]

MAX_CONFIG_BYTES: Final = 1024 * 1024
_BLOCK: Final = 64 * 1024


class FileTooLarge(OSError):
    """The file is larger than the limit; `size` is its size when known without reading."""

    def __init__(self, limit: int, size: int | None) -> None:
        super().__init__(errno.EFBIG, "file too large")
        self.limit = limit
        self.size = size

    def __str__(self) -> str:
        found = f"{_amount(self.size)}, " if self.size is not None else ""
        return f"too large ({found}the limit is {_amount(self.limit)})"


def read_bounded(path: Path, limit: int = MAX_CONFIG_BYTES) -> bytes:
    """The file's bytes; `FileTooLarge` past `limit`, another `OSError` when it cannot be read."""
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        info = os.fstat(descriptor)
        if stat.S_ISDIR(info.st_mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
        if stat.S_ISREG(info.st_mode) and info.st_size > limit:
            raise FileTooLarge(limit, info.st_size)
        os.set_blocking(descriptor, True)
        chunks: list[bytes] = []
        total = 0
        while total <= limit:
            chunk = os.read(descriptor, min(_BLOCK, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        if total > limit:  # it grew, or it was never a regular file
            raise FileTooLarge(limit, None)
        return b"".join(chunks)
    finally:
        os.close(descriptor)


def _amount(count: int) -> str:
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if count >= size:
            value = count / size
            return f"{value:.0f} {unit}" if value == int(value) else f"{value:.1f} {unit}"
    return f"{count} bytes"
