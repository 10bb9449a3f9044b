"""Around one authorized command: snapshot what the gate predicted it touches right before it
runs, record their state right after. Executors call `before` and `after`; `:undo` and
`aish goal --json` read what was taken (`taken`).

Only a command the gate gave a blast radius (an `unknown` or `destructive` one) is snapshotted,
and only when every target was predicted: "cannot predict" means "not undoable". A snapshot
over the size limit is not kept, and the reason is returned for the executor to say.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from aish.run.radius_text import human_bytes
from aish.run.snapshots import Snapshot, SnapshotStore, TooLarge

if TYPE_CHECKING:
    from aish.config.schema import UndoConfig
    from aish.run.blast_radius import BlastRadius

__all__ = ["UndoRecorder"]

_log = logging.getLogger("aish.undo")


@dataclass
class UndoRecorder:
    store: SnapshotStore
    # Every snapshot this session (REPL or goal run) took, oldest first.
    taken: list[Snapshot] = field(default_factory=list)

    @classmethod
    def from_config(cls, undo: UndoConfig) -> UndoRecorder | None:
        """The recorder over the XDG store with the configured limits; None when undo is off."""
        if not undo.enabled:
            return None
        store = SnapshotStore.default(
            max_snapshot_bytes=undo.max_snapshot_bytes,
            max_total_bytes=undo.max_total_bytes,
            max_age_s=undo.max_age_days * 24 * 3600,
        )
        return cls(store)

    def before(self, radius: BlastRadius | None, label: str) -> tuple[Snapshot | None, str]:
        """Snapshot the radius's targets; the snapshot (None when none was taken) and what to
        tell the user ("" for nothing)."""
        if radius is None or not radius.predictable:
            return None, ""
        if not radius.targets:
            return None, ""
        try:
            snapshot = self.store.take(radius.paths, label, radius.cwd)
        except TooLarge as large:
            return None, f"not undoable: more than {human_bytes(large.limit)} to snapshot"
        except OSError as error:
            _log.warning("snapshot before %r failed", label, exc_info=True)
            return None, f"not undoable: the snapshot failed ({error.strerror or error})"
        self.taken.append(snapshot)
        return snapshot, ""

    def after(self, snapshot: Snapshot | None) -> str:
        """Record the targets' state after the command; what to tell the user."""
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
