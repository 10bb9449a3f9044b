"""Around one authorized command: snapshot what the gate predicted it touches right before it
runs, record their state right after. Executors call `before` and `after`; `:undo` and
`aish goal --json` read what was taken (`taken`).

Only a command the gate gave a blast radius (an `unknown` or `destructive` one) is snapshotted,
and only when every target was predicted: "cannot predict" means "not undoable". A snapshot
over the size limit is not kept, and the reason is returned for the executor to say.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from aish.config.schema import UndoConfig
    from aish.run.undo.blast_radius import BlastRadius
    from aish.run.undo.snapshots import Snapshot, SnapshotStore

__all__ = ["UndoRecorder"]

_log = logging.getLogger("aish.undo")


class UndoRecorder:
    """`store`: the snapshot store, or what makes it on first use (nothing of the store is
    imported before the first prompt)."""

    def __init__(self, store: SnapshotStore | Callable[[], SnapshotStore]) -> None:
        self._store = store
        # Every snapshot this session (REPL or goal run) took, oldest first.
        self.taken: list[Snapshot] = []

    @classmethod
    def from_config(cls, undo: UndoConfig) -> UndoRecorder | None:
        """The recorder over the XDG store with the configured limits; None when undo is off."""
        if not undo.enabled:
            return None

        def store() -> SnapshotStore:
            from aish.run.undo.snapshots import SnapshotStore

            return SnapshotStore.default(
                max_snapshot_bytes=undo.max_snapshot_bytes,
                max_total_bytes=undo.max_total_bytes,
                max_age_s=undo.max_age_days * 24 * 3600,
            )

        return cls(store)

    @property
    def store(self) -> SnapshotStore:
        if callable(self._store):
            self._store = self._store()
        return self._store

    def before(self, radius: BlastRadius | None, label: str) -> tuple[Snapshot | None, str]:
        """Snapshot the radius's targets; the snapshot (None when none was taken) and what to
        tell the user ("" for nothing)."""
        if radius is None or not radius.predictable or not radius.targets:
            return None, ""
        return self.take_paths(radius.paths, label, radius.cwd)

    def take_paths(self, paths: Iterable[str], label: str, cwd: str) -> tuple[Snapshot | None, str]:
        """Snapshot `paths` (absolute) before something changes them — a command, or the
        apply of a sandbox's change set; as `before`."""
        from aish.run.undo.radius_text import human_bytes
        from aish.run.undo.snapshots import TooLarge

        try:
            snapshot = self.store.take(paths, label, cwd)
        except TooLarge as large:
            return None, f"not undoable: more than {human_bytes(large.limit)} to snapshot"
        except OSError as error:
            _log.warning("snapshot before %r failed", label, exc_info=True)
            return None, f"not undoable: the snapshot failed ({error.strerror or error})"
        self.taken.append(snapshot)
        return snapshot, ""

    def after(self, snapshot: Snapshot | None) -> str:
        """Record the targets' state after the command; what to tell the user."""
        from aish.run.undo.radius_text import human_bytes

        if snapshot is None:
            return ""
        try:
            finished = self.store.finish(snapshot)
        except OSError:
            _log.warning("recording the state after snapshot %d failed", snapshot.id, exc_info=True)
            return ""
        self.taken[self.taken.index(snapshot)] = finished
        size = human_bytes(snapshot.bytes)
        return f":undo puts back what it changed (snapshot {snapshot.id}, {size})"
