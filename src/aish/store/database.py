"""The connection: opening the file, its pragmas, migrations, and short transactions.

One `Database` wraps one `sqlite3` connection in autocommit mode (`isolation_level=None`), so the
only transactions are the ones opened here: every write is `BEGIN IMMEDIATE … COMMIT`, taken and
released within a single call. `IMMEDIATE` takes the write lock up front, so a second process
waits on the busy timeout instead of failing when its read would have to become a write.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Final, TypeVar

from aish.store.disk_full import DISK_FULL, is_disk_full, is_full_disk_os_error
from aish.store.errors import StoreError, StoreVersionError
from aish.store.schema import APPLICATION_ID, MIGRATIONS, Migration

_T = TypeVar("_T")

BUSY_TIMEOUT_MS: Final = 5000
STORE_FILE_NAME: Final = "aish.sqlite3"


def default_store_path() -> Path:
    """`$XDG_DATA_HOME/aish/aish.sqlite3` (platformdirs' user data dir elsewhere)."""
    import platformdirs  # deferred: importing the store stays cheap

    return Path(platformdirs.user_data_dir("aish")) / STORE_FILE_NAME


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def _is_busy(exc: sqlite3.Error) -> bool:
    return isinstance(exc, sqlite3.OperationalError) and (
        "locked" in str(exc) or "busy" in str(exc)
    )


def _is_damaged(exc: sqlite3.Error) -> bool:
    """SQLite read the file and found it is no (intact) database: only then is moving it
    aside the advice to give."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is None:
        return True  # not from SQLite's C core (our own checks): as before
    return code & 0xFF in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB)


def _retry_while_busy(action: Callable[[], _T]) -> _T:
    """Run `action`, retrying for up to the busy timeout while the file is locked.

    Opening has moments where SQLite reports SQLITE_BUSY without consulting the busy handler:
    switching a new file to WAL while another process does the same, or reading the WAL index
    while another connection recovers or checkpoints it.
    """
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    delay = 0.002
    while True:
        try:
            return action()
        except sqlite3.Error as exc:
            if not _is_busy(exc) or time.monotonic() >= deadline:
                raise
        time.sleep(delay)
        delay = min(delay * 2, 0.05)


class Database:
    """An open store file: a serialised connection plus `read()` / `write()` scopes.

    The connection may be used from several threads; a lock makes each scope exclusive.
    Every `sqlite3` failure inside a scope surfaces as a one-line `StoreError` naming the file.
    """

    def __init__(self, path: Path, connection: sqlite3.Connection) -> None:
        self.path = path
        self._connection: sqlite3.Connection | None = connection
        self._lock = threading.RLock()

    @classmethod
    def open(cls, path: Path, migrations: Sequence[Migration] = MIGRATIONS) -> Database:
        """Create the directory and file if needed, set the pragmas and apply `migrations`."""
        path = Path(path).expanduser()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            if not path.exists():
                # Owner-only: turns hold command output. SQLite gives -wal/-shm the same mode.
                os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600))
        except OSError as exc:
            detail = DISK_FULL if is_full_disk_os_error(exc) else _one_line(exc)
            raise StoreError(f"cannot create the store {path}: {detail}") from exc
        if path.is_dir():
            raise StoreError(f"cannot open the store {path}: it is a directory")
        try:
            connection = sqlite3.connect(
                path,
                timeout=BUSY_TIMEOUT_MS / 1000,
                isolation_level=None,
                check_same_thread=False,
            )
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open the store {path}: {_one_line(exc)}") from exc
        database = cls(path, connection)
        try:
            database._configure()
            database._migrate(migrations)
        except BaseException:
            database.close()
            raise
        return database

    def close(self) -> None:
        """Close the connection; later calls fail with `StoreError`. Closing twice is fine."""
        with self._lock:
            if self._connection is not None:
                self._connection.close()
                self._connection = None

    @property
    def schema_version(self) -> int:
        """`PRAGMA user_version`: how many migration steps this file has run."""
        with self.read() as connection:
            return _user_version(connection)

    @contextmanager
    def read(self) -> Iterator[sqlite3.Connection]:
        """The connection for reads; each statement sees one consistent snapshot."""
        with self._lock:
            connection = self._live()
            try:
                yield connection
            except sqlite3.Error as exc:
                raise self._error("cannot read", exc) from exc

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """One short transaction, committed when the block ends and rolled back on error."""
        with self._lock:
            connection = self._live()
            try:
                connection.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as exc:
                raise self._error("cannot write", exc) from exc
            try:
                yield connection
                connection.execute("COMMIT")
            except BaseException as exc:
                if connection.in_transaction:
                    with suppress(sqlite3.Error):  # the original error is the one to report
                        connection.execute("ROLLBACK")
                if isinstance(exc, sqlite3.Error):
                    raise self._error("cannot write", exc) from exc
                raise

    def _live(self) -> sqlite3.Connection:
        if self._connection is None:
            raise StoreError(f"the store {self.path} is closed")
        return self._connection

    def _error(self, doing: str, exc: sqlite3.Error) -> StoreError:
        if _is_busy(exc):
            detail = f"busy for more than {BUSY_TIMEOUT_MS // 1000} s (another aish writing?)"
        elif is_disk_full(exc, self.path):
            detail = DISK_FULL
        else:
            detail = _one_line(exc)
        return StoreError(f"{doing} the store {self.path}: {detail}")

    def _configure(self) -> None:
        """Set the connection's pragmas; a file SQLite cannot read fails here."""
        try:
            _retry_while_busy(self._set_pragmas)
        except sqlite3.Error as exc:
            if _is_busy(exc) or is_disk_full(exc, self.path):
                raise self._error("cannot open", exc) from exc
            if not os.access(self.path.parent, os.W_OK) or not os.access(self.path, os.W_OK):
                # WAL mode needs to write beside the file: a read-only place, not a bad file.
                raise StoreError(
                    f"cannot open the store {self.path}: it or its directory is not writable"
                ) from exc
            if not _is_damaged(exc):  # an I/O error says nothing about the file's contents
                raise self._error("cannot open", exc) from exc
            raise StoreError(
                f"cannot open the store {self.path}: {_one_line(exc)} "
                "(corrupted, or not an aish database; move it aside to start afresh)"
            ) from exc

    def _set_pragmas(self) -> None:
        connection = self._live()
        connection.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        # The first read of the header: a file that is not SQLite fails here.
        application_id = connection.execute("PRAGMA application_id").fetchone()[0]
        if application_id not in (0, APPLICATION_ID):
            raise StoreError(f"the store {self.path} is another program's SQLite database")
        # Querying first: a file already in WAL mode (the usual case) needs no switch.
        mode = connection.execute("PRAGMA journal_mode").fetchone()[0]
        if str(mode).lower() != "wal":
            mode = connection.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        if str(mode).lower() != "wal":
            raise StoreError(f"the store {self.path} cannot use WAL mode (got {mode!r})")
        # Under WAL, NORMAL syncs at checkpoints rather than at every commit. A commit is in
        # the WAL file (the OS's page cache) when COMMIT returns, so a crash or kill -9 of aish
        # loses nothing; only an OS crash or power loss can drop the last commits, and even
        # then the database stays consistent.
        connection.execute("PRAGMA synchronous = NORMAL")
        connection.execute("PRAGMA foreign_keys = ON")

    def _migrate(self, migrations: Sequence[Migration]) -> None:
        known = len(migrations)
        with self.read() as connection:
            version = _user_version(connection)
        self._check_version(version, known)
        if version == known:
            return
        with self.write() as connection:
            # Another process may have migrated while we waited for the write lock.
            version = _user_version(connection)
            self._check_version(version, known)
            for number in range(version + 1, known + 1):
                step = migrations[number - 1]
                for statement in step.statements:
                    try:
                        connection.execute(statement)
                    except sqlite3.Error as exc:
                        raise StoreError(
                            f"cannot upgrade the store {self.path} to schema version {number} "
                            f"({step.description}): {_one_line(exc)}"
                        ) from exc
                connection.execute(f"PRAGMA user_version = {number}")

    def _check_version(self, version: int, known: int) -> None:
        if version > known:
            raise StoreVersionError(
                f"the store {self.path} has schema version {version}, newer than this aish "
                f"knows ({known}); upgrade aish or use another store file"
            )


def _user_version(connection: sqlite3.Connection) -> int:
    return int(connection.execute("PRAGMA user_version").fetchone()[0])
