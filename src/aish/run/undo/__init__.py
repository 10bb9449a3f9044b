"""Undo: what a command will touch, a copy of it before it runs, and putting it back.

Before the user's yes: `blast_radius` predicts, read-only from the command's parse, what it
will touch (`predict`), asking each program's rules (`programs` for file programs, `find` and
`git`, which ask the program itself through `probes`) and measuring each target (`measure`);
`radius_text` is how the confirm and HALT prompts show it. Around the run: `recorder`
(`UndoRecorder`) snapshots the predicted targets right before an approved command and records
their state right after; `snapshots` is the store `:undo` restores from, copying with `clone`
(reflink where it can) and telling changes since with `fingerprint`. Callers outside this room
import this lazy face: the confirm prompt needs it, the first prompt does not.

Nothing here decides whether a command may run (that is the gate). Imports `aish.safety`
(parsing, the read-only tables) and `aish.config` (the store's place and limits); never `ui`,
`agent` or `llm`, and tree-sitter is not imported at import time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from aish._lazy_face import lazy_names

if TYPE_CHECKING:
    from aish.run.undo.blast_radius import BlastRadius, Target, predict
    from aish.run.undo.fingerprint import tree_state
    from aish.run.undo.radius_text import human_bytes, radius_lines, undo_line
    from aish.run.undo.recorder import UndoRecorder
    from aish.run.undo.snapshots import ChangedSince, Snapshot, SnapshotStore, TooLarge

__all__ = [
    "BlastRadius",
    "ChangedSince",
    "Snapshot",
    "SnapshotStore",
    "Target",
    "TooLarge",
    "UndoRecorder",
    "human_bytes",
    "predict",
    "radius_lines",
    "tree_state",
    "undo_line",
]

# Public name → module that defines it, resolved on first use.
_HOMES = {
    "BlastRadius": "aish.run.undo.blast_radius",
    "ChangedSince": "aish.run.undo.snapshots",
    "Snapshot": "aish.run.undo.snapshots",
    "SnapshotStore": "aish.run.undo.snapshots",
    "Target": "aish.run.undo.blast_radius",
    "TooLarge": "aish.run.undo.snapshots",
    "UndoRecorder": "aish.run.undo.recorder",
    "human_bytes": "aish.run.undo.radius_text",
    "predict": "aish.run.undo.blast_radius",
    "radius_lines": "aish.run.undo.radius_text",
    "tree_state": "aish.run.undo.fingerprint",
    "undo_line": "aish.run.undo.radius_text",
}

__getattr__ = lazy_names(__name__, _HOMES)
