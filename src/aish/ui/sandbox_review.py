"""Reviewing a sandboxed Norris run's change set in the REPL: at the end of the run and on
`:norris review`.

The change set is shown (created, modified, deleted, mode changes, sizes, text diffs, and the
paths that changed in the real tree meanwhile), then one key: apply all, pick files (by their
numbers), discard, or keep it for later. Enter, Ctrl-C or Ctrl-D keep it: a reflex key must
neither apply nor throw away a run's work. A kept sandbox is where the next `:norris` run goes
on (it sees its earlier changes). What an apply overwrote or deleted is backed up first (see
`aish.run.sandbox.apply`); a change refused because the real file changed meanwhile stays
pending.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from aish.ui.render.change_set import apply_lines, change_set_pieces

if TYPE_CHECKING:
    from aish.run.sandbox import ApplyResult, Sandbox
    from aish.run.undo import UndoRecorder

__all__ = ["SandboxReview", "parse_picks"]

REVIEW_QUESTION = (
    "Apply the sandbox's changes? [a]pply all / [p]ick files / [d]iscard / [k]eep for later "
)
PICK_QUESTION = "Apply which? numbers like 1 3 5-7 (Enter: none) "
_KEYS = {"a": "apply", "p": "pick", "d": "discard", "k": "keep"}


class ReviewView(Protocol):
    """What the review needs of the terminal (the REPL's `ChatView`)."""

    def status(self, text: str) -> None: ...

    def show(self, pieces: list[tuple[str, str]]) -> None: ...

    async def ask_key(self, question: str, keys: Mapping[str, str]) -> str | None: ...

    async def ask_line(self, question: str) -> str | None: ...


def parse_picks(text: str, count: int) -> list[int] | str:
    """1-based numbers and ranges ("1 3 5-7", commas allowed) → 0-based indexes; a message
    when a part is not one of them."""
    picks: list[int] = []
    for part in re.split(r"[\s,]+", text.strip()):
        if not part:
            continue
        match = re.fullmatch(r"(\d+)(?:-(\d+))?", part)
        if match is None:
            return f"not a number or range: {part}"
        first = int(match.group(1))
        last = int(match.group(2) or first)
        if not 1 <= first <= last <= count:
            return f"no such change: {part} (1-{count})"
        picks.extend(index - 1 for index in range(first, last + 1) if index - 1 not in picks)
    return picks


class SandboxReview:
    """The REPL's pending sandbox (one at a time) and its review."""

    def __init__(
        self,
        view: ReviewView,
        log: Callable[[str, Mapping[str, Any]], None],
        undo: Callable[[], UndoRecorder | None],
    ) -> None:
        self._view = view
        self._log = log
        # The session's `:undo` history, as it is when an apply happens (config reloads swap it).
        self._undo = undo
        self.pending: Sandbox | None = None

    async def review(self) -> None:
        """Show the pending sandbox's change set and do what the user says with it."""
        sandbox = self.pending
        if sandbox is None:
            self._view.status("no sandbox to review: run :norris <goal> first")
            return
        changes = sandbox.changes()
        if not changes:
            self._view.status("sandbox: no changes")
            self._end()
            return
        self._view.show(change_set_pieces(changes, numbered=True))
        answer = await self._view.ask_key(REVIEW_QUESTION, _KEYS)
        if answer == "apply":
            self._applied(sandbox, None)
        elif answer == "pick":
            await self._pick(sandbox, len(changes.changes))
        elif answer == "discard":
            self._end()
            self._view.status("sandbox discarded: nothing was applied")
            self._log("status", {"text": "sandbox discarded"})
        else:
            self._view.status("sandbox kept: :norris review shows it again")

    async def _pick(self, sandbox: Sandbox, count: int) -> None:
        while True:
            typed = await self._view.ask_line(PICK_QUESTION)
            if not typed or not typed.strip():
                self._view.status("nothing applied; sandbox kept: :norris review shows it again")
                return
            picks = parse_picks(typed, count)
            if isinstance(picks, list):
                break
            self._view.status(picks)
        changes = sandbox.changes()
        self._applied(sandbox, {changes.changes[i].path for i in picks if i < len(changes.changes)})

    def _applied(self, sandbox: Sandbox, chosen: set[str] | None) -> None:
        from aish.run.sandbox import apply_changes

        result = apply_changes(sandbox.changes(), chosen, undo=self._undo())
        for line in apply_lines(result):
            self._view.status(line)
        self._log("status", {"text": "sandbox applied", **_logged(result)})
        left = sandbox.changes()
        if left:
            self._view.status(f"still pending: {left.summary()} (:norris review)")
        else:
            self._end()

    def _end(self) -> None:
        if self.pending is not None:
            self.pending.discard()
            self.pending = None

    def at_exit(self) -> None:
        """aish is ending: a pending sandbox is not applied, and its place is said."""
        if self.pending is not None and self.pending.changes():
            self._view.status(
                f"the sandbox's changes were not applied; they stay in {self.pending.upper}"
            )
        elif self.pending is not None:
            self._end()


def _logged(result: ApplyResult) -> dict[str, Any]:
    return {
        "applied": [c.path for c in result.applied],
        "refused": {c.path: reason for c, reason in result.refused},
        "failed": {c.path: reason for c, reason in result.failed},
        "snapshot": result.snapshot.id if result.snapshot else None,
    }
