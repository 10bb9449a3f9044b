"""Memory: curated facts, preferences and context that outlive a session.

Items are never changed or deleted. Forgetting writes a tombstone (`memory_forgotten`), so the
history stays and an export can write it back out. Several aish processes add and forget at the
same time: each write is one `BEGIN IMMEDIATE` transaction, and ids come from SQLite's
AUTOINCREMENT, which the write lock serialises.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal, cast

from aish.store.database import Database

MemoryKind = Literal["fact", "pref", "context"]
ForgetOutcome = Literal["forgotten", "unknown", "already"]

MEMORY_KINDS: Final[tuple[MemoryKind, ...]] = ("fact", "pref", "context")

_COLUMNS = "id, ts, kind, content, tags, source"
_ACTIVE = "id NOT IN (SELECT item_id FROM memory_forgotten)"


@dataclass(frozen=True)
class MemoryItem:
    """One remembered item; `source` says where it came from (e.g. "session 12")."""

    id: int
    ts: float
    kind: MemoryKind
    content: str
    tags: tuple[str, ...] = ()
    source: str | None = None


def now() -> float:
    """The current time as stored: whole microseconds, so an ISO export reads back exactly."""
    return round(time.time(), 6)


def check_item(kind: str, content: str, tags: Sequence[str], source: str | None) -> None:
    """ValueError (one line) for an item the store would not take."""
    if kind not in MEMORY_KINDS:
        raise ValueError(f"unknown memory kind {kind!r} (one of {', '.join(MEMORY_KINDS)})")
    if not isinstance(content, str) or not content.strip():
        raise ValueError("empty memory content")
    if isinstance(tags, str) or not all(isinstance(tag, str) for tag in tags):
        raise ValueError("tags must be a list of strings")
    if source is not None and not isinstance(source, str):
        raise ValueError("source must be a string")
    for text in (content, *tags, *([source] if source else [])):
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            raise ValueError("text that is not valid Unicode (lone surrogates)") from None


def add_memory(
    db: Database, kind: str, content: str, *, tags: Sequence[str] = (), source: str | None = None
) -> MemoryItem:
    check_item(kind, content, tags, source)
    ts = now()
    with db.write() as connection:
        cursor = connection.execute(
            "INSERT INTO memory (ts, kind, content, tags, source) VALUES (?, ?, ?, ?, ?)",
            (ts, kind, content, encode_tags(tags), source),
        )
        item_id = cursor.lastrowid
    assert item_id is not None
    return MemoryItem(item_id, ts, cast(MemoryKind, kind), content, tuple(tags), source)


def forget_memory(db: Database, item_id: int) -> ForgetOutcome:
    with db.write() as connection:
        known = connection.execute("SELECT 1 FROM memory WHERE id = ?", (item_id,)).fetchone()
        if known is None:
            return "unknown"
        cursor = connection.execute(
            "INSERT OR IGNORE INTO memory_forgotten (item_id, ts) VALUES (?, ?)", (item_id, now())
        )
        return "forgotten" if cursor.rowcount == 1 else "already"


def active_memory(db: Database) -> list[MemoryItem]:
    with db.read() as connection:
        rows = connection.execute(
            f"SELECT {_COLUMNS} FROM memory WHERE {_ACTIVE} ORDER BY ts, id"
        ).fetchall()
    return [item_from_row(row) for row in rows]


def clear_memory(db: Database) -> int:
    with db.write() as connection:
        cursor = connection.execute(
            f"INSERT INTO memory_forgotten (item_id, ts) SELECT id, ? FROM memory WHERE {_ACTIVE}",
            (now(),),
        )
        return cursor.rowcount


def prune_memory(db: Database, older_than_days: int) -> int:
    if older_than_days < 0:
        raise ValueError(f"a negative age: {older_than_days} days")
    ts = now()
    with db.write() as connection:
        cursor = connection.execute(
            "INSERT INTO memory_forgotten (item_id, ts) "
            f"SELECT id, ? FROM memory WHERE {_ACTIVE} AND ts < ?",
            (ts, ts - older_than_days * 86400),
        )
        return cursor.rowcount


def memory_version(db: Database) -> int:
    """A number that grows whenever the active set changes, whichever process changed it.

    Rows are only ever inserted, ids never reused, so the highest id (an add) plus the number of
    tombstones (a forget) strictly grows with every change. One statement: one snapshot.
    """
    with db.read() as connection:
        row = connection.execute(
            "SELECT (SELECT COALESCE(MAX(id), 0) FROM memory)"
            " + (SELECT COUNT(*) FROM memory_forgotten)"
        ).fetchone()
    return int(row[0])


def memory_history(db: Database) -> list[tuple[MemoryItem, float | None]]:
    """Every item ever written, in id order, with the time it was forgotten (None: active)."""
    with db.read() as connection:
        rows = connection.execute(
            "SELECT m.id, m.ts, m.kind, m.content, m.tags, m.source, f.ts"
            " FROM memory AS m LEFT JOIN memory_forgotten AS f ON f.item_id = m.id"
            " ORDER BY m.id"
        ).fetchall()
    return [(item_from_row(row[:6]), None if row[6] is None else float(row[6])) for row in rows]


def encode_tags(tags: Sequence[str]) -> str:
    return json.dumps(list(tags), ensure_ascii=False)


def item_from_row(row: Sequence[object]) -> MemoryItem:
    item_id, ts, kind, content, tags, source = row
    try:
        decoded = json.loads(str(tags))
        tag_tuple = tuple(str(tag) for tag in decoded) if isinstance(decoded, list) else ()
    except ValueError:
        tag_tuple = ()
    return MemoryItem(
        id=int(cast(int, item_id)),
        ts=float(cast(float, ts)),
        kind=cast(MemoryKind, kind),
        content=str(content),
        tags=tag_tuple,
        source=None if source is None else str(source),
    )
