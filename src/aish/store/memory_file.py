"""The phase-4 JSONL memory file: `aish memory export` writes it, `aish memory import` reads it.

One JSON object a line: an item `{"id","ts","kind","content","tags"?,"source"?}` or a tombstone
`{"kind":"forget","target":N,"ts"}` naming an item *of the same file*. A `{"meta":…}` header is
ignored. `ts` is written as UTC ISO 8601 (microseconds when not whole seconds); numbers (unix
time) are read too. Stored times are whole microseconds, so export → import → export is exact.

An import is planned before it is written (`plan_import`), so the user sees what it adds: a file
is foreign text, and what it adds steers the model. An item the store already holds (same kind
and content, forgotten or not) is not added again. A time in the future (beyond a little clock
skew) is clamped to now: "newest" decides which items the model is told, and an item dated 2099
would otherwise stay the newest forever.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any, cast

from aish.store.database import Database
from aish.store.memory import (
    MemoryItem,
    MemoryKind,
    check_item,
    encode_tags,
    memory_history,
)

FORGET = "forget"
_MAX_ID = 2**62  # room for AUTOINCREMENT after the highest id imported
# Clocks of two machines differ a little; a time further ahead than this is not a real one.
CLOCK_SKEW_S = 300.0


@dataclass(frozen=True)
class Tombstone:
    """A forget line: `target` is an id as written in the file."""

    target: int
    ts: float


@dataclass
class MemoryFile:
    """A parsed file: its items (with the file's ids), tombstones, and the lines refused."""

    items: list[MemoryItem] = field(default_factory=list)
    tombstones: list[Tombstone] = field(default_factory=list)
    errors: list[tuple[int, str]] = field(default_factory=list)


@dataclass(frozen=True)
class ImportPlan:
    """What an import would do, for the user to see before anything is written.

    `new` are the items to add (file ids, times clamped), `known` those the store already
    holds (or an earlier line of the file does), `refused` the lines that could not be read
    (number, reason), `tombstones` the forget lines that name a new item. Times in the future
    were set to `now`: `clamped_from` maps such an item's file id to the time the file gave,
    `clamped_forgets` counts such tombstones.
    """

    new: list[MemoryItem]
    known: list[MemoryItem]
    refused: list[tuple[int, str]]
    tombstones: list[Tombstone]
    clamped_from: dict[int, float] = field(default_factory=dict)
    clamped_forgets: int = 0

    @property
    def clamped(self) -> int:
        """How many times in the future were set to now."""
        return len(self.clamped_from) + self.clamped_forgets

    def forgotten_ids(self) -> set[int]:
        """The file ids of new items the file itself forgets."""
        return {tombstone.target for tombstone in self.tombstones}


@dataclass(frozen=True)
class ImportReport:
    """What an import did: `renumbered` when the store already had items; `known` counts the
    planned items another writer added in the meantime (not added twice)."""

    imported: int
    forgotten: int
    renumbered: bool
    known: int = 0


def format_ts(ts: float) -> str:
    moment = datetime.fromtimestamp(ts, UTC)
    spec = "microseconds" if moment.microsecond else "seconds"
    return moment.replace(tzinfo=None).isoformat(timespec=spec) + "Z"


def parse_ts(value: object) -> float:
    """Unix time from an ISO 8601 string (no zone: UTC) or a number; ValueError otherwise."""
    if isinstance(value, bool):
        raise ValueError("ts is not a time")
    if isinstance(value, int | float):
        seconds = float(value)
    elif isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value)
        except ValueError:
            raise ValueError(f"ts {value!r} is not an ISO 8601 time") from None
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
        seconds = moment.timestamp()
    else:
        raise ValueError("ts is missing or not a time")
    if not math.isfinite(seconds):
        raise ValueError("ts is not a finite time")
    return round(seconds, 6)


def export_lines(db: Database) -> Iterator[str]:
    """The store's whole memory, items and tombstones, in the order they were written."""
    events: list[tuple[float, int, int, str]] = []
    for item, forgotten_at in memory_history(db):
        events.append((item.ts, 0, item.id, item_line(item)))
        if forgotten_at is not None:
            line = _dumps({"kind": FORGET, "target": item.id, "ts": format_ts(forgotten_at)})
            events.append((forgotten_at, 1, item.id, line))
    for event in sorted(events):
        yield event[3]


def item_line(item: MemoryItem) -> str:
    record: dict[str, Any] = {
        "id": item.id,
        "ts": format_ts(item.ts),
        "kind": item.kind,
        "content": item.content,
    }
    if item.tags:
        record["tags"] = list(item.tags)
    if item.source is not None:
        record["source"] = item.source
    return _dumps(record)


def _dumps(record: dict[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"))


def parse_lines(lines: Iterable[bytes | str]) -> MemoryFile:
    """Parse every line; a bad one lands in `errors` with its number, the rest still count."""
    parsed = MemoryFile()
    seen: dict[int, int] = {}
    for number, raw in enumerate(lines, start=1):
        try:
            text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
        except UnicodeDecodeError:
            parsed.errors.append((number, "not UTF-8 text"))
            continue
        if not text.strip():
            continue
        try:
            entry = _parse_line(text)
        except ValueError as exc:
            parsed.errors.append((number, str(exc)))
            continue
        if isinstance(entry, Tombstone):
            parsed.tombstones.append(entry)
        elif entry is not None:
            if entry.id in seen:
                parsed.errors.append(
                    (number, f"id {entry.id} already used on line {seen[entry.id]}")
                )
                continue
            seen[entry.id] = number
            parsed.items.append(entry)
    return parsed


def _parse_line(text: str) -> MemoryItem | Tombstone | None:
    try:
        record = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not JSON ({exc.msg}: column {exc.colno})") from None
    if not isinstance(record, dict):
        raise ValueError("not a JSON object")
    if "meta" in record and "id" not in record and "kind" not in record:
        return None
    kind = record.get("kind")
    if kind == FORGET:
        return Tombstone(_id(record, "target"), parse_ts(record.get("ts")))
    item_id = _id(record, "id")
    content = record.get("content")
    tags = record.get("tags") or []
    source = record.get("source")
    if not isinstance(kind, str):
        raise ValueError("kind is missing")
    if not isinstance(content, str):
        raise ValueError("content is missing")
    if not isinstance(tags, list):
        raise ValueError("tags must be a list of strings")
    check_item(kind, content, tags, source)
    return MemoryItem(
        item_id, parse_ts(record.get("ts")), cast(MemoryKind, kind), content, tuple(tags), source
    )


def _id(record: dict[str, Any], key: str) -> int:
    value = record.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value < _MAX_ID:
        raise ValueError(f"{key} must be a whole number ≥ 1")
    return value


def plan_import(db: Database, parsed: MemoryFile, now: float) -> ImportPlan:
    """Sort the parsed items into new and already known, with future times clamped to `now`."""
    with db.read() as connection:
        held = {
            (str(kind), str(content))
            for kind, content in connection.execute("SELECT kind, content FROM memory")
        }
    new: list[MemoryItem] = []
    known: list[MemoryItem] = []
    clamped_from: dict[int, float] = {}
    for item in parsed.items:
        key = (item.kind, item.content)
        if key in held:
            known.append(item)
            continue
        held.add(key)
        if item.ts > now + CLOCK_SKEW_S:
            clamped_from[item.id] = item.ts
            item = replace(item, ts=now)
        new.append(item)
    new_ids = {item.id for item in new}
    tombstones: list[Tombstone] = []
    clamped_forgets = 0
    for tombstone in parsed.tombstones:
        if tombstone.target not in new_ids:
            continue  # it names an item of the file that is not added: nothing to forget
        if tombstone.ts > now + CLOCK_SKEW_S:
            tombstone = replace(tombstone, ts=now)
            clamped_forgets += 1
        tombstones.append(tombstone)
    return ImportPlan(new, known, list(parsed.errors), tombstones, clamped_from, clamped_forgets)


def import_file(db: Database, plan: ImportPlan) -> ImportReport:
    """Write the plan's new items and their tombstones in one transaction.

    Into a store that has never held an item the file's ids are kept; otherwise every item gets
    a fresh id and each tombstone follows the item it named in the file. An item another
    process added since the plan was made is not added twice.
    """
    forgotten = 0
    with db.write() as connection:
        keep_ids = connection.execute("SELECT 1 FROM memory LIMIT 1").fetchone() is None
        new_ids: dict[int, int] = {}
        known = 0
        for item in plan.new:
            if (
                not keep_ids
                and connection.execute(
                    "SELECT 1 FROM memory WHERE kind = ? AND content = ? LIMIT 1",
                    (item.kind, item.content),
                ).fetchone()
            ):
                known += 1
                continue
            values = (item.ts, item.kind, item.content, encode_tags(item.tags), item.source)
            if keep_ids:
                connection.execute(
                    "INSERT INTO memory (id, ts, kind, content, tags, source)"
                    " VALUES (?, ?, ?, ?, ?, ?)",
                    (item.id, *values),
                )
                new_ids[item.id] = item.id
            else:
                cursor = connection.execute(
                    "INSERT INTO memory (ts, kind, content, tags, source) VALUES (?, ?, ?, ?, ?)",
                    values,
                )
                new_ids[item.id] = cast(int, cursor.lastrowid)
        for tombstone in plan.tombstones:
            if tombstone.target not in new_ids:
                continue
            cursor = connection.execute(
                "INSERT OR IGNORE INTO memory_forgotten (item_id, ts) VALUES (?, ?)",
                (new_ids[tombstone.target], tombstone.ts),
            )
            forgotten += cursor.rowcount
    return ImportReport(len(new_ids), forgotten, renumbered=not keep_ids, known=known)
