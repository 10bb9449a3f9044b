"""How much lies at a path: files and bytes, counted with `os.scandir` against a deadline.

The blast radius must be on screen within a fraction of a second, so counting stops when the
deadline passes and says so (`complete=False`): the counts are then a lower bound and the
prompt says "size unknown". Symbolic links are counted as entries, never followed (`rm -r`
does not follow them either). Reads only.
"""

from __future__ import annotations

import os
import stat
import time
from dataclasses import dataclass

__all__ = ["Measure", "measure"]

# How many entries between two looks at the clock (time.monotonic is cheap, not free).
_CLOCK_EVERY = 64


@dataclass(frozen=True)
class Measure:
    """What lies at one path. `exists` False: nothing there. `is_dir`: a real directory (not a
    link to one). `files` counts every non-directory entry; `bytes` their apparent sizes."""

    exists: bool
    is_dir: bool = False
    files: int = 0
    dirs: int = 0
    bytes: int = 0
    complete: bool = True


def measure(path: str, deadline: float) -> Measure:
    """Count what is at `path` (absolute) until `deadline` (a `time.monotonic()` value)."""
    try:
        info = os.lstat(path)
    except OSError:
        return Measure(exists=False)
    if not stat.S_ISDIR(info.st_mode):
        size = info.st_size if stat.S_ISREG(info.st_mode) else 0
        return Measure(exists=True, files=1, bytes=size)
    files = dirs = size = 0
    pending = [path]
    seen = 0
    while pending:
        directory = pending.pop()
        try:
            with os.scandir(directory) as entries:
                for entry in entries:
                    seen += 1
                    if seen % _CLOCK_EVERY == 0 and time.monotonic() > deadline:
                        return Measure(True, True, files, dirs, size, complete=False)
                    try:
                        if entry.is_dir(follow_symlinks=False):
                            dirs += 1
                            pending.append(entry.path)
                            continue
                        files += 1
                        if entry.is_file(follow_symlinks=False):
                            size += entry.stat(follow_symlinks=False).st_size
                    except OSError:
                        continue  # vanished while counting: it will not be there to touch
        except OSError:
            continue  # unreadable: the command will likely fail on it too
        if time.monotonic() > deadline and pending:
            return Measure(True, True, files, dirs, size, complete=False)
    return Measure(True, True, files, dirs, size)
