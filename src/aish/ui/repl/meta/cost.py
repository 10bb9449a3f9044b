"""`:cost` and `:secrets`: what the session spends and what it keeps from cloud models (§11).

`:cost` is one line from the usage ledger; `:cost detail` a table with one row per (model,
category) and the next request's size against the context budget; `:cost limit <usd>` sets the
session's spending stop. `:secrets` lists the placeholders in use — types and counts, never
values.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from aish.session.records import UsageTotals
    from aish.ui.repl.meta.context import ReplContext

COST_USAGE = "usage: :cost, :cost detail or :cost limit <usd>"


@runtime_checkable
class KnowsCost(Protocol):
    """A REPL with a usage ledger and a spending stop."""

    def cost_totals(self, *, by: tuple[str, ...]) -> list[UsageTotals]: ...

    def set_cost_limit(self, dollars: float | None) -> None: ...

    async def tokens_line(self) -> str: ...


async def cost(repl: ReplContext, args: str) -> None:
    from aish.ui.cost_report import cost_detail_table, cost_line

    verb, _, rest = args.strip().partition(" ")
    if not isinstance(repl, KnowsCost):
        repl.say("cost is not available here")
    elif not verb:
        (total,) = repl.cost_totals(by=())
        repl.say(cost_line(total))
    elif verb == "detail" and not rest.strip():
        rows = repl.cost_totals(by=("model", "category"))
        context = f"context: {await repl.tokens_line()}"
        repl.say(cost_detail_table(rows, context).rstrip("\n"))
    elif verb == "limit":
        repl.say(_limit(repl, rest.strip()))
    else:
        repl.say(COST_USAGE)


def _limit(repl: KnowsCost, text: str) -> str:
    if text in ("off", "none"):
        repl.set_cost_limit(None)
        return "no spending stop for this session"
    try:
        dollars = float(text.lstrip("$"))
    except ValueError:
        return COST_USAGE
    if not math.isfinite(dollars) or dollars < 0:
        return "the limit is a number of dollars, 0 or more"
    repl.set_cost_limit(dollars)
    return f"spending stop: ${dollars:g} for this session (calls to models off this machine)"


@runtime_checkable
class KeepsSecrets(Protocol):
    """A REPL whose session keeps secrets from cloud models."""

    def secrets_in_use(self) -> Mapping[str, int]:
        """The session's placeholders in use: a count per type, never a value."""
        ...


async def secrets(repl: ReplContext, args: str) -> None:
    if not isinstance(repl, KeepsSecrets):
        repl.say("secrets are not available here")
        return
    in_use = repl.secrets_in_use()
    if not in_use:
        repl.say('no secrets replaced in this session (secrets = "scrub" presets only)')
        return
    lines = ["secrets kept from cloud models this session (placeholders, never the values):"]
    lines += [f"  AISH_SECRET_{kind}_*  {count}" for kind, count in sorted(in_use.items())]
    repl.say("\n".join(lines))
