"""What a sandbox changed: the change set read from the overlay's upper directory.

The upper directory holds everything the sandbox wrote, at its path in the tree: a new or
copied-up file, a directory that was written into, a whiteout (a character device 0/0) where
something of the real tree was deleted, and an *opaque* directory (xattr `user.overlay.opaque`
for an overlay mounted with `userxattr` in a user namespace, `trusted.overlay.opaque` for one
mounted by real root) where a directory was deleted and made again — nothing of the real one
shows through it. Each entry is compared with the real tree: a copy-up that changed nothing
(opened for writing, touched) is no change; one whose bytes are the same but whose mode is not
is a `mode` change.

The real tree is the overlay's lower layer and is live: `conflict` says whether a path changed
there since the sandbox started (its ctime, which nobody can set back, is not older than the
start), so applying never overwrites somebody else's work.
"""

from __future__ import annotations

import difflib
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

__all__ = ["Change", "ChangeKind", "ChangeSet", "EntryKind", "conflict", "scan_changes"]

ChangeKind = Literal["created", "modified", "deleted", "mode"]
EntryKind = Literal["file", "dir", "symlink", "other"]

_OPAQUE_XATTRS = ("user.overlay.opaque", "trusted.overlay.opaque")
# Text diffs are shown for files up to this size; larger ones are summarised.
_DIFF_MAX_BYTES = 256 * 1024


@dataclass(frozen=True)
class Change:
    """One path the sandbox changed, relative to the tree. `bytes` is the new size (created,
    modified, mode) or what was deleted (a directory: everything under it)."""

    path: str
    change: ChangeKind
    kind: EntryKind
    bytes: int
    old_mode: int | None = None
    new_mode: int | None = None

    def as_json(self) -> dict[str, object]:
        return {"path": self.path, "change": self.change, "bytes": self.bytes, "kind": self.kind}

    def mode_text(self) -> str:
        """'0644 → 0755' when the mode changed, else ''."""
        if self.old_mode is None or self.new_mode is None or self.old_mode == self.new_mode:
            return ""
        return f"{self.old_mode:04o} → {self.new_mode:04o}"


@dataclass(frozen=True)
class ChangeSet:
    """Everything one sandbox changed in `tree`, its new contents in `upper`."""

    tree: Path
    upper: Path
    changes: tuple[Change, ...]
    started_ns: int

    def __bool__(self) -> bool:
        return bool(self.changes)

    def counts(self) -> dict[ChangeKind, int]:
        counts: dict[ChangeKind, int] = {}
        for change in self.changes:
            counts[change.change] = counts.get(change.change, 0) + 1
        return counts

    def summary(self) -> str:
        """'2 created, 1 modified, 3 deleted' (or 'no changes')."""
        counts = self.counts()
        order: tuple[ChangeKind, ...] = ("created", "modified", "deleted", "mode")
        parts = [f"{counts[kind]} {_said(kind)}" for kind in order if kind in counts]
        return ", ".join(parts) or "no changes"

    def conflicts(self) -> dict[str, str]:
        """Path → why it cannot be applied: it changed in the real tree since the start."""
        found = {}
        for change in self.changes:
            reason = conflict(self, change)
            if reason is not None:
                found[change.path] = reason
        return found

    def diff(self, change: Change) -> str:
        """A unified diff for a text file; a one-line description otherwise."""
        if change.kind != "file" or change.change == "mode":
            return ""
        old = self.tree / change.path
        new = self.upper / change.path
        before = _text(old) if change.change in ("modified", "deleted") else ""
        after = _text(new) if change.change in ("created", "modified") else ""
        if before is None or after is None:
            return f"binary file, {change.bytes:,} bytes"
        lines = difflib.unified_diff(
            before.splitlines(keepends=True),
            after.splitlines(keepends=True),
            f"a/{change.path}",
            f"b/{change.path}",
        )
        return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def _said(kind: ChangeKind) -> str:
    return "mode changes" if kind == "mode" else kind


def _text(path: Path) -> str | None:
    try:
        if path.stat().st_size > _DIFF_MAX_BYTES:
            return None
        data = path.read_bytes()
    except OSError:
        return ""
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def scan_changes(tree: Path, upper: Path, started_ns: int) -> ChangeSet:
    """The change set of the sandbox whose upper directory is `upper` over `tree`."""
    changes = tuple(_walk(tree, upper, "", opaque=False))
    return ChangeSet(tree, upper, changes, started_ns)


def _walk(tree: Path, upper: Path, rel: str, *, opaque: bool) -> Iterator[Change]:
    try:
        entries = sorted(os.scandir(upper / rel), key=lambda entry: entry.name)
    except OSError:
        return
    present = set()
    for entry in entries:
        path = f"{rel}/{entry.name}" if rel else entry.name
        present.add(entry.name)
        yield from _entry(tree, upper, path, entry.stat(follow_symlinks=False), opaque=opaque)
    if opaque:
        # Nothing of the real directory shows through an opaque one: what is not here is gone.
        yield from _deleted_rest(tree, rel, present)


def _entry(
    tree: Path, upper: Path, path: str, new: os.stat_result, *, opaque: bool
) -> Iterator[Change]:
    real = tree / path
    old = _lstat(real)
    if stat.S_ISCHR(new.st_mode) and new.st_rdev == 0:  # a whiteout
        if old is not None:
            yield Change(path, "deleted", _kind(old.st_mode), _size(real, old), _mode(old))
        return
    kind = _kind(new.st_mode)
    if kind == "dir":
        if old is None or not stat.S_ISDIR(old.st_mode):
            yield Change(path, "created" if old is None else "modified", "dir", 0, None, _mode(new))
            yield from _walk(tree, upper, path, opaque=True)  # all of it is new
            return
        if _mode(old) != _mode(new):
            yield Change(path, "mode", "dir", 0, _mode(old), _mode(new))
        yield from _walk(tree, upper, path, opaque=opaque or _is_opaque(upper / path))
        return
    size = new.st_size
    if old is None:
        yield Change(path, "created", kind, size, None, _mode(new))
    elif _kind(old.st_mode) != kind or not _same_content(real, upper / path, old, new):
        yield Change(path, "modified", kind, size, _mode(old), _mode(new))
    elif _mode(old) != _mode(new) and kind != "symlink":
        yield Change(path, "mode", kind, size, _mode(old), _mode(new))


def _deleted_rest(tree: Path, rel: str, present: set[str]) -> Iterator[Change]:
    try:
        entries = sorted(os.scandir(tree / rel), key=lambda entry: entry.name)
    except OSError:
        return
    for entry in entries:
        if entry.name in present:
            continue
        path = f"{rel}/{entry.name}" if rel else entry.name
        old = entry.stat(follow_symlinks=False)
        yield Change(path, "deleted", _kind(old.st_mode), _size(tree / path, old), _mode(old))


def _is_opaque(directory: Path) -> bool:
    for name in _OPAQUE_XATTRS:
        try:
            if os.getxattr(directory, name, follow_symlinks=False) == b"y":
                return True
        except OSError:
            continue
    return False


def _same_content(old: Path, new: Path, old_stat: os.stat_result, new_stat: os.stat_result) -> bool:
    if stat.S_ISLNK(old_stat.st_mode):
        try:
            return os.readlink(old) == os.readlink(new)
        except OSError:
            return False
    if not stat.S_ISREG(old_stat.st_mode):
        return True  # a fifo or a device of the same kind: there are no bytes to compare
    if old_stat.st_size != new_stat.st_size:
        return False
    try:
        with old.open("rb") as a, new.open("rb") as b:
            while True:
                left, right = a.read(1 << 16), b.read(1 << 16)
                if left != right:
                    return False
                if not left:
                    return True
    except OSError:
        return False


def _lstat(path: Path) -> os.stat_result | None:
    try:
        return path.lstat()
    except OSError:
        return None


def _kind(mode: int) -> EntryKind:
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISDIR(mode):
        return "dir"
    if stat.S_ISLNK(mode):
        return "symlink"
    return "other"


def _mode(info: os.stat_result) -> int:
    return stat.S_IMODE(info.st_mode)


def _size(path: Path, info: os.stat_result) -> int:
    if not stat.S_ISDIR(info.st_mode):
        return info.st_size
    total = 0
    for top, _, files in os.walk(path):
        for name in files:
            try:
                total += os.lstat(os.path.join(top, name)).st_size
            except OSError:
                continue
    return total


def conflict(changes: ChangeSet, change: Change) -> str | None:
    """Why `change` must not be applied (its path changed in the real tree since the sandbox
    started), or None."""
    real = changes.tree / change.path
    info = _lstat(real)
    if change.change == "created":
        return "created in the real tree meanwhile" if info is not None else None
    if info is None:
        return None if change.change == "deleted" else "deleted in the real tree meanwhile"
    if info.st_ctime_ns >= changes.started_ns:
        return "changed in the real tree meanwhile"
    if change.change == "deleted" and stat.S_ISDIR(info.st_mode):
        for top, dirs, files in os.walk(real):
            for name in (*dirs, *files):
                found = _lstat(Path(top) / name)
                if found is not None and found.st_ctime_ns >= changes.started_ns:
                    return f"{Path(top, name).relative_to(changes.tree)} changed meanwhile"
    return None
