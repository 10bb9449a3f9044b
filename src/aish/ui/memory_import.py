"""`aish memory import`: what a file would add, shown before anything is stored (§7).

A memory file is foreign text, and what it adds is told to the model as background at every
start: the user sees each new item (escaped: a file must not rewrite the screen it is reviewed
on), the counts, and which times from the future were clamped, then answers `[y/N]` — or
passes `--yes`, which shows the same listing and adds without asking.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, TextIO

from aish.ui.render.visible_text import visible_line

if TYPE_CHECKING:
    from aish.session.records import ImportPlan, ImportReport

QUESTION = "add {count} to memory? [y/N] "
NEEDS_YES = (
    "aish: memory import asks before it adds anything: pass --yes to import without a terminal"
)


_foreign = visible_line  # an item's text is foreign: shown, one item per line


def _when(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%d %H:%M")


def _items(count: int) -> str:
    return f"{count} item{'s' if count != 1 else ''}"


def listing(plan: ImportPlan) -> list[str]:
    """The new items, one line each, then the refused lines and the counts."""
    lines: list[str] = []
    forgotten = plan.forgotten_ids()
    for item in plan.new:
        when = _when(item.ts) + " UTC"
        if item.id in plan.clamped_from:
            when = f"now (the file said {_when(plan.clamped_from[item.id])})"
        extras = []
        if item.tags:
            extras.append("tags: " + ", ".join(_foreign(tag) for tag in item.tags))
        if item.source is not None:
            extras.append(f"from {_foreign(item.source)}")
        if item.id in forgotten:
            extras.append("forgotten by the file")
        extra = f"  ({'; '.join(extras)})" if extras else ""
        lines.append(f"  + {item.kind:<7}  {when}  {_foreign(item.content)}{extra}")
    for number, reason in plan.refused:
        lines.append(f"  ! line {number}: {_foreign(reason)}")
    lines.append(summary(plan))
    return lines


def summary(plan: ImportPlan) -> str:
    """`3 new, 1 already known, 2 refused` and what happened to times in the future."""
    line = f"{len(plan.new)} new, {len(plan.known)} already known, {len(plan.refused)} refused"
    if plan.clamped:
        times = "time" if plan.clamped == 1 else "times"
        line += f"; {plan.clamped} {times} in the future clamped to now"
    return line


def confirmed(plan: ImportPlan, ask: Callable[[str], str]) -> bool:
    """The user's yes to adding the plan's new items (EOF or Ctrl-C: no)."""
    try:
        answer = ask(QUESTION.format(count=_items(len(plan.new))))
    except (EOFError, KeyboardInterrupt):
        return False
    return answer.strip().lower() in ("y", "yes")


def report_line(report: ImportReport) -> str:
    renumbered = " (new ids: the store already had items)" if report.renumbered else ""
    meanwhile = f", {report.known} added meanwhile by another aish" if report.known else ""
    return (
        f"imported {_items(report.imported)}, {report.forgotten} forgotten{meanwhile}{renumbered}"
    )


def print_listing(plan: ImportPlan, out: TextIO) -> None:
    for line in listing(plan):
        print(line, file=out)
