"""What model calls cost, shown: `aish cost`, `:cost` and `:cost detail`.

Everything here is pure apart from `print_report`: the REPL takes the strings of `cost_line`
and `cost_detail_table`, `aish cost` prints `print_report`. An unknown cost is never shown as $0:
dollars read "$0.0123 + 2 unknown". `rich` is imported only when a table is drawn.
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from datetime import datetime
from typing import IO, TYPE_CHECKING, Final

if TYPE_CHECKING:
    from rich.table import Table

    from aish.session.records import UsageTotals

SINCE_HELP: Final = "a span back from now (30m, 24h, 7d, 2w) or an ISO date (2026-05-01)"

_SPAN = re.compile(r"(\d+(?:\.\d+)?)([mhdw])")
_SECONDS: Final = {"m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
# Column titles of the group keys `usage_totals` knows.
_KEY_TITLES: Final = {"model": "model", "category": "category", "preset": "preset", "day": "day"}


def parse_since(text: str, now: float | None = None) -> float:
    """The Unix time `--since` means; ValueError (one line) for anything else.

    `30m`, `24h`, `7d`, `2w` count back from `now`; an ISO date or date-time without a zone is
    local time (`2026-05-01` is that day's local midnight).
    """
    spec = text.strip().lower()
    span = _SPAN.fullmatch(spec)
    if span:
        current = time.time() if now is None else now
        return current - float(span[1]) * _SECONDS[span[2]]
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise ValueError(f"bad --since value {text!r}: use {SINCE_HELP}") from None
    return moment.timestamp()


def dollars(totals: UsageTotals) -> str:
    """`$0.0123`, `$0.0123 + 2 unknown`, `2 unknown` when no call's cost is known, and
    `$0 (local)` when every call went to this machine."""
    if totals.calls and totals.local_calls == totals.calls:
        return "$0 (local)"
    if totals.unknown_calls == 0:
        return money(totals.cost_usd)
    if totals.unknown_calls == totals.calls:
        return f"{totals.unknown_calls} unknown"
    return f"{money(totals.cost_usd)} + {totals.unknown_calls} unknown"


def money(amount: float) -> str:
    """Dollars with the precision small per-call costs need."""
    if amount == 0:
        return "$0.00"
    if amount < 0.0001:
        return "<$0.0001"
    if amount < 1:
        return f"${amount:.4f}"
    return f"${amount:,.2f}"


def cost_line(totals: UsageTotals) -> str:
    """`:cost`: the session's dollars, calls and tokens in one line."""
    if totals.calls == 0:
        return "cost: no model calls in this session yet"
    calls = "call" if totals.calls == 1 else "calls"
    cached = f" ({totals.cached_tokens:,} cached)" if totals.cached_tokens else ""
    estimated = f", {totals.estimated_calls} estimated" if totals.estimated_calls else ""
    unknown = f" · cost unknown for {totals.unknown_calls} of them" if totals.unknown_calls else ""
    return (
        f"cost: {money(totals.cost_usd)} this session · {totals.calls} {calls}{estimated} · "
        f"{totals.prompt_tokens:,} tokens in{cached}, {totals.completion_tokens:,} out{unknown}"
    )


def cost_detail_table(rows: Sequence[UsageTotals], context_line: str, *, width: int = 100) -> str:
    """`:cost detail`: one row per group (model, category), a total, then `context_line`.

    Plain text (no colour codes), at most `width` columns, ending with a newline.
    """
    body = render_text(usage_table(rows), width) if rows else "no model calls in this session yet\n"
    return body + (context_line.rstrip("\n") + "\n" if context_line else "")


def usage_table(rows: Sequence[UsageTotals], total: UsageTotals | None = None) -> Table:
    """A `rich` table of `rows` (keyed by their `by`) with a total row at the end.

    `total` None: summed from `rows`.
    """
    from rich import box
    from rich.table import Table

    by = rows[0].by if rows else ()
    table = Table(show_edge=False, pad_edge=False, box=box.SIMPLE_HEAD)
    for name in by:
        table.add_column(_KEY_TITLES.get(name, name), overflow="fold")
    for title in ("calls", "tokens in", "out", "cached"):
        table.add_column(title, justify="right", no_wrap=True)
    table.add_column("dollars", justify="right", no_wrap=True)
    for row in rows:
        table.add_row(*(value or "-" for value in row.key), *_figures(row))
    if total is None:
        total = _sum(rows)
    table.add_section()
    label = ("total", *([""] * (len(by) - 1))) if by else ()
    table.add_row(*label, *_figures(total), style="bold")
    return table


def print_report(
    rows: Sequence[UsageTotals], total: UsageTotals, heading: str, file: IO[str]
) -> None:
    """`aish cost`: the heading, then the table (or a line saying there is nothing)."""
    from rich.console import Console

    console = Console(file=file, highlight=False)
    console.print(heading, markup=False)
    if total.calls == 0:
        console.print("no model calls recorded", markup=False)
        return
    console.print(usage_table(rows, total))


def report_heading(by: str, since: str | None, since_ts: float | None) -> str:
    """The line above `aish cost`'s table."""
    if since is None or since_ts is None:
        return f"Model calls, all recorded, by {by}"
    moment = datetime.fromtimestamp(since_ts).strftime("%Y-%m-%d %H:%M")
    return f"Model calls since {moment} ({since}), by {by}"


def render_text(table: Table, width: int) -> str:
    """A renderable as plain text `width` columns wide."""
    from io import StringIO

    from rich.console import Console

    out = StringIO()
    console = Console(file=out, width=width, color_system=None, highlight=False)
    console.print(table)
    return out.getvalue()


def _figures(totals: UsageTotals) -> tuple[str, ...]:
    return (
        f"{totals.calls:,}",
        f"{totals.prompt_tokens:,}",
        f"{totals.completion_tokens:,}",
        f"{totals.cached_tokens:,}",
        dollars(totals),
    )


def _sum(rows: Sequence[UsageTotals]) -> UsageTotals:
    from aish.session.records import UsageTotals

    return UsageTotals(
        by=(),
        key=(),
        calls=sum(row.calls for row in rows),
        prompt_tokens=sum(row.prompt_tokens for row in rows),
        completion_tokens=sum(row.completion_tokens for row in rows),
        cached_tokens=sum(row.cached_tokens for row in rows),
        cost_usd=sum(row.cost_usd for row in rows),
        unknown_calls=sum(row.unknown_calls for row in rows),
        estimated_calls=sum(row.estimated_calls for row in rows),
        local_calls=sum(row.local_calls for row in rows),
    )
