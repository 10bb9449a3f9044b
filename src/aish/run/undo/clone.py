"""Copying a file, a symlink or a whole tree with its bytes, modes and times — by reflink where
the filesystem can (`ioctl FICLONE`: the copy shares blocks until either side writes, so it
costs almost nothing), else by `copy_file_range`, else by reading and writing. And removing a
tree even where its directories are read-only.

Used both ways: into the snapshot store before a command runs, and back out by `:undo`. FIFOs,
sockets and devices are not copied (no command that deletes files needs them back as data).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import stat
from dataclasses import dataclass

__all__ = ["CopyBudget", "OverBudget", "clone_tree", "remove_tree"]

# _IOW(0x94, 9, int): "make dst share src's blocks" (btrfs, XFS, bcachefs, overlayfs on those).
_FICLONE = 0x40049409
_CHUNK = 8 * 1024 * 1024


class OverBudget(Exception):
    """The copy would hold more bytes than allowed; `copied` so far (a lower bound)."""

    def __init__(self, copied: int) -> None:
        super().__init__(copied)
        self.copied = copied


@dataclass
class CopyBudget:
    """Bytes a copy may hold (None: no limit), what it holds so far, and how many files were
    reflinked rather than copied."""

    limit: int | None = None
    copied: int = 0
    files: int = 0
    reflinked: int = 0

    def spend(self, size: int) -> None:
        self.copied += size
        if self.limit is not None and self.copied > self.limit:
            raise OverBudget(self.copied)


def clone_tree(source: str, destination: str, budget: CopyBudget | None = None) -> None:
    """Make `destination` (which must not exist) what `source` is: a file, a symlink or a
    directory tree, with modes and modification times. Raises `OverBudget` past the budget
    (leaving a partial copy for the caller to remove)."""
    budget = budget if budget is not None else CopyBudget()
    info = os.lstat(source)
    mode = info.st_mode
    if stat.S_ISLNK(mode):
        os.symlink(os.readlink(source), destination)
        with contextlib.suppress(OSError, NotImplementedError):
            os.utime(destination, ns=(info.st_atime_ns, info.st_mtime_ns), follow_symlinks=False)
        return
    if stat.S_ISREG(mode):
        budget.spend(info.st_size)
        budget.files += 1
        if _clone_file(source, destination):
            budget.reflinked += 1
    elif stat.S_ISDIR(mode):
        os.mkdir(destination, 0o700)
        with os.scandir(source) as entries:
            names = [entry.name for entry in entries]
        for name in names:
            clone_tree(os.path.join(source, name), os.path.join(destination, name), budget)
    else:
        return  # a FIFO, socket or device: not data
    os.chmod(destination, stat.S_IMODE(mode))
    os.utime(destination, ns=(info.st_atime_ns, info.st_mtime_ns))


def remove_tree(path: str) -> None:
    """Remove a file, symlink or tree at `path`; read-only directories are made writable
    first (what `rm -rf` as their owner manages too). Nothing there: nothing to do."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    if not stat.S_ISDIR(info.st_mode):
        os.unlink(path)
        return
    for directory, subdirectories, _files in os.walk(path):
        with contextlib.suppress(OSError):
            os.chmod(directory, 0o700)
        # os.walk lists links to directories as directories; those are not walked into.
        subdirectories[:] = [
            name for name in subdirectories if not os.path.islink(os.path.join(directory, name))
        ]
    shutil.rmtree(path)


def _clone_file(source: str, destination: str) -> bool:
    """Copy one regular file's bytes; True when it was a reflink."""
    reader = os.open(source, os.O_RDONLY | os.O_NOFOLLOW)
    try:
        writer = os.open(destination, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            try:
                fcntl.ioctl(writer, _FICLONE, reader)
                return True
            except OSError:
                pass  # not supported here (ext4, tmpfs, another filesystem): copy the bytes
            _copy_bytes(reader, writer)
            return False
        finally:
            os.close(writer)
    finally:
        os.close(reader)


def _copy_bytes(reader: int, writer: int) -> None:
    try:
        while os.copy_file_range(reader, writer, _CHUNK):
            pass
        return
    except OSError:
        # Not across these filesystems on this kernel: start over the plain way.
        os.lseek(reader, 0, os.SEEK_SET)
        os.lseek(writer, 0, os.SEEK_SET)
        os.ftruncate(writer, 0)
    while chunk := os.read(reader, _CHUNK):
        view = memoryview(chunk)
        while view:
            view = view[os.write(writer, view) :]
