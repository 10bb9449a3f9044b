"""Memory in the store: add, forget, clear, prune and the version, on real SQLite files."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from aish.store import MemoryItem, Store


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "aish.sqlite3"


def test_items_and_tombstones_survive_reopening(path: Path) -> None:
    with Store.open(path) as store:
        first = store.add_memory("fact", "User prefers terse responses.")
        second = store.add_memory("pref", "Use :model deep for code.", source="session 12")
        third = store.add_memory("context", "Project: aish.", tags=["aish", "python"])
        assert store.forget_memory(second.id) == "forgotten"
    with Store.open(path) as store:
        assert store.active_memory() == [first, third]
        assert third == MemoryItem(
            third.id, third.ts, "context", "Project: aish.", ("aish", "python")
        )
        assert [first.id, second.id, third.id] == sorted({first.id, second.id, third.id})
        # History is kept: the forgotten item is still in the file.
        count = store.db._live().execute("SELECT COUNT(*) FROM memory").fetchone()[0]
        assert count == 3


def test_forget_outcomes(path: Path) -> None:
    with Store.open(path) as store:
        item = store.add_memory("fact", "x")
        assert store.forget_memory(item.id + 100) == "unknown"
        assert store.forget_memory(item.id) == "forgotten"
        assert store.forget_memory(item.id) == "already"
        assert store.active_memory() == []


@pytest.mark.parametrize(
    ("kind", "content", "tags"),
    [
        ("forget", "x", ()),
        ("facts", "x", ()),
        ("fact", "", ()),
        ("fact", "  \n", ()),
        ("fact", "x", "tag"),
        ("fact", "bad \udc80", ()),
    ],
)
def test_refused_items(path: Path, kind: str, content: str, tags: tuple[str, ...]) -> None:
    with Store.open(path) as store:
        with pytest.raises(ValueError):
            store.add_memory(kind, content, tags=tags)
        assert store.active_memory() == []


def test_clear_and_prune(path: Path) -> None:
    with Store.open(path) as store:
        old = store.add_memory("fact", "old")
        with store.db.write() as connection:
            connection.execute("UPDATE memory SET ts = ts - 10 * 86400 WHERE id = ?", (old.id,))
        recent = store.add_memory("fact", "recent")
        assert store.prune_memory(5) == 1
        assert store.active_memory() == [recent]
        assert store.prune_memory(5) == 0
        with pytest.raises(ValueError):
            store.prune_memory(-1)
        store.add_memory("pref", "another")
        assert store.clear_memory() == 2
        assert store.clear_memory() == 0
        assert store.active_memory() == []


def test_oldest_first(path: Path) -> None:
    with Store.open(path) as store:
        items = [store.add_memory("fact", f"item {i}") for i in range(5)]
        assert store.active_memory() == items


def test_version_changes_when_another_store_writes(path: Path) -> None:
    with Store.open(path) as reader, Store.open(path) as writer:
        seen = {reader.memory_version()}

        def changed() -> bool:
            version = reader.memory_version()
            fresh = version not in seen
            seen.add(version)
            return fresh

        item = writer.add_memory("fact", "a")
        assert changed()
        assert writer.forget_memory(item.id) == "forgotten"
        assert changed()
        assert writer.forget_memory(item.id) == "already"
        assert not changed()
        writer.add_memory("fact", "b")
        writer.add_memory("fact", "c")
        assert changed()
        assert writer.clear_memory() == 2
        assert changed()
        assert writer.clear_memory() == 0
        assert not changed()


def test_integrity_after_use(path: Path) -> None:
    with Store.open(path) as store:
        store.add_memory("fact", "données ✓")
    with sqlite3.connect(path) as connection:
        assert connection.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_a_store_from_before_memory_is_upgraded(path: Path) -> None:
    from aish.store.database import Database
    from aish.store.schema import MIGRATIONS

    db = Database.open(path, MIGRATIONS[:1])
    with db.write() as connection:
        connection.execute(
            "INSERT INTO sessions (name, started_at, last_at, activity) VALUES ('old', 1, 1, 1)"
        )
    db.close()
    with Store.open(path) as store:
        assert store.db.schema_version == len(MIGRATIONS)
        assert store.find_session("old") is not None
        assert store.memory_version() == 0
        assert store.add_memory("fact", "first").id == 1
