"""Opening the store file: pragmas, migrations, and one-line errors for files it cannot use."""

from __future__ import annotations

import ast
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from aish.store import Store, StoreError, StoreVersionError
from aish.store.database import BUSY_TIMEOUT_MS, Database
from aish.store.schema import APPLICATION_ID, MIGRATIONS, Migration

EXTRA = Migration(
    "notes (a later issue's step)",
    ("CREATE TABLE notes (id INTEGER PRIMARY KEY, session_id INTEGER REFERENCES sessions (id))",),
)


def _pragma(path: Path, name: str) -> object:
    with sqlite3.connect(path) as connection:
        return connection.execute(f"PRAGMA {name}").fetchone()[0]


def test_new_store_has_its_pragmas_and_schema(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "er" / "aish.sqlite3"
    with Store.open(path) as store:
        connection = store.db._live()
        pragmas = {
            name: connection.execute(f"PRAGMA {name}").fetchone()[0]
            for name in ("journal_mode", "synchronous", "busy_timeout", "foreign_keys")
        }
        assert pragmas == {
            "journal_mode": "wal",
            "synchronous": 1,  # NORMAL
            "busy_timeout": BUSY_TIMEOUT_MS,
            "foreign_keys": 1,
        }
        assert store.db.schema_version == len(MIGRATIONS)
    assert _pragma(path, "user_version") == len(MIGRATIONS)
    assert _pragma(path, "application_id") == APPLICATION_ID
    assert _pragma(path, "journal_mode") == "wal"  # persistent in the file
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_reopening_does_not_migrate_again(tmp_path: Path) -> None:
    path = tmp_path / "aish.sqlite3"
    Store.open(path).close()
    with Store.open(path) as store:
        assert store.db.schema_version == len(MIGRATIONS)


def test_an_appended_step_upgrades_an_existing_store(tmp_path: Path) -> None:
    path = tmp_path / "aish.sqlite3"
    with Store.open(path) as store:
        session = store.start_session(name="kept")
        store.append_turn(session.id, "user", {"text": "hello"})
    db = Database.open(path, (*MIGRATIONS, EXTRA))
    try:
        assert db.schema_version == len(MIGRATIONS) + 1
        with db.write() as connection:
            connection.execute("INSERT INTO notes (session_id) VALUES (?)", (session.id,))
    finally:
        db.close()
    # The older code now refuses the newer file rather than misreading it.
    with pytest.raises(StoreVersionError):
        Store.open(path)


def test_a_failing_step_is_rolled_back_whole(tmp_path: Path) -> None:
    path = tmp_path / "aish.sqlite3"
    Store.open(path).close()
    broken = Migration("broken", ("CREATE TABLE half (x)", "THIS IS NOT SQL"))
    with pytest.raises(StoreError) as caught:
        Database.open(path, (*MIGRATIONS, EXTRA, broken))
    message = str(caught.value)
    assert "\n" not in message
    assert f"schema version {len(MIGRATIONS) + 2} (broken)" in message
    assert str(path) in message
    # Every pending step runs in one transaction: nothing of EXTRA or "half" remains.
    assert _pragma(path, "user_version") == len(MIGRATIONS)
    with sqlite3.connect(path) as connection:
        tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master")}
    assert not {"notes", "half"} & tables
    with Store.open(path) as store:
        store.start_session()


def test_newer_schema_is_a_version_error(tmp_path: Path) -> None:
    path = tmp_path / "aish.sqlite3"
    Store.open(path).close()
    with sqlite3.connect(path) as connection:
        connection.execute(f"PRAGMA user_version = {len(MIGRATIONS) + 5}")
    with pytest.raises(StoreVersionError) as caught:
        Store.open(path)
    message = str(caught.value)
    assert isinstance(caught.value, StoreError)
    assert "\n" not in message
    assert str(path) in message
    assert f"schema version {len(MIGRATIONS) + 5}" in message
    assert "upgrade aish" in message


@pytest.mark.parametrize(
    "content",
    [
        b"this is a text file, not a database\n" * 10,
        b"SQLite format 3\x00" + b"\xff" * 4000,  # right header, garbage after it
    ],
)
def test_not_a_database_is_a_one_line_error_and_left_alone(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "aish.sqlite3"
    path.write_bytes(content)
    with pytest.raises(StoreError) as caught:
        Store.open(path)
    message = str(caught.value)
    assert "\n" not in message
    assert str(path) in message
    assert not isinstance(caught.value, StoreVersionError)
    assert path.read_bytes() == content


def test_another_programs_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "other.sqlite3"
    with sqlite3.connect(path) as connection:
        connection.execute("PRAGMA application_id = 1234")
        connection.execute("CREATE TABLE t (x)")
    with pytest.raises(StoreError, match="another program's SQLite database"):
        Store.open(path)


def test_unusable_paths(tmp_path: Path) -> None:
    (tmp_path / "dir.sqlite3").mkdir()
    with pytest.raises(StoreError, match="directory"):
        Store.open(tmp_path / "dir.sqlite3")
    (tmp_path / "file").write_text("")
    with pytest.raises(StoreError) as caught:
        Store.open(tmp_path / "file" / "aish.sqlite3")
    assert str(tmp_path / "file" / "aish.sqlite3") in str(caught.value)


def test_write_rolls_back_on_error(tmp_path: Path) -> None:
    with Store.open(tmp_path / "aish.sqlite3") as store:
        with pytest.raises(RuntimeError), store.db.write() as connection:
            connection.execute(
                "INSERT INTO sessions (started_at, last_at, activity) VALUES (0, 0, 1)"
            )
            raise RuntimeError("boom")
        assert store.list_sessions(include_empty=True) == []
        with pytest.raises(StoreError) as caught, store.db.write() as connection:
            connection.execute("INSERT INTO nowhere VALUES (1)")
        assert "\n" not in str(caught.value)
        # The connection is usable again afterwards.
        store.start_session()


def test_importing_the_store_is_cheap() -> None:
    code = (
        "import sys, aish.store; "
        "print(sorted(m for m in sys.modules if m.startswith(('aish', 'platformdirs'))))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    loaded = ast.literal_eval(result.stdout)
    assert "platformdirs" not in loaded
    # `aish.errors` is the error root every room's errors derive from (no imports of its own).
    own = ("aish", "aish.errors")
    assert all(name in own or name.startswith("aish.store") for name in loaded), loaded
