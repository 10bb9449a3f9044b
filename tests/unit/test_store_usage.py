"""The usage ledger in the store: rows, totals by group and time, on real SQLite files."""

from __future__ import annotations

import sqlite3
from datetime import datetime
from pathlib import Path

import pytest

from aish.store import Store, StoreError, UsageRow, UsageTotals

DAY = 86400.0
# Noon (local time) on two days a week apart, so grouping by day cannot straddle midnight.
MONDAY = datetime(2026, 5, 11, 12, 0).timestamp()
NEXT_MONDAY = MONDAY + 7 * DAY


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "aish.sqlite3"


def _row(**fields: object) -> UsageRow:
    base: dict[str, object] = {
        "category": "chat",
        "preset": "deep",
        "model": "gpt-4o",
        "prompt_tokens": 1000,
        "completion_tokens": 100,
        "cached_tokens": 200,
        "cost_usd": 0.01,
        "cost_source": "table",
        "ts": MONDAY,
    }
    base.update(fields)
    return UsageRow(**base)  # type: ignore[arg-type]


def _fill(store: Store) -> tuple[int, int]:
    """Two sessions and one call outside any: a scripted ledger with known sums."""
    first = store.start_session(name="first").id
    second = store.start_session(name="second").id
    store.record_usage(first, _row())
    store.record_usage(first, _row(cost_usd=0.02, cost_source="provider"))
    store.record_usage(first, _row(category="safety", model="gpt-4o-mini", cost_usd=0.001))
    store.record_usage(
        first, _row(category="safety", model="gpt-4o-mini", cost_usd=None, cost_source="unknown")
    )
    store.record_usage(
        second,
        _row(
            category="norris",
            model="llama3",
            preset="local",
            cost_usd=0.0,
            cost_source="local",
            estimated=True,
            ts=NEXT_MONDAY,
        ),
    )
    store.record_usage(None, _row(category="chat", cost_usd=0.5, ts=NEXT_MONDAY))
    return first, second


def test_rows_survive_reopening_and_totals_match_the_script(path: Path) -> None:
    with Store.open(path) as store:
        first, _second = _fill(store)
    with Store.open(path) as store:
        rows = store.usage_totals(session_id=first)
        assert [row.key for row in rows] == [("gpt-4o", "chat"), ("gpt-4o-mini", "safety")]
        chat, safety = rows
        assert chat == UsageTotals(
            by=("model", "category"),
            key=("gpt-4o", "chat"),
            calls=2,
            prompt_tokens=2000,
            completion_tokens=200,
            cached_tokens=400,
            cost_usd=pytest.approx(0.03),  # type: ignore[arg-type]
            unknown_calls=0,
            estimated_calls=0,
        )
        assert (safety.calls, safety.unknown_calls, safety.has_unknown) == (2, 1, True)
        assert safety.cost_usd == pytest.approx(0.001)
        assert safety.group == {"model": "gpt-4o-mini", "category": "safety"}
        assert store.session_cost(first) == pytest.approx(0.031)


def test_grand_total_and_filters(path: Path) -> None:
    with Store.open(path) as store:
        first, second = _fill(store)
        (everything,) = store.usage_totals(by=())
        assert (everything.by, everything.key) == ((), ())
        assert everything.calls == 6
        assert everything.prompt_tokens == 6000
        assert everything.cost_usd == pytest.approx(0.531)
        assert (everything.unknown_calls, everything.estimated_calls) == (1, 1)
        assert everything.local_calls == 1
        (recent,) = store.usage_totals(since_ts=NEXT_MONDAY - DAY, by=())
        assert recent.calls == 2
        assert recent.cost_usd == pytest.approx(0.5)
        (theirs,) = store.usage_totals(session_id=second, by=())
        assert (theirs.calls, theirs.cost_usd, theirs.local_calls) == (1, 0.0, 1)
        assert store.session_cost(second) == 0.0
        # Nothing matches: one row of zeros for the total, no rows for groups.
        (none,) = store.usage_totals(since_ts=NEXT_MONDAY + DAY, by=())
        assert (none.calls, none.cost_usd, none.unknown_calls) == (0, 0.0, 0)
        assert store.usage_totals(since_ts=NEXT_MONDAY + DAY) == []
        assert store.session_cost(first + second + 10) == 0.0


def test_grouping_by_day_category_preset_and_source(path: Path) -> None:
    with Store.open(path) as store:
        _fill(store)
        days = store.usage_totals(by=("day",))
        assert [(row.key, row.calls) for row in days] == [
            ((datetime.fromtimestamp(MONDAY).date().isoformat(),), 4),
            ((datetime.fromtimestamp(NEXT_MONDAY).date().isoformat(),), 2),
        ]
        categories = {row.key[0]: row.calls for row in store.usage_totals(by=("category",))}
        assert categories == {"chat": 3, "safety": 2, "norris": 1}
        presets = {row.key[0]: row.calls for row in store.usage_totals(by=("preset",))}
        assert presets == {"deep": 5, "local": 1}
        sources = {row.key[0]: row.calls for row in store.usage_totals(by=("source",))}
        assert sources == {"table": 3, "provider": 1, "unknown": 1, "local": 1}
        sessions = {row.key[0]: row.calls for row in store.usage_totals(by=("session",))}
        assert sessions[""] == 1  # the call outside any session
        with pytest.raises(ValueError, match="cannot group usage by 'colour'"):
            store.usage_totals(by=("colour",))


def test_record_returns_increasing_ids_and_takes_now_by_default(path: Path) -> None:
    with Store.open(path) as store:
        session = store.start_session().id
        before = datetime.now().timestamp()
        ids = [store.record_usage(session, _row(ts=None)) for _ in range(3)]
        assert ids == sorted(ids) and len(set(ids)) == 3
        (recent,) = store.usage_totals(session_id=session, since_ts=before - 1, by=())
        assert recent.calls == 3


@pytest.mark.parametrize(
    "fields",
    [
        {"category": ""},
        {"category": "  "},
        {"prompt_tokens": -1},
        {"completion_tokens": 1.5},
        {"cached_tokens": True},
        {"cost_source": "guess"},
        {"cost_usd": None, "cost_source": "table"},
        {"cost_usd": 0.1, "cost_source": "unknown"},
        {"cost_usd": -0.1},
        {"cost_usd": float("nan")},
        {"cost_usd": float("inf")},
    ],
)
def test_refused_rows(path: Path, fields: dict[str, object]) -> None:
    with Store.open(path) as store:
        session = store.start_session().id
        with pytest.raises(ValueError):
            store.record_usage(session, _row(**fields))
        assert store.usage_totals(by=())[0].calls == 0


def test_an_unknown_session_is_a_store_error(path: Path) -> None:
    with Store.open(path) as store:
        with pytest.raises(StoreError, match="no session 42"):
            store.record_usage(42, _row())
        assert store.usage_totals(by=())[0].calls == 0


def test_the_file_itself_refuses_an_unknown_cost_read_as_zero(path: Path) -> None:
    with Store.open(path) as store:
        store.record_usage(None, _row())
    with sqlite3.connect(path) as connection:
        with pytest.raises(sqlite3.IntegrityError):
            connection.execute(
                "INSERT INTO usage (ts, category, cost_usd, cost_source) VALUES (1, 'chat', 0, "
                "'unknown')"
            )
        assert connection.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_a_store_from_before_the_ledger_is_upgraded(path: Path) -> None:
    from aish.store.database import Database
    from aish.store.schema import MIGRATIONS

    db = Database.open(path, MIGRATIONS[:2])
    with db.write() as connection:
        connection.execute(
            "INSERT INTO sessions (name, started_at, last_at, activity) VALUES ('old', 1, 1, 1)"
        )
    db.close()
    with Store.open(path) as store:
        assert store.db.schema_version == len(MIGRATIONS)
        old = store.find_session("old")
        assert old is not None
        assert store.session_cost(old.id) == 0.0
        store.record_usage(old.id, _row())
        assert store.session_cost(old.id) == pytest.approx(0.01)
