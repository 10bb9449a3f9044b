"""Sessions and their turns: the conversation log, written as it happens.

A session is one run of the conversational shell; a turn is one event in it (`user`, `command`,
`assistant`, `status`, `reset`, …). The store does not interpret kinds or payloads: a payload is
any JSON-able mapping, stored as JSON text and given back as a `dict`.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from aish.store.database import Database
from aish.store.errors import StoreError

# The kind whose payload `text` is a session's "first user text" in listings.
USER_KIND = "user"


@dataclass(frozen=True)
class SessionInfo:
    """A session's identity: `name` is set by `:save <name>` and unique across sessions."""

    id: int
    name: str | None
    started_at: float
    cwd: str
    model: str


@dataclass(frozen=True)
class TurnRecord:
    """One logged turn; `payload` is the mapping given to `append_turn`, as decoded JSON."""

    id: int
    session_id: int
    ts: float
    kind: str
    payload: dict[str, Any]


@dataclass(frozen=True)
class SessionSummary:
    """A line of `:sessions`: the session, its last activity, its size and how it began."""

    info: SessionInfo
    last_at: float
    turns: int
    first_text: str


_SESSION_COLUMNS = "s.id, s.name, s.started_at, s.cwd, s.model"

# The counter that orders sessions by their latest write (see the schema). Evaluated inside the
# write transaction, so two processes can never take the same value.
_NEXT_ACTIVITY = "(SELECT COALESCE(MAX(activity), 0) + 1 FROM sessions)"


def encode_payload(payload: Mapping[str, Any]) -> str:
    """JSON text for a payload: readable UTF-8 when possible, never an exception for text.

    Lone surrogates (undecodable bytes read with `surrogateescape`) cannot be stored as UTF-8;
    such a payload is written with `\\uXXXX` escapes instead, which decode back to the same str.
    Values JSON has no type for become text (`bytes` decoded leniently, others by `str()`).
    """
    text = json.dumps(dict(payload), ensure_ascii=False, default=_json_default)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(dict(payload), ensure_ascii=True, default=_json_default)
    return text


def decode_payload(text: str) -> dict[str, Any]:
    """The mapping back from stored JSON; a damaged row decodes to `{"_invalid": text}`."""
    try:
        value = json.loads(text)
    except ValueError:
        return {"_invalid": text}
    return value if isinstance(value, dict) else {"_invalid": text}


def _json_default(value: object) -> object:
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, bytes | bytearray):
        return bytes(value).decode("utf-8", "surrogateescape")
    if isinstance(value, set | frozenset | tuple):
        return list(value)
    return str(value)


def _session(row: sqlite3.Row | tuple[Any, ...]) -> SessionInfo:
    return SessionInfo(id=row[0], name=row[1], started_at=row[2], cwd=row[3], model=row[4])


def start_session(
    db: Database, *, name: str | None = None, cwd: str = "", model: str = ""
) -> SessionInfo:
    """Create a session (taking `name` from any session that had it) and return it."""
    if name is not None:
        name = _valid_name(name)
    with db.write() as connection:
        now = time.time()
        if name is not None:
            connection.execute("UPDATE sessions SET name = NULL WHERE name = ?", (name,))
        cursor = connection.execute(
            "INSERT INTO sessions (name, started_at, last_at, activity, cwd, model) "
            f"VALUES (?, ?, ?, {_NEXT_ACTIVITY}, ?, ?)",
            (name, now, now, cwd, model),
        )
        session_id = cursor.lastrowid
    assert session_id is not None
    return SessionInfo(id=session_id, name=name, started_at=now, cwd=cwd, model=model)


def append_turn(db: Database, session_id: int, kind: str, payload: Mapping[str, Any]) -> int:
    """Log one turn in one committed transaction and return its id (unique, increasing)."""
    if not kind:
        raise ValueError("a turn needs a kind")
    text = encode_payload(payload)
    with db.write() as connection:
        now = time.time()  # taken under the write lock, so times follow ids
        updated = connection.execute(
            f"UPDATE sessions SET last_at = MAX(last_at, ?), activity = {_NEXT_ACTIVITY} "
            "WHERE id = ?",
            (now, session_id),
        ).rowcount
        if updated != 1:
            raise StoreError(f"no session {session_id} in the store {db.path}")
        cursor = connection.execute(
            "INSERT INTO turns (session_id, ts, kind, payload) VALUES (?, ?, ?, ?)",
            (session_id, now, kind, text),
        )
        turn_id = cursor.lastrowid
    assert turn_id is not None
    return turn_id


def turns(db: Database, session_id: int) -> list[TurnRecord]:
    """Every turn of a session in the order written (empty for an unknown session)."""
    with db.read() as connection:
        rows = connection.execute(
            "SELECT id, session_id, ts, kind, payload FROM turns WHERE session_id = ? ORDER BY id",
            (session_id,),
        ).fetchall()
    return [
        TurnRecord(
            id=row[0], session_id=row[1], ts=row[2], kind=row[3], payload=decode_payload(row[4])
        )
        for row in rows
    ]


def name_session(db: Database, session_id: int, name: str) -> None:
    """Give a session a name. Names are unique: the session that had it loses it."""
    name = _valid_name(name)
    with db.write() as connection:
        connection.execute(
            "UPDATE sessions SET name = NULL WHERE name = ? AND id != ?", (name, session_id)
        )
        updated = connection.execute(
            "UPDATE sessions SET name = ? WHERE id = ?", (name, session_id)
        ).rowcount
        if updated != 1:
            raise StoreError(f"no session {session_id} in the store {db.path}")


def copy_session(db: Database, source_id: int, *, name: str | None = None) -> SessionInfo:
    """A new session holding a copy of `source_id`'s turns as they are now (`:save` keeps a
    snapshot, `:load` continues a copy of one): what is written to either later stays its own.
    `name` moves to the copy, as with `start_session`."""
    if name is not None:
        name = _valid_name(name)
    with db.write() as connection:
        row = connection.execute(
            "SELECT cwd, model FROM sessions WHERE id = ?", (source_id,)
        ).fetchone()
        if row is None:
            raise StoreError(f"no session {source_id} in the store {db.path}")
        now = time.time()
        if name is not None:
            connection.execute("UPDATE sessions SET name = NULL WHERE name = ?", (name,))
        cursor = connection.execute(
            "INSERT INTO sessions (name, started_at, last_at, activity, cwd, model) "
            f"VALUES (?, ?, ?, {_NEXT_ACTIVITY}, ?, ?)",
            (name, now, now, row[0], row[1]),
        )
        session_id = cursor.lastrowid
        assert session_id is not None
        connection.execute(
            "INSERT INTO turns (session_id, ts, kind, payload) "
            "SELECT ?, ts, kind, payload FROM turns WHERE session_id = ? ORDER BY id",
            (session_id, source_id),
        )
    return SessionInfo(id=session_id, name=name, started_at=now, cwd=row[0], model=row[1])


def find_session(db: Database, name: str) -> SessionInfo | None:
    """The session named `name` (exact match), if any."""
    with db.read() as connection:
        row = connection.execute(
            f"SELECT {_SESSION_COLUMNS} FROM sessions s WHERE s.name = ?", (name.strip(),)
        ).fetchone()
    return None if row is None else _session(row)


def get_session(db: Database, session_id: int) -> SessionInfo | None:
    """The session with this id, if any."""
    with db.read() as connection:
        row = connection.execute(
            f"SELECT {_SESSION_COLUMNS} FROM sessions s WHERE s.id = ?", (session_id,)
        ).fetchone()
    return None if row is None else _session(row)


def last_session(db: Database, *, exclude: int | None = None) -> SessionInfo | None:
    """The session written to most recently, other than `exclude`, that has any turns.

    A session without turns (aish started and left at once) has nothing to resume and is
    skipped, so `aish --resume` after such a run still finds the conversation before it.
    """
    with db.read() as connection:
        row = connection.execute(
            f"SELECT {_SESSION_COLUMNS} FROM sessions s "
            "WHERE s.id IS NOT ? AND EXISTS (SELECT 1 FROM turns t WHERE t.session_id = s.id) "
            "ORDER BY s.activity DESC LIMIT 1",
            (exclude,),
        ).fetchone()
    return None if row is None else _session(row)


def list_sessions(
    db: Database, limit: int = 20, *, include_empty: bool = False
) -> list[SessionSummary]:
    """The `limit` most recently active sessions, newest first, for `:sessions`.

    Sessions with no turns and no name are left out unless `include_empty`. `first_text` is the
    `text` of the session's first `user` turn ("" when there is none).
    """
    keep = "" if include_empty else "WHERE s.name IS NOT NULL OR turn_count > 0 "
    with db.read() as connection:
        rows = connection.execute(
            f"SELECT * FROM (SELECT {_SESSION_COLUMNS}, s.last_at, s.activity, "
            "(SELECT COUNT(*) FROM turns t WHERE t.session_id = s.id) AS turn_count, "
            "(SELECT t.payload FROM turns t WHERE t.session_id = s.id AND t.kind = ? "
            "ORDER BY t.id LIMIT 1) AS first_payload "
            f"FROM sessions s) s {keep}ORDER BY s.activity DESC LIMIT ?",
            (USER_KIND, max(limit, 0)),
        ).fetchall()
    return [
        SessionSummary(
            info=_session(row),
            last_at=row[5],
            turns=row[7],
            first_text=_first_text(row[8]),
        )
        for row in rows
    ]


def _first_text(payload: str | None) -> str:
    if payload is None:
        return ""
    text = decode_payload(payload).get("text")
    return text if isinstance(text, str) else ""


def _valid_name(name: str) -> str:
    cleaned = name.strip()
    if not cleaned:
        raise ValueError("a session name cannot be empty")
    return cleaned
