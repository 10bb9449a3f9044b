"""The schema as an ordered list of migration steps.

`PRAGMA user_version` is the number of steps already applied to a database file. Step *n*
(counting from 1) takes a database from version *n - 1* to *n*; a later issue adds its tables by
appending one step to `MIGRATIONS` — never by editing a step that has shipped, because databases
in the wild already ran it.

Each step is a tuple of single SQL statements, run in order inside one transaction together with
the version bump, so a step is applied entirely or not at all.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

# `PRAGMA application_id`: the bytes "aish", so another program's SQLite file is recognised.
APPLICATION_ID: Final = 0x61697368


@dataclass(frozen=True)
class Migration:
    """One schema step: a short description (for error messages) and its statements."""

    description: str
    statements: tuple[str, ...]


MIGRATIONS: Final[tuple[Migration, ...]] = (
    Migration(
        "sessions and turns",
        (
            f"PRAGMA application_id = {APPLICATION_ID}",
            # `activity` orders sessions by their latest write. It comes from a counter bumped
            # inside each write transaction (writes are serialised), not from the clock, so
            # "most recently active" holds across processes even when the clock jumps or ticks
            # coarsely. `last_at` is the wall-clock time of that write, for display.
            """
            CREATE TABLE sessions (
                id          INTEGER PRIMARY KEY AUTOINCREMENT,
                name        TEXT UNIQUE,
                started_at  REAL NOT NULL,
                last_at     REAL NOT NULL,
                activity    INTEGER NOT NULL,
                cwd         TEXT NOT NULL DEFAULT '',
                model       TEXT NOT NULL DEFAULT ''
            )
            """,
            "CREATE INDEX sessions_by_activity ON sessions (activity)",
            # AUTOINCREMENT: a turn id is never reused, even after a session is deleted.
            """
            CREATE TABLE turns (
                id          INTEGER PRIMARY KEY AUTOINCREMENT,
                session_id  INTEGER NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
                ts          REAL NOT NULL,
                kind        TEXT NOT NULL,
                payload     TEXT NOT NULL
            )
            """,
            "CREATE INDEX turns_by_session ON turns (session_id, id)",
        ),
    ),
    Migration(
        "memory",
        (
            # Rows are never updated or deleted: forgetting adds a `memory_forgotten` row, so
            # the history stays, and `memory_version` (max id + tombstone count) only grows.
            # AUTOINCREMENT: an id is never reused, even by an import after everything was
            # forgotten.
            """
            CREATE TABLE memory (
                id          INTEGER PRIMARY KEY AUTOINCREMENT,
                ts          REAL NOT NULL,
                kind        TEXT NOT NULL CHECK (kind IN ('fact', 'pref', 'context')),
                content     TEXT NOT NULL,
                tags        TEXT NOT NULL DEFAULT '[]',
                source      TEXT
            )
            """,
            # One tombstone per item: forgetting a forgotten item changes nothing.
            """
            CREATE TABLE memory_forgotten (
                item_id     INTEGER PRIMARY KEY REFERENCES memory (id),
                ts          REAL NOT NULL
            )
            """,
        ),
    ),
    Migration(
        "usage ledger",
        (
            # One row per model call; rows are only inserted. `session_id` is NULL for calls
            # outside a session (`aish ask`), and becomes NULL if its session is ever deleted:
            # money spent stays spent. `cost_usd` NULL means unknown (never read as $0), and then
            # `cost_source` says so. `category` is free text (`chat`, `norris`, `safety`, …).
            """
            CREATE TABLE usage (
                id                  INTEGER PRIMARY KEY AUTOINCREMENT,
                session_id          INTEGER REFERENCES sessions (id) ON DELETE SET NULL,
                ts                  REAL NOT NULL,
                preset              TEXT NOT NULL DEFAULT '',
                model               TEXT NOT NULL DEFAULT '',
                category            TEXT NOT NULL,
                prompt_tokens       INTEGER NOT NULL DEFAULT 0 CHECK (prompt_tokens >= 0),
                completion_tokens   INTEGER NOT NULL DEFAULT 0 CHECK (completion_tokens >= 0),
                cached_tokens       INTEGER NOT NULL DEFAULT 0 CHECK (cached_tokens >= 0),
                cost_usd            REAL CHECK (cost_usd >= 0),
                cost_source         TEXT NOT NULL,
                estimated           INTEGER NOT NULL DEFAULT 0 CHECK (estimated IN (0, 1)),
                CHECK ((cost_usd IS NULL) = (cost_source = 'unknown'))
            )
            """,
            "CREATE INDEX usage_by_session ON usage (session_id, ts)",
            "CREATE INDEX usage_by_ts ON usage (ts)",
        ),
    ),
    Migration(
        "project trust",
        (
            # One row per trusted `.aish.toml`: its absolute path and the sha256 of the bytes
            # the user agreed to. A file whose bytes hash differently is not trusted, so an
            # edit (or a `git pull`) needs `:trust` again. Revoking deletes the row.
            """
            CREATE TABLE project_trust (
                path        TEXT PRIMARY KEY,
                digest      TEXT NOT NULL CHECK (length(digest) = 64),
                trusted_at  REAL NOT NULL
            )
            """,
        ),
    ),
    Migration(
        "project trust: allow rules",
        (
            # Whether the user, when trusting these bytes, also let the file's allow rules apply
            # (a project may otherwise only tighten the permission policy). A new trust of the
            # same path sets it again: an edit never inherits it.
            "ALTER TABLE project_trust ADD COLUMN allows INTEGER NOT NULL DEFAULT 0 "
            "CHECK (allows IN (0, 1))",
        ),
    ),
)
