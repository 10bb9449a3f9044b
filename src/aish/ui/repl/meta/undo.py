"""`:undo`, `:undo list`, `:undo N`: putting back what an approved command changed.

Before an `unknown` or `destructive` command the user (or Norris) approved, aish snapshotted
the paths the gate predicted it would touch (`aish.run.undo`). `:undo` restores the newest
snapshot not restored yet, `:undo N` snapshot N. When the files changed after the command
finished, restoring would throw those changes away: `:undo` lists them and asks first.
"""

from __future__ import annotations

import asyncio
import os
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from aish.ui.render.visible_text import visible

if TYPE_CHECKING:
    from aish.run.undo import Snapshot, SnapshotStore
    from aish.ui.repl.meta.context import ReplContext

UNDO_USAGE = "usage: :undo, :undo list, or :undo <number>"
NOTHING = "nothing to undo"
FORCE_QUESTION = "restore anyway, losing those changes? [y/N] "
_YES_NO = {"y": "yes", "n": "no"}
# Changes listed before the question; the rest is a count.
_CHANGES_SHOWN = 10
_LISTED = 20


@runtime_checkable
class Undoes(Protocol):
    """A REPL with a snapshot store and a yes/no question."""

    def undo_store(self) -> SnapshotStore | None: ...

    async def ask_key(self, question: str, keys: dict[str, str]) -> str | None: ...


async def undo(repl: ReplContext, args: str) -> None:
    if not isinstance(repl, Undoes):
        repl.say("undo is not available here")
        return
    store = repl.undo_store()
    if store is None:
        repl.say("undo is off (undo.enabled = false)")
        return
    word = args.strip()
    if word == "list":
        lines = list_lines(store.list()[:_LISTED], repl.shell_cwd())
        repl.say("\n".join(lines) if lines else "no snapshots")
        return
    if word and not word.isdigit():
        repl.say(UNDO_USAGE)
        return
    snapshot = store.get(int(word)) if word else store.last()
    if snapshot is None:
        repl.say(f"no snapshot {word}" if word else NOTHING)
        return
    if snapshot.restored_at is not None:
        repl.say(f"snapshot {snapshot.id} was already restored")
        return
    await _restore(repl, repl, store, snapshot)


async def _restore(
    repl: ReplContext, asker: Undoes, store: SnapshotStore, snapshot: Snapshot
) -> None:
    from aish.run.undo import ChangedSince

    say = repl.say
    force = False
    while True:
        try:
            await asyncio.to_thread(store.restore, snapshot.id, force=force)
        except ChangedSince as changed:
            say(_changes_text(changed.changes, snapshot))
            if await asker.ask_key(FORCE_QUESTION, _YES_NO) != "yes":
                say("not restored")
                return
            force = True
            continue
        except OSError as error:
            say(f"aish: undo failed: {visible(str(error))}")
            return
        break
    say(f"undone: {visible(_one_line(snapshot.label))} (snapshot {snapshot.id})")


def list_lines(snapshots: list[Snapshot], cwd: str, now: float | None = None) -> list[str]:
    """`  3  5m ago  48.8 KB  rm -r build` per snapshot, newest first; restored ones say so."""
    from aish.run.undo import human_bytes
    from aish.ui.repl.meta.memory import age

    lines = []
    for snapshot in snapshots:
        state = "  (restored)" if snapshot.restored_at is not None else ""
        where = "" if snapshot.cwd in ("", cwd) else f"  in {snapshot.cwd}"
        lines.append(
            f"{snapshot.id:>4}  {age(snapshot.taken_at, now)} ago  {human_bytes(snapshot.bytes)}"
            f"  {_one_line(snapshot.label)}{where}{state}"
        )
    return [visible(line) for line in lines]


def _changes_text(changes: list[tuple[str, str]], snapshot: Snapshot) -> str:
    head = f"changed since `{_one_line(snapshot.label)}` finished:"
    lines = [head]
    for path, change in changes[:_CHANGES_SHOWN]:
        shown = os.path.relpath(path, snapshot.cwd) if snapshot.cwd else path
        lines.append(f"  {change}: {shown}")
    if len(changes) > _CHANGES_SHOWN:
        lines.append(f"  … and {len(changes) - _CHANGES_SHOWN} more")
    return visible("\n".join(lines))


def _one_line(text: str) -> str:
    return " ".join(text.split("\n")).strip()
