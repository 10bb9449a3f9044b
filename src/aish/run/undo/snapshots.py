"""The snapshot store: copies of the paths a command was about to touch, so `:undo` can put
them back.

API (also what a sandbox apply uses to make itself undoable):

    store = SnapshotStore.default(max_snapshot_bytes=..., max_total_bytes=..., max_age_s=...)
    snapshot = store.take(paths, label)      # before: copy each path (reflink where possible);
                                             # a path that does not exist is recorded as absent
    store.finish(snapshot)                   # after: record each path's state (tree_state)
    store.changed_since(snapshot)            # [(path, "changed" | "created" | ...)] since finish
    store.restore(snapshot.id, force=False)  # put every path back as it was before; raises
                                             # ChangedSince unless nothing changed or force
    store.list()                             # newest first; store.last(): newest not restored

`take` raises `TooLarge` when the copies would exceed `max_snapshot_bytes` (nothing is kept).
Restoring puts back bytes, modes, times, symlinks and deleted directories, and removes what
the command created at a path that was absent before. Retention: after each `take`, snapshots
older than `max_age_s` go, then the oldest until the store holds at most `max_total_bytes`.

On disk, under the XDG data dir (`~/.local/share/aish/snapshots`): one directory per snapshot,
named by its number, holding `snapshot.json` and `copy/<n>`, the copy of the n-th path. A new
number is claimed with `mkdir` (so several aish processes can share the store) and is never
reused (`last-number` remembers the highest).
"""

from __future__ import annotations

import builtins
import contextlib
import json
import os
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aish.run.undo.clone import CopyBudget, OverBudget, clone_tree, remove_tree
from aish.run.undo.fingerprint import differences, tree_state

__all__ = ["ChangedSince", "Snapshot", "SnapshotStore", "TooLarge"]

MiB = 1024 * 1024
DEFAULT_MAX_SNAPSHOT_BYTES = 256 * MiB
DEFAULT_MAX_TOTAL_BYTES = 1024 * MiB
DEFAULT_MAX_AGE_S = 7 * 24 * 3600.0

_META = "snapshot.json"
_COPY = "copy"
_ABSENT = "absent"
_LAST = "last-number"


@dataclass(frozen=True)
class Snapshot:
    """One snapshot: `paths` as they were before `label` (the command) ran in `cwd`.
    `finished`: their state after it was recorded; `restored_at`: when `:undo` put them back."""

    id: int
    label: str
    cwd: str
    taken_at: float
    bytes: int
    paths: tuple[str, ...]
    finished: bool = False
    restored_at: float | None = None
    reflinked: int = 0
    files: int = 0


class TooLarge(Exception):
    """The paths hold more than the store's `max_snapshot_bytes`; `size` is a lower bound."""

    def __init__(self, size: int, limit: int) -> None:
        super().__init__(f"{size} bytes is over the {limit}-byte snapshot limit")
        self.size = size
        self.limit = limit


class ChangedSince(Exception):
    """Files changed after the command finished; restoring would undo those changes too."""

    def __init__(self, changes: list[tuple[str, str]]) -> None:
        super().__init__(f"{len(changes)} change(s) since the command finished")
        self.changes = changes


class SnapshotStore:
    def __init__(
        self,
        root: Path,
        *,
        max_snapshot_bytes: int = DEFAULT_MAX_SNAPSHOT_BYTES,
        max_total_bytes: int = DEFAULT_MAX_TOTAL_BYTES,
        max_age_s: float = DEFAULT_MAX_AGE_S,
    ) -> None:
        self.root = root
        self.max_snapshot_bytes = max_snapshot_bytes
        self.max_total_bytes = max_total_bytes
        self.max_age_s = max_age_s

    @classmethod
    def default(cls, **limits: Any) -> SnapshotStore:
        """The store under the XDG data dir."""
        from aish.config.paths import data_dir

        return cls(data_dir() / "snapshots", **limits)

    # ---- before and after ----------------------------------------------------------------

    def take(self, paths: Iterable[str], label: str, cwd: str = "") -> Snapshot:
        """Copy every path (absolute) as it is now. Raises `TooLarge` (keeping nothing)."""
        wanted = list(dict.fromkeys(os.path.abspath(path) for path in paths))
        self._prune(time.time())
        directory, number = self._claim()
        budget = CopyBudget(self.max_snapshot_bytes)
        before: list[str] = []
        try:
            os.mkdir(directory / _COPY)
            for index, path in enumerate(wanted):
                if not os.path.lexists(path):
                    before.append(_ABSENT)
                    continue
                clone_tree(path, str(directory / _COPY / str(index)), budget)
                before.append("present")
        except OverBudget as over:
            remove_tree(str(directory))
            raise TooLarge(over.copied, self.max_snapshot_bytes) from None
        except BaseException:
            remove_tree(str(directory))
            raise
        record = {
            "id": number,
            "label": label,
            "cwd": cwd,
            "taken_at": time.time(),
            "bytes": budget.copied,
            "files": budget.files,
            "reflinked": budget.reflinked,
            "paths": wanted,
            "before": before,
            "after": None,
            "restored_at": None,
        }
        self._write(directory, record)
        self._prune(time.time(), keep=number)
        return _snapshot(record)

    def finish(self, snapshot: Snapshot | int) -> Snapshot:
        """Record the state of the snapshot's paths now that the command has finished."""
        directory, record = self._read(_number(snapshot))
        record["after"] = [tree_state(path) for path in record["paths"]]
        self._write(directory, record)
        return _snapshot(record)

    # ---- looking -------------------------------------------------------------------------

    def list(self) -> builtins.list[Snapshot]:
        """Every snapshot in the store, newest first."""
        found = []
        for number in self._numbers():
            with contextlib.suppress(OSError, ValueError, KeyError):
                found.append(_snapshot(self._read(number)[1]))
        return sorted(found, key=lambda snapshot: snapshot.id, reverse=True)

    def get(self, snapshot_id: int) -> Snapshot | None:
        try:
            return _snapshot(self._read(snapshot_id)[1])
        except (OSError, ValueError, KeyError):
            return None

    def last(self) -> Snapshot | None:
        """The newest snapshot not restored yet: what a bare `:undo` takes back."""
        return next((s for s in self.list() if s.restored_at is None), None)

    def changed_since(self, snapshot: Snapshot | int) -> builtins.list[tuple[str, str]]:
        """What differs from the state recorded when the command finished: `(path, change)`.
        Unfinished (the state after was never recorded): every path counts as changed."""
        _, record = self._read(_number(snapshot))
        after = record["after"]
        if after is None:
            return [(path, "state after the command unknown") for path in record["paths"]]
        found = []
        for path, recorded in zip(record["paths"], after, strict=True):
            for relative, change in differences(recorded, tree_state(path)):
                found.append((os.path.join(path, relative) if relative else path, change))
        return found

    # ---- undoing -------------------------------------------------------------------------

    def restore(self, snapshot_id: int, *, force: bool = False) -> Snapshot:
        """Put every path back as it was before the command. Raises `ChangedSince` when
        anything changed after the command finished (unless `force`)."""
        directory, record = self._read(snapshot_id)
        if not force:
            changes = self.changed_since(snapshot_id)
            if changes:
                raise ChangedSince(changes)
        for index, (path, before) in enumerate(zip(record["paths"], record["before"], strict=True)):
            remove_tree(path)
            if before == _ABSENT:
                continue  # the command created it: gone again
            os.makedirs(os.path.dirname(path), exist_ok=True)
            clone_tree(str(directory / _COPY / str(index)), path)
        record["restored_at"] = time.time()
        self._write(directory, record)
        return _snapshot(record)

    def remove(self, snapshot_id: int) -> None:
        remove_tree(str(self.root / str(snapshot_id)))

    # ---- the directory -------------------------------------------------------------------

    def _claim(self) -> tuple[Path, int]:
        self.root.mkdir(parents=True, exist_ok=True, mode=0o700)
        # Numbers are never reused, even after the newest snapshot was pruned: `:undo 3`
        # and a goal's JSON must keep meaning the same snapshot.
        number = max([*self._numbers(), self._last_number()]) + 1
        while True:
            directory = self.root / str(number)
            try:
                directory.mkdir(mode=0o700)
            except FileExistsError:
                number += 1  # another aish took it
                continue
            partial = self.root / f".{_LAST}.{os.getpid()}"
            partial.write_text(str(number), encoding="utf-8")
            os.replace(partial, self.root / _LAST)
            return directory, number

    def _last_number(self) -> int:
        try:
            return int((self.root / _LAST).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return 0

    def _numbers(self) -> builtins.list[int]:
        try:
            names = os.listdir(self.root)
        except OSError:
            return []
        return [int(name) for name in names if name.isdigit()]

    def _read(self, number: int) -> tuple[Path, dict[str, Any]]:
        directory = self.root / str(number)
        with open(directory / _META, encoding="utf-8") as file:
            return directory, json.load(file)

    def _write(self, directory: Path, record: dict[str, Any]) -> None:
        # Written whole, then renamed: a reader never sees half a record.
        partial = directory / f".{_META}.{os.getpid()}"
        partial.write_text(json.dumps(record), encoding="utf-8")
        os.replace(partial, directory / _META)

    def _prune(self, now: float, keep: int | None = None) -> None:
        snapshots = sorted(self.list(), key=lambda snapshot: snapshot.id)
        kept = []
        for snapshot in snapshots:
            if snapshot.id != keep and now - snapshot.taken_at > self.max_age_s:
                self.remove(snapshot.id)
            else:
                kept.append(snapshot)
        total = sum(snapshot.bytes for snapshot in kept)
        for snapshot in kept:
            if total <= self.max_total_bytes:
                break
            if snapshot.id != keep:
                self.remove(snapshot.id)
                total -= snapshot.bytes


def _number(snapshot: Snapshot | int) -> int:
    return snapshot if isinstance(snapshot, int) else snapshot.id


def _snapshot(record: dict[str, Any]) -> Snapshot:
    return Snapshot(
        id=int(record["id"]),
        label=str(record["label"]),
        cwd=str(record.get("cwd", "")),
        taken_at=float(record["taken_at"]),
        bytes=int(record["bytes"]),
        paths=tuple(record["paths"]),
        finished=record.get("after") is not None,
        restored_at=record.get("restored_at"),
        reflinked=int(record.get("reflinked", 0)),
        files=int(record.get("files", 0)),
    )
