"""The usage ledger: one row per model call, and its totals.

A row says which call it was (session, time, preset, model, category), what it used (prompt,
completion and cached tokens, and whether those were aish's own estimate) and what it cost:
`cost_usd` in dollars with `cost_source` saying where the figure came from, or NULL with source
`unknown` when nothing could price it. An unknown cost is never summed as $0: totals carry the
count of such calls beside the dollars of the known ones.

Rows are only inserted, each in its own short transaction, so several aish processes can write
at once. Rows are not priced here; `pricing`, beside this module, prices a call before its row
is written.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from aish.store.database import Database
from aish.store.errors import StoreError

# Where a cost came from: kept in step with `pricing.COST_SOURCES` (a test checks), not imported
# from it: pricing names `llm` types, and opening the store must load nothing but the store.
COST_SOURCES: Final = ("provider", "config", "table", "local", "estimated", "unknown")

# What totals can be grouped by, and the SQL that computes each key. `day` is the local calendar
# day of the call, as the user would name it.
GROUP_KEYS: Final[dict[str, str]] = {
    "model": "model",
    "category": "category",
    "preset": "preset",
    "day": "date(ts, 'unixepoch', 'localtime')",
    "session": "COALESCE(CAST(session_id AS TEXT), '')",
    "source": "cost_source",
}


@dataclass(frozen=True, kw_only=True)
class UsageRow:
    """One model call as the ledger records it. `ts` None: the time of writing."""

    category: str
    preset: str = ""
    model: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    cost_usd: float | None = None
    cost_source: str = "unknown"
    estimated: bool = False
    ts: float | None = None


@dataclass(frozen=True)
class UsageTotals:
    """The calls of one group: `key` holds the group's values, one per name in `by`.

    `cost_usd` sums the known costs only; `unknown_calls` says how many calls had none, so a
    total is shown as "$x + n unknown" and never as a smaller, wrong figure.
    """

    by: tuple[str, ...]
    key: tuple[str, ...]
    calls: int
    prompt_tokens: int
    completion_tokens: int
    cached_tokens: int
    cost_usd: float
    unknown_calls: int
    estimated_calls: int
    # Calls to a loopback endpoint: free, and shown as such rather than as a bare $0.
    local_calls: int = 0

    @property
    def group(self) -> dict[str, str]:
        """The key by name: `{"model": "gpt-4o", "category": "chat"}`."""
        return dict(zip(self.by, self.key, strict=True))

    @property
    def has_unknown(self) -> bool:
        return self.unknown_calls > 0


def check_row(row: UsageRow) -> None:
    """ValueError (one line) for a row the ledger would not take."""
    if not isinstance(row.category, str) or not row.category.strip():
        raise ValueError("a usage row needs a category")
    for name in ("prompt_tokens", "completion_tokens", "cached_tokens"):
        value = getattr(row, name)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"{name} must be a whole number ≥ 0, not {value!r}")
    if row.cost_source not in COST_SOURCES:
        raise ValueError(
            f"unknown cost source {row.cost_source!r} (one of {', '.join(COST_SOURCES)})"
        )
    if row.cost_usd is None:
        if row.cost_source != "unknown":
            raise ValueError(f"no cost, but the cost source is {row.cost_source!r}")
    else:
        if row.cost_source == "unknown":
            raise ValueError("a cost with the cost source 'unknown'")
        if not math.isfinite(row.cost_usd) or row.cost_usd < 0:
            raise ValueError(f"a cost must be a finite number ≥ 0, not {row.cost_usd!r}")


def record_usage(db: Database, session_id: int | None, row: UsageRow) -> int:
    """Write one call's row in one committed transaction and return its id."""
    check_row(row)
    with db.write() as connection:
        if session_id is not None:
            known = connection.execute(
                "SELECT 1 FROM sessions WHERE id = ?", (session_id,)
            ).fetchone()
            if known is None:
                raise StoreError(f"no session {session_id} in the store {db.path}")
        cursor = connection.execute(
            "INSERT INTO usage (session_id, ts, preset, model, category, prompt_tokens, "
            "completion_tokens, cached_tokens, cost_usd, cost_source, estimated) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                session_id,
                time.time() if row.ts is None else float(row.ts),
                row.preset,
                row.model,
                row.category,
                row.prompt_tokens,
                row.completion_tokens,
                row.cached_tokens,
                None if row.cost_usd is None else float(row.cost_usd),
                row.cost_source,
                int(bool(row.estimated)),
            ),
        )
        row_id = cursor.lastrowid
    assert row_id is not None
    return row_id


def usage_totals(
    db: Database,
    *,
    session_id: int | None = None,
    since_ts: float | None = None,
    by: Sequence[str] = ("model", "category"),
) -> list[UsageTotals]:
    """Totals per group of `by` (names from `GROUP_KEYS`), ordered by key.

    `by=()` gives exactly one row, the grand total (zeros when nothing matches). `session_id`
    None: every session, and calls outside one; `since_ts`: calls at or after that time.
    """
    names = tuple(by)
    unknown = [name for name in names if name not in GROUP_KEYS]
    if unknown:
        raise ValueError(f"cannot group usage by {unknown[0]!r} (one of {', '.join(GROUP_KEYS)})")
    where: list[str] = []
    params: list[object] = []
    if session_id is not None:
        where.append("session_id = ?")
        params.append(session_id)
    if since_ts is not None:
        where.append("ts >= ?")
        params.append(float(since_ts))
    keys = "".join(f"{GROUP_KEYS[name]}, " for name in names)
    sql = (
        f"SELECT {keys}COUNT(*), TOTAL(prompt_tokens), TOTAL(completion_tokens), "
        "TOTAL(cached_tokens), TOTAL(cost_usd), TOTAL(cost_usd IS NULL), TOTAL(estimated), "
        "TOTAL(cost_source = 'local') "
        "FROM usage"
    )
    if where:
        sql += " WHERE " + " AND ".join(where)
    if names:
        positions = ", ".join(str(i) for i in range(1, len(names) + 1))
        sql += f" GROUP BY {positions} ORDER BY {positions}"
    with db.read() as connection:
        rows = connection.execute(sql, params).fetchall()
    width = len(names)
    return [
        UsageTotals(
            by=names,
            key=tuple("" if value is None else str(value) for value in row[:width]),
            calls=int(row[width]),
            prompt_tokens=int(row[width + 1]),
            completion_tokens=int(row[width + 2]),
            cached_tokens=int(row[width + 3]),
            cost_usd=float(row[width + 4]),
            unknown_calls=int(row[width + 5]),
            estimated_calls=int(row[width + 6]),
            local_calls=int(row[width + 7]),
        )
        for row in rows
    ]


def session_cost(db: Database, session_id: int) -> float:
    """The dollars of a session's calls whose cost is known (0.0 for none)."""
    with db.read() as connection:
        row = connection.execute(
            "SELECT TOTAL(cost_usd) FROM usage WHERE session_id = ?", (session_id,)
        ).fetchone()
    return float(row[0])
