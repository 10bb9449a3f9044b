"""The blast radius as the confirm and HALT prompts show it, one line per target or group:

    deletes 1,204 files, 38.2 MB under build/
    overwrites notes.txt (12.0 KB)
    edits 3 files in place, 6.1 KB: a.py, b.py, c.py
    cannot predict: bash runs script.sh
    not undoable: 2.3 GB (over undo.max_snapshot_bytes, 256 MB)

Paths under the cwd are shown relative to it, directories with a trailing `/`. Every user-visible
string of the blast radius and of undoability lives here.
"""

from __future__ import annotations

import os
from collections import defaultdict

from aish.run.undo.blast_radius import BlastRadius, Target

__all__ = ["MAX_LINES", "human_bytes", "radius_lines", "undo_line"]

# A prompt is not a listing: past this many lines the rest is one summary line.
MAX_LINES = 6
# Groups of more files than this are one line with a few names.
_NAMES_SHOWN = 3

_VERBS = {
    "delete": "deletes",
    "move": "moves away",
    "overwrite": "overwrites",
    "append": "appends to",
    "edit": "edits in place",
    "mode": "changes modes of",
    "owner": "changes owners of",
    "create": "creates",
    "times": "updates the times of",
    "revert": "discards changes to",
}


def human_bytes(size: int) -> str:
    """`812 B`, `12.0 KB`, `38.2 MB`, `2.3 GB` (binary multiples, as `du -h` counts)."""
    if size < 1024:
        return f"{size} B"
    value = float(size)
    for unit in ("KB", "MB", "GB", "TB"):
        value /= 1024
        if value < 1024 or unit == "TB":
            return f"{value:.1f} {unit}"
    return f"{value:.1f} TB"


def radius_lines(radius: BlastRadius) -> list[str]:
    """What the command touches, or why that cannot be predicted."""
    lines: list[str] = []
    singles: dict[str, list[Target]] = defaultdict(list)
    for target in radius.targets:
        verb = _verb(target)
        if verb is None:
            continue
        if target.now.is_dir and target.recursive:
            lines.append(f"{verb} {_count(target)} under {_shown(target, radius.cwd)}")
        else:
            singles[verb].append(target)
    for verb, targets in singles.items():
        lines += _single_lines(verb, targets, radius.cwd)
    if not lines and radius.predictable:
        lines.append("touches no file that exists")
    if len(lines) > MAX_LINES:
        hidden = len(lines) - (MAX_LINES - 1)
        lines = [*lines[: MAX_LINES - 1], f"… and {hidden} more"]
    lines += [f"cannot predict: {why}" for why in radius.unknown[:2]]
    return lines


def undo_line(radius: BlastRadius, max_snapshot_bytes: int) -> str:
    """Whether `:undo` will be able to take it back."""
    if not radius.predictable:
        return "not undoable: targets unknown"
    size = radius.bytes
    if size > max_snapshot_bytes:
        more = "" if radius.complete else "more than "
        limit = human_bytes(max_snapshot_bytes)
        return f"not undoable: {more}{human_bytes(size)} (over undo.max_snapshot_bytes, {limit})"
    if not radius.complete:
        return f"undoable with :undo if under {human_bytes(max_snapshot_bytes)} (size unknown)"
    return "undoable with :undo"


def _verb(target: Target) -> str | None:
    if not target.now.exists:
        if target.effect in ("overwrite", "append", "create", "edit"):
            return "creates"
        return None  # deleting or moving what is not there touches nothing
    return _VERBS[target.effect]


def _count(target: Target) -> str:
    files = f"{target.now.files:,} file" + ("" if target.now.files == 1 else "s")
    if not target.now.complete:
        return f"at least {files} (size unknown)"
    return f"{files}, {human_bytes(target.now.bytes)}"


def _single_lines(verb: str, targets: list[Target], cwd: str) -> list[str]:
    if verb == "creates" or len(targets) <= _NAMES_SHOWN:
        lines = []
        for target in targets:
            size = "" if verb == "creates" or target.now.is_dir else _size(target)
            lines.append(f"{verb} {_shown(target, cwd)}{size}")
        if len(lines) > _NAMES_SHOWN:
            names = ", ".join(_shown(t, cwd) for t in targets[:_NAMES_SHOWN])
            return [f"creates {len(targets):,} files: {names}, …"]
        return lines
    total = sum(target.now.bytes for target in targets)
    names = ", ".join(_shown(t, cwd) for t in targets[:_NAMES_SHOWN])
    return [f"{verb} {len(targets):,} files, {human_bytes(total)}: {names}, …"]


def _size(target: Target) -> str:
    return f" ({human_bytes(target.now.bytes)})"


def _shown(target: Target, cwd: str) -> str:
    path = target.path
    relative = os.path.relpath(path, cwd) if path.startswith(cwd.rstrip("/") + "/") else path
    return relative + ("/" if target.now.is_dir else "")
