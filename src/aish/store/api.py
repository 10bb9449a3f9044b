"""`Store`: the one object the rest of aish holds, a facade over the store's modules.

Each area (sessions, memory, the usage ledger, project trust) lives in its own
module as functions over a `Database`, and `Store` exposes them as methods.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

from aish.store import memory, memory_file, sessions, trust, usage
from aish.store.database import Database, default_store_path
from aish.store.memory import ForgetOutcome, MemoryItem
from aish.store.memory_file import ImportPlan, ImportReport
from aish.store.sessions import SessionInfo, SessionSummary, TurnRecord
from aish.store.trust import TrustRecord
from aish.store.usage import UsageRow, UsageTotals


class Store:
    """One SQLite file (WAL, busy timeout, versioned schema) shared by every aish process.

    Every write is one short transaction, committed before the method returns. Failures are
    `StoreError` (one line naming the file); a file from a newer aish is `StoreVersionError`.
    Usable as a context manager, which closes it.
    """

    def __init__(self, db: Database) -> None:
        self.db = db

    @classmethod
    def open(cls, path: Path | None = None) -> Store:
        """Open (creating directories and file as needed) and migrate; None → the default."""
        return cls(Database.open(default_store_path() if path is None else Path(path)))

    @property
    def path(self) -> Path:
        """The database file."""
        return self.db.path

    def close(self) -> None:
        """Close the connection. Everything was already committed; closing twice is fine."""
        self.db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    # sessions

    def start_session(
        self, *, name: str | None = None, cwd: str = "", model: str = ""
    ) -> SessionInfo:
        """Create a session; a `name` already in use moves to it."""
        return sessions.start_session(self.db, name=name, cwd=cwd, model=model)

    def append_turn(self, session_id: int, kind: str, payload: Mapping[str, Any]) -> int:
        """Log a turn in one committed transaction; return its id. Unknown session: StoreError."""
        return sessions.append_turn(self.db, session_id, kind, payload)

    def turns(self, session_id: int) -> list[TurnRecord]:
        """A session's turns in the order written."""
        return sessions.turns(self.db, session_id)

    def name_session(self, session_id: int, name: str) -> None:
        """`:save <name>`. Names are unique: a session that already had `name` loses it."""
        sessions.name_session(self.db, session_id, name)

    def copy_session(self, source_id: int, *, name: str | None = None) -> SessionInfo:
        """A new session with a copy of this one's turns (a snapshot); `name` moves to it."""
        return sessions.copy_session(self.db, source_id, name=name)

    def find_session(self, name: str) -> SessionInfo | None:
        """The session called `name`, if any."""
        return sessions.find_session(self.db, name)

    def get_session(self, session_id: int) -> SessionInfo | None:
        """The session with this id, if any."""
        return sessions.get_session(self.db, session_id)

    def last_session(self, *, exclude: int | None = None) -> SessionInfo | None:
        """The most recently active session with turns, other than `exclude`."""
        return sessions.last_session(self.db, exclude=exclude)

    def list_sessions(
        self, limit: int = 20, *, include_empty: bool = False
    ) -> list[SessionSummary]:
        """Most recently active first; unnamed sessions without turns only if `include_empty`."""
        return sessions.list_sessions(self.db, limit, include_empty=include_empty)

    # memory

    def add_memory(
        self, kind: str, content: str, *, tags: Sequence[str] = (), source: str | None = None
    ) -> MemoryItem:
        """Remember an item; ValueError for an unknown kind or empty content."""
        return memory.add_memory(self.db, kind, content, tags=tags, source=source)

    def forget_memory(self, item_id: int) -> ForgetOutcome:
        """Write a tombstone for an active item; "unknown" / "already" change nothing."""
        return memory.forget_memory(self.db, item_id)

    def active_memory(self) -> list[MemoryItem]:
        """The items not forgotten, oldest first."""
        return memory.active_memory(self.db)

    def clear_memory(self) -> int:
        """Forget every active item; return how many."""
        return memory.clear_memory(self.db)

    def prune_memory(self, older_than_days: int) -> int:
        """Forget the active items written more than `older_than_days` ago; return how many."""
        return memory.prune_memory(self.db, older_than_days)

    def memory_version(self) -> int:
        """Differs whenever the active set has changed since, in any process."""
        return memory.memory_version(self.db)

    def export_memory(self) -> list[str]:
        """The phase-4 JSONL lines (no newlines) for every item and tombstone, as written."""
        return list(memory_file.export_lines(self.db))

    def plan_memory_import(
        self, lines: Iterable[bytes | str], *, now: float | None = None
    ) -> ImportPlan:
        """Parse phase-4 JSONL lines and say what importing them would add (nothing written):
        new items, items already held, refused lines (number, reason), clamped times."""
        parsed = memory_file.parse_lines(lines)
        return memory_file.plan_import(self.db, parsed, memory.now() if now is None else now)

    def import_memory(self, plan: ImportPlan) -> ImportReport:
        """Store a plan's new items and their tombstones in one transaction."""
        return memory_file.import_file(self.db, plan)

    # usage ledger

    def record_usage(self, session_id: int | None, row: UsageRow) -> int:
        """Write one model call's row; return its id. None: a call outside any session.

        ValueError for an inconsistent row (a cost with source "unknown", negative tokens, …);
        StoreError for an unknown session.
        """
        return usage.record_usage(self.db, session_id, row)

    def usage_totals(
        self,
        session_id: int | None = None,
        since_ts: float | None = None,
        by: Sequence[str] = ("model", "category"),
    ) -> list[UsageTotals]:
        """Calls, tokens and known dollars per group (`model`, `category`, `preset`, `day`,
        `session`, `source`), with the count of calls of unknown cost; `by=()`: one total row."""
        return usage.usage_totals(self.db, session_id=session_id, since_ts=since_ts, by=by)

    def session_cost(self, session_id: int) -> float:
        """The dollars of a session's calls whose cost is known."""
        return usage.session_cost(self.db, session_id)

    # project trust

    def trust_project(self, path: Path | str, digest: str, *, allows: bool = False) -> None:
        """Record that the user trusts the project file at `path` with this sha256 (hex), and
        whether its allow rules apply too (`allows`).

        Trusting again replaces the digest; ValueError for something that is not a sha256.
        """
        trust.trust_project(self.db, path, digest, allows=allows)

    def revoke_project(self, path: Path | str) -> bool:
        """Forget the trust in `path`; False when it was not trusted."""
        return trust.revoke_project(self.db, path)

    def project_trust(self, path: Path | str) -> str | None:
        """The digest the user trusted for `path`, or None when it was never trusted."""
        return trust.project_trust(self.db, path)

    def project_trust_record(self, path: Path | str) -> TrustRecord | None:
        """The trust recorded for `path` (digest, when, whether its allow rules apply)."""
        return trust.project_trust_record(self.db, path)

    def trusted_projects(self) -> list[TrustRecord]:
        """Every trusted project file, by path."""
        return trust.trusted_projects(self.db)
