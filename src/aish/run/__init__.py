"""Execution, below ui: what happens around an authorized action when it runs.

It holds what makes a shell command's side effects visible, reversible and contained:
`blast_radius` (what a command will touch, predicted read-only from its parse, shown before the
user's yes), `snapshots` (the store `:undo` restores from), `undo_recorder` (snapshot the
predicted targets right before an approved command runs, record their state right after) and
`sandbox/` (Norris's agent shell in a copy-on-write overlay, its writes a change set the user
reviews, applies or discards). Its door is `aish.agent.gate`: the gate predicts and decides,
the executors snapshot and contain what the gate authorized; nothing here decides whether an
action may run.

Imports: `aish.safety` (parsing, the read-only tables), `shell` and `config` (the sandbox's
launch) and the standard library; never `ui`, `agent` or `llm`. Nothing here imports
tree-sitter at import time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from aish.run.blast_radius import BlastRadius, Target, predict
    from aish.run.snapshots import ChangedSince, Snapshot, SnapshotStore, TooLarge
    from aish.run.undo_recorder import UndoRecorder

__all__ = [
    "BlastRadius",
    "ChangedSince",
    "Snapshot",
    "SnapshotStore",
    "Target",
    "TooLarge",
    "UndoRecorder",
    "predict",
]

_HOMES = {
    "BlastRadius": "aish.run.blast_radius",
    "Target": "aish.run.blast_radius",
    "predict": "aish.run.blast_radius",
    "ChangedSince": "aish.run.snapshots",
    "Snapshot": "aish.run.snapshots",
    "SnapshotStore": "aish.run.snapshots",
    "TooLarge": "aish.run.snapshots",
    "UndoRecorder": "aish.run.undo_recorder",
}


def __getattr__(name: str) -> Any:
    # Lazy: the confirm prompt needs these, the first prompt does not.
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(name)
    import importlib

    return getattr(importlib.import_module(home), name)
