"""How a sandbox's change set looks on the terminal (the end of a sandboxed run, `:norris
review`, `aish goal --sandbox`): one line per path — `+` created, `~` modified, `-` deleted,
`m` mode — with its size or mode change, the paths that changed in the real tree meanwhile,
then the text diffs, each cut to a few dozen lines.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from aish.ui.render.visible_text import visible

if TYPE_CHECKING:
    from aish.run.sandbox import ApplyResult, Change, ChangeSet

__all__ = ["apply_lines", "change_set_pieces", "size_text"]

_MARKS = {"created": "+", "modified": "~", "deleted": "-", "mode": "m"}
_STYLES = {"created": "green", "modified": "yellow", "deleted": "red", "mode": "cyan"}
_DIFF_LINES = 40


def size_text(count: int) -> str:
    size = float(count)
    for unit in ("B", "kB", "MB", "GB"):
        if size < 1000 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1000
    return f"{count} B"


def _line(change: Change) -> str:
    name = change.path + ("/" if change.kind == "dir" else "")
    if change.change == "mode":
        detail = change.mode_text()
    else:
        detail = size_text(change.bytes) if change.kind != "dir" or change.bytes else ""
        if change.mode_text() and change.change == "modified":
            detail = f"{detail}, mode {change.mode_text()}".lstrip(", ")
    return f"  {_MARKS[change.change]} {visible(name)}" + (f"  ({detail})" if detail else "")


def change_set_pieces(
    changes: ChangeSet, *, diffs: bool = True, numbered: bool = False
) -> list[tuple[str, str]]:
    """(text, style) pieces: the summary, one line per change (numbered for picking),
    conflicts, and the text diffs."""
    pieces: list[tuple[str, str]] = [
        (f"sandbox changes in {changes.tree}: {changes.summary()}\n", "bold")
    ]
    conflicts = changes.conflicts()
    for index, change in enumerate(changes.changes, 1):
        line = _line(change)
        if numbered:
            line = f"{index:>3}{line[1:]}"
        if change.path in conflicts:
            line += f"  ! {conflicts[change.path]}"
        pieces.append((line + "\n", "bold red" if change.path in conflicts else ""))
    if not diffs:
        return pieces
    for change in changes.changes:
        text = changes.diff(change)
        if not text:
            continue
        lines = text.splitlines()
        if len(lines) > _DIFF_LINES:
            more = len(lines) - _DIFF_LINES
            lines = [*lines[:_DIFF_LINES], f"… {more} more lines of {change.path}"]
        for line in lines:
            style = "green" if line.startswith("+") else "red" if line.startswith("-") else "dim"
            pieces.append((visible(line) + "\n", style))
    return pieces


def apply_lines(result: ApplyResult) -> list[str]:
    """What an apply did, as status lines."""
    lines = [f"applied {len(result.applied)} change(s) to the real tree"]
    for change, reason in result.refused:
        lines.append(f"not applied: {change.path}: {reason}")
    for change, reason in result.failed:
        lines.append(f"failed: {change.path}: {reason}")
    if result.undo_note:
        lines.append(result.undo_note)
    return lines
