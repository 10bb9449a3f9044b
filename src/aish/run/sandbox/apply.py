"""Applying a sandbox's change set to the real tree: all of it or the files the user chose.

A change whose path changed in the real tree since the sandbox started is refused (and said),
never merged. Before anything is touched, what the apply will overwrite or delete is copied to
a backup directory under the XDG data dir with a manifest, and `restore_backup` puts it back
(what the apply created is removed again) — so an apply can be undone.

Files are written next to their target and renamed over it, so a reader of the real tree never
sees half a file.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import time
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path

from aish.run.sandbox.changes import Change, ChangeSet, conflict

__all__ = ["ApplyResult", "apply_changes", "backup_root", "restore_backup"]

_MANIFEST = "manifest.json"


@dataclass
class ApplyResult:
    applied: list[Change] = field(default_factory=list)
    refused: list[tuple[Change, str]] = field(default_factory=list)
    failed: list[tuple[Change, str]] = field(default_factory=list)
    backup: Path | None = None  # None: nothing was overwritten or deleted, or nothing applied


def backup_root() -> Path:
    """Where apply backups live: `$XDG_DATA_HOME/aish/sandbox-backups`."""
    from aish.config.paths import data_dir

    return data_dir() / "sandbox-backups"


def apply_changes(
    changes: ChangeSet, chosen: Collection[str] | None = None, *, backups: Path | None = None
) -> ApplyResult:
    """Apply the changes whose paths are in `chosen` (all when None)."""
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
    result.backup = _back_up(changes.tree, ready, backups or backup_root())
    # Deletions deepest first, then what is new in the order it was found (parents first).
    deletions = sorted((c for c in ready if c.change == "deleted"), key=_depth, reverse=True)
    for change in [*deletions, *(c for c in ready if c.change != "deleted")]:
        try:
            _apply_one(changes, change)
        except OSError as error:
            result.failed.append((change, error.strerror or str(error)))
        else:
            result.applied.append(change)
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


# ---- the backup ------------------------------------------------------------------------------


def _back_up(tree: Path, ready: list[Change], root: Path) -> Path:
    """Copy what the apply will overwrite or delete; record what it will create."""
    directory = root / time.strftime("%Y%m%dT%H%M%S") / str(time.time_ns())
    files = directory / "files"
    files.mkdir(parents=True)
    entries: list[dict[str, object]] = []
    for change in ready:
        real = tree / change.path
        existed = real.is_symlink() or real.exists()
        if existed and not _covered(change.path, entries):
            saved = files / change.path
            saved.parent.mkdir(parents=True, exist_ok=True)
            if real.is_dir() and not real.is_symlink():
                shutil.copytree(real, saved, symlinks=True)
            else:
                shutil.copy2(real, saved, follow_symlinks=False)
        entries.append({"path": change.path, "existed": existed, "change": change.change})
    manifest = {"tree": str(tree), "entries": entries}
    (directory / _MANIFEST).write_text(json.dumps(manifest, indent=1), encoding="utf-8")
    return directory


def _covered(path: str, entries: list[dict[str, object]]) -> bool:
    """Already saved as part of a directory saved whole."""
    return any(path.startswith(f"{e['path']}/") and e["existed"] for e in entries)


def restore_backup(directory: Path) -> list[str]:
    """Undo an apply from its backup: saved paths back as they were, created ones removed.
    Returns the paths restored."""
    manifest = json.loads((directory / _MANIFEST).read_text(encoding="utf-8"))
    tree = Path(manifest["tree"])
    restored = []
    for entry in reversed(manifest["entries"]):
        path = str(entry["path"])
        real = tree / path
        if not entry["existed"]:
            _remove(real)
            restored.append(path)
    for entry in manifest["entries"]:
        path = str(entry["path"])
        saved = directory / "files" / path
        if not entry["existed"] or not (saved.is_symlink() or saved.exists()):
            continue
        real = tree / path
        _remove(real)
        real.parent.mkdir(parents=True, exist_ok=True)
        if saved.is_dir() and not saved.is_symlink():
            shutil.copytree(saved, real, symlinks=True)
        else:
            shutil.copy2(saved, real, follow_symlinks=False)
        restored.append(path)
    return restored
