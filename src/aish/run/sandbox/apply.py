"""Applying a sandbox's change set to the real tree: all of it or the files the user chose.

A change whose path changed in the real tree since the sandbox started is refused (and said),
never merged. Before anything is touched, every path the apply will write is snapshotted in the
`:undo` store (an `UndoRecorder`), so an apply is undone like any command: `:undo` puts back
what it overwrote or deleted and removes what it created.

Files are written next to their target and renamed over it, so a reader of the real tree never
sees half a file.
"""

from __future__ import annotations

import os
import shutil
import stat
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from aish.run.sandbox.changes import Change, ChangeSet, conflict

if TYPE_CHECKING:
    from pathlib import Path

    from aish.run.undo import Snapshot, UndoRecorder

__all__ = ["ApplyResult", "apply_changes"]


@dataclass
class ApplyResult:
    applied: list[Change] = field(default_factory=list)
    refused: list[tuple[Change, str]] = field(default_factory=list)
    failed: list[tuple[Change, str]] = field(default_factory=list)
    # The `:undo` snapshot taken before the apply (None: nothing applied, or not undoable).
    snapshot: Snapshot | None = None
    # What to tell about undoing it: ":undo puts back …", or why it is not undoable.
    undo_note: str = ""


def apply_changes(
    changes: ChangeSet, chosen: Collection[str] | None = None, *, undo: UndoRecorder | None
) -> ApplyResult:
    """Apply the changes whose paths are in `chosen` (all when None), snapshotted first in
    `undo`'s store (None: undo is off, and the apply cannot be taken back)."""
    result = ApplyResult()
    wanted = [c for c in changes.changes if chosen is None or c.path in chosen]
    ready = []
    for change in wanted:
        reason = conflict(changes, change)
        if reason is not None:
            result.refused.append((change, reason))
        elif _inside_refused(change, result.refused):
            result.refused.append((change, "its directory changed in the real tree meanwhile"))
        else:
            ready.append(change)
    if not ready:
        return result
    if undo is not None:
        paths = [str(changes.tree / change.path) for change in ready]
        result.snapshot, result.undo_note = undo.take_paths(
            paths, "apply the sandbox's changes", str(changes.tree)
        )
    # Deletions deepest first, then what is new in the order it was found (parents first).
    deletions = sorted((c for c in ready if c.change == "deleted"), key=_depth, reverse=True)
    for change in [*deletions, *(c for c in ready if c.change != "deleted")]:
        try:
            _apply_one(changes, change)
        except OSError as error:
            result.failed.append((change, error.strerror or str(error)))
        else:
            result.applied.append(change)
    if undo is not None and result.snapshot is not None:
        result.undo_note = undo.after(result.snapshot) or result.undo_note
    return result


def _inside_refused(change: Change, refused: list[tuple[Change, str]]) -> bool:
    return any(change.path.startswith(r.path + "/") for r, _ in refused)


def _depth(change: Change) -> int:
    return change.path.count("/")


def _apply_one(changes: ChangeSet, change: Change) -> None:
    real = changes.tree / change.path
    new = changes.upper / change.path
    if change.change == "deleted":
        _remove(real)
        return
    if change.change == "mode":
        assert change.new_mode is not None
        os.chmod(real, change.new_mode)
        return
    real.parent.mkdir(parents=True, exist_ok=True)
    info = new.lstat()
    if stat.S_ISDIR(info.st_mode):
        if real.is_symlink() or (real.exists() and not real.is_dir()):
            _remove(real)
        real.mkdir(exist_ok=True)
        os.chmod(real, stat.S_IMODE(info.st_mode))
        return
    if real.is_dir() and not real.is_symlink():
        _remove(real)  # a directory replaced by a file
    temporary = real.with_name(f".{real.name}.aish-apply-{os.getpid()}")
    if stat.S_ISLNK(info.st_mode):
        os.symlink(os.readlink(new), temporary)
    else:
        shutil.copy2(new, temporary)
    os.replace(temporary, real)


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif path.is_symlink() or path.exists():
        path.unlink()
