# ruff: noqa: E501 (the example file's lines are quoted verbatim)
"""The phase-4 JSONL memory file: parsing, export order, exact round trips and renumbering."""

from __future__ import annotations

import json
import random
from collections.abc import Iterable
from pathlib import Path

import pytest

from aish.store import MemoryItem, Store
from aish.store.memory_file import (
    CLOCK_SKEW_S,
    ImportPlan,
    ImportReport,
    format_ts,
    parse_lines,
    parse_ts,
)

# PHASE4.md §4, as the original design wrote it (tombstones there carry an id of their own).
PHASE4_EXAMPLE = """\
{"id":1,"ts":"2026-05-13T19:01:01Z","kind":"fact","content":"User prefers terse responses; no end-of-turn summaries."}
{"id":2,"ts":"2026-05-13T19:01:35Z","kind":"pref","content":"Default to :model deep for code reasoning tasks."}
{"id":3,"ts":"2026-05-13T19:02:00Z","kind":"context","content":"Current project: aish (LuaJIT REPL with MCP tools).","tags":["aish","luajit"]}
{"id":4,"ts":"2026-05-13T20:00:00Z","kind":"forget","target":2}
"""


def _store(tmp_path: Path, name: str = "aish.sqlite3") -> Store:
    return Store.open(tmp_path / name)


def _import(store: Store, lines: Iterable[bytes | str]) -> tuple[ImportPlan, ImportReport]:
    plan = store.plan_memory_import(lines)
    return plan, store.import_memory(plan)


def test_the_phase4_example_imports(tmp_path: Path) -> None:
    with _store(tmp_path) as store:
        parsed, report = _import(store, PHASE4_EXAMPLE.splitlines())
        assert parsed.refused == []
        assert (report.imported, report.forgotten, report.renumbered) == (3, 1, False)
        active = store.active_memory()
        assert [(i.id, i.kind, i.tags) for i in active] == [
            (1, "fact", ()),
            (3, "context", ("aish", "luajit")),
        ]
        assert active[0].ts == parse_ts("2026-05-13T19:01:01Z")
        assert list(store.export_memory()) == [
            *PHASE4_EXAMPLE.splitlines()[:3],
            '{"kind":"forget","target":2,"ts":"2026-05-13T20:00:00Z"}',
        ]
        # Ids go on after the highest imported one.
        assert store.add_memory("fact", "next").id == 4


def test_export_then_import_into_an_empty_store_is_exact(tmp_path: Path) -> None:
    with _store(tmp_path, "a.sqlite3") as source:
        source.add_memory("fact", 'données ✓ "quoted"\nsecond line', tags=["t"])
        gone = source.add_memory("pref", "gone", source="session 3")
        source.add_memory("context", "ctx", source="session 4", tags=["a", "b"])
        assert source.forget_memory(gone.id) == "forgotten"
        lines = list(source.export_memory())
        active = source.active_memory()
    with _store(tmp_path, "b.sqlite3") as target:
        parsed, report = _import(target, [line.encode() for line in lines])
        assert parsed.refused == [] and not report.renumbered
        assert target.active_memory() == active
        assert list(target.export_memory()) == lines


def test_times_round_trip_to_the_microsecond() -> None:
    rng = random.Random(7)
    for _ in range(20000):
        ts = round(rng.uniform(0, 4e9), 6)
        assert parse_ts(format_ts(ts)) == ts
    assert format_ts(1.5) == "1970-01-01T00:00:01.500000Z"
    assert parse_ts(12) == 12.0
    assert parse_ts("2026-05-13T19:01:01") == parse_ts("2026-05-13T21:01:01+02:00")


def test_import_into_a_store_with_items_renumbers_consistently(tmp_path: Path) -> None:
    with _store(tmp_path) as store:
        mine = store.add_memory("fact", "mine, id 1")
        _, report = _import(store, PHASE4_EXAMPLE.splitlines())
        assert report.renumbered and report.forgotten == 1
        active = store.active_memory()
        # The file's item 2 is forgotten (now under another id), the store's id 2 is not touched.
        assert [i.content for i in active] == [
            "User prefers terse responses; no end-of-turn summaries.",
            "Current project: aish (LuaJIT REPL with MCP tools).",
            "mine, id 1",
        ]
        assert mine in active
        ids = [i.id for i in active]
        assert len(set(ids)) == 3 and min(ids) == mine.id
        forgotten_pref = [line for line in store.export_memory() if '"forget"' in line]
        assert len(forgotten_pref) == 1
        assert '"target":1' not in forgotten_pref[0]


def test_a_bad_line_is_reported_by_number_and_the_rest_imported(tmp_path: Path) -> None:
    lines = [
        b'{"meta":{"version":1}}',
        b'{"id":1,"ts":"2026-05-13T19:01:01Z","kind":"fact","content":"one"}',
        b"",
        b'{"id":2,"ts":"2026-05-13T19:01:02Z","kind":"fact","content":"tw',
        b'{"id":3,"ts":"yesterday","kind":"fact","content":"three"}',
        b'{"id":4,"ts":1,"kind":"gossip","content":"four"}',
        b'{"id":1,"ts":1,"kind":"fact","content":"again"}',
        b"\xff\xfe",
        b'{"id":5,"ts":1,"kind":"fact","content":""}',
        b'{"kind":"forget","target":"1","ts":1}',
        b"[1, 2]",
        b'{"id":6,"ts":2,"kind":"pref","content":"six","tags":["x"],"source":"session 1"}',
        b'{"kind":"forget","target":99,"ts":3}',
    ]
    with _store(tmp_path) as store:
        parsed, report = _import(store, lines)
        assert [number for number, _ in parsed.refused] == [4, 5, 6, 7, 8, 9, 10, 11]
        reasons = dict(parsed.refused)
        assert reasons[4].startswith("not JSON")
        assert "yesterday" in reasons[5]
        assert "gossip" in reasons[6]
        assert reasons[7] == "id 1 already used on line 2"
        assert reasons[8] == "not UTF-8 text"
        assert (report.imported, report.forgotten) == (2, 0)
        assert store.active_memory() == [
            MemoryItem(6, 2.0, "pref", "six", ("x",), "session 1"),
            MemoryItem(1, parse_ts("2026-05-13T19:01:01Z"), "fact", "one"),
        ]


@pytest.mark.parametrize(
    "line",
    [
        '{"id":0,"ts":1,"kind":"fact","content":"x"}',
        '{"id":true,"ts":1,"kind":"fact","content":"x"}',
        '{"id":1,"kind":"fact","content":"x"}',
        '{"id":1,"ts":NaN,"kind":"fact","content":"x"}',
        '{"id":1,"ts":1,"kind":"fact","content":"x","tags":"x"}',
        '{"id":1,"ts":1,"kind":"fact","content":"\\udc80"}',
        '{"kind":"forget","target":1}',
    ],
)
def test_refused_lines(line: str) -> None:
    parsed = parse_lines([line])
    assert len(parsed.errors) == 1 and not parsed.items and not parsed.tombstones


def test_a_plan_says_what_is_new_and_what_the_store_already_holds(tmp_path: Path) -> None:
    with _store(tmp_path) as store:
        store.add_memory("fact", "User prefers terse responses; no end-of-turn summaries.")
        forgotten = store.add_memory(
            "context", "Current project: aish (LuaJIT REPL with MCP tools)."
        )
        store.forget_memory(forgotten.id)
        lines = [
            *PHASE4_EXAMPLE.splitlines(),
            '{"id":9,"ts":5,"kind":"pref","content":"Default to :model deep for code reasoning tasks."}',
        ]
        plan = store.plan_memory_import(lines)
        # Held (even forgotten), or said already by an earlier line: known, not added again.
        assert [i.id for i in plan.new] == [2]
        assert [i.id for i in plan.known] == [1, 3, 9]
        assert [t.target for t in plan.tombstones] == [2]
        assert plan.refused == [] and plan.clamped == 0
        before = store.memory_version()
        assert store.memory_version() == before  # planning writes nothing
        report = store.import_memory(plan)
        assert (report.imported, report.forgotten, report.known) == (1, 1, 0)
        again = store.plan_memory_import(lines)
        assert again.new == [] and len(again.known) == 4


def test_times_in_the_future_are_clamped_to_now(tmp_path: Path) -> None:
    now = 1_800_000_000.0
    lines = [
        json.dumps({"id": 1, "ts": "2099-01-01T00:00:00Z", "kind": "fact", "content": "from 2099"}),
        json.dumps({"id": 2, "ts": now + CLOCK_SKEW_S - 1, "kind": "fact", "content": "skewed"}),
        json.dumps({"id": 3, "ts": now - 60, "kind": "fact", "content": "past"}),
        json.dumps({"kind": "forget", "target": 3, "ts": "2099-01-02T00:00:00Z"}),
    ]
    with _store(tmp_path) as store:
        plan = store.plan_memory_import(lines, now=now)
        assert [(i.id, i.ts) for i in plan.new] == [
            (1, now),
            (2, now + CLOCK_SKEW_S - 1),
            (3, now - 60),
        ]
        assert plan.clamped_from == {1: parse_ts("2099-01-01T00:00:00Z")}
        assert plan.clamped_forgets == 1 and plan.clamped == 2
        assert [t.ts for t in plan.tombstones] == [now]
        store.import_memory(plan)
        assert max(i.ts for i in store.active_memory()) <= now + CLOCK_SKEW_S
        assert "2099-" not in "\n".join(store.export_memory())


def test_an_item_added_meanwhile_is_not_added_twice(tmp_path: Path) -> None:
    with _store(tmp_path) as store:
        store.add_memory("fact", "mine")
        plan = store.plan_memory_import(PHASE4_EXAMPLE.splitlines())
        # Another aish imports the same file between the plan and the write.
        with _store(tmp_path) as other:
            other.import_memory(other.plan_memory_import(PHASE4_EXAMPLE.splitlines()))
        report = store.import_memory(plan)
        assert (report.imported, report.known, report.forgotten) == (0, 3, 0)
        assert len(store.active_memory()) == 3
