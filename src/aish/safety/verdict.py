"""A verdict on one action: how dangerous it is, and the rules that say so.

`safe` is proven read-only; `destructive` means a rule matched that can delete, overwrite,
truncate, kill or irreversibly change something; `unknown` is everything else. The order
matters: a line takes the worst verdict of its parts.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

Level = Literal["safe", "unknown", "destructive"]

_RANK: dict[Level, int] = {"safe": 0, "unknown": 1, "destructive": 2}


@dataclass(frozen=True)
class Verdict:
    """`reasons` name every rule that raised the level (empty for `safe`). `touches`: what
    the action will touch, as the gate predicted it for the prompt (lines; not part of the
    judgement, so not compared)."""

    level: Level
    reasons: tuple[str, ...] = ()
    touches: tuple[str, ...] = field(default=(), compare=False)
    # The command prefix an `[a]lways` answer would allow for the session, as the gate offers
    # it at the confirm prompt ("": none offered). Not part of the judgement either.
    always: str = field(default="", compare=False)


SAFE = Verdict("safe")


def worst(verdicts: Iterable[Verdict]) -> Verdict:
    """The worst level among `verdicts`, with the reasons of every part at that level."""
    level: Level = "safe"
    reasons: list[str] = []
    for verdict in verdicts:
        if _RANK[verdict.level] > _RANK[level]:
            level, reasons = verdict.level, []
        if verdict.level == level:
            reasons.extend(r for r in verdict.reasons if r not in reasons)
    return Verdict(level, tuple(reasons))
