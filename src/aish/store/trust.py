"""Project trust: which `.aish.toml` files the user agreed to, by path and content hash.

A project file can arrive with a cloned repository, so it counts only once the user has run
`:trust` on exactly these bytes. The store keeps one row per file: its absolute path, the sha256
of the bytes trusted (lower-case hex), when, and whether the user also let the file's allow rules
apply (`allows`: a project otherwise only tightens the permission policy). The config loader
compares the digest with the file it reads; the store never reads project files itself.
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from aish.store.database import Database

_DIGEST: Final = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True)
class TrustRecord:
    """One trusted project file."""

    path: str
    digest: str
    trusted_at: float
    allows: bool = False


def normal_path(path: Path | str) -> str:
    """The key a file is stored under: absolute, with `.` and `..` folded (symlinks kept)."""
    return os.path.abspath(os.fspath(path))


def check_digest(digest: str) -> str:
    """The digest in stored form; ValueError unless it is a sha256 in hex."""
    lowered = digest.lower() if isinstance(digest, str) else ""
    if not _DIGEST.fullmatch(lowered):
        raise ValueError("a project digest is the sha256 of the file, 64 hex digits")
    return lowered


def trust_project(db: Database, path: Path | str, digest: str, *, allows: bool = False) -> None:
    stored = check_digest(digest)
    with db.write() as connection:
        connection.execute(
            "INSERT INTO project_trust (path, digest, trusted_at, allows) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (path) DO UPDATE SET digest = excluded.digest, "
            "trusted_at = excluded.trusted_at, allows = excluded.allows",
            (normal_path(path), stored, time.time(), int(allows)),
        )


def revoke_project(db: Database, path: Path | str) -> bool:
    with db.write() as connection:
        cursor = connection.execute(
            "DELETE FROM project_trust WHERE path = ?", (normal_path(path),)
        )
        return cursor.rowcount > 0


def project_trust(db: Database, path: Path | str) -> str | None:
    record = project_trust_record(db, path)
    return None if record is None else record.digest


def project_trust_record(db: Database, path: Path | str) -> TrustRecord | None:
    with db.read() as connection:
        row = connection.execute(
            "SELECT path, digest, trusted_at, allows FROM project_trust WHERE path = ?",
            (normal_path(path),),
        ).fetchone()
    return None if row is None else _record(row)


def trusted_projects(db: Database) -> list[TrustRecord]:
    with db.read() as connection:
        rows = connection.execute(
            "SELECT path, digest, trusted_at, allows FROM project_trust ORDER BY path"
        ).fetchall()
    return [_record(row) for row in rows]


def _record(row: tuple[object, ...]) -> TrustRecord:
    path, digest, trusted_at, allows = row
    return TrustRecord(str(path), str(digest), float(str(trusted_at)), bool(allows))
