"""The request log: one JSON record per request, kept in memory and optionally as JSON lines."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any


class RequestLog:
    """Thread-safe append-only log; each record is flushed to the file at once."""

    def __init__(self, path: Path | None = None) -> None:
        self._records: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._file = path.open("a", encoding="utf-8") if path is not None else None

    def append(self, record: dict[str, Any]) -> None:
        """Add ``record`` (and write it as one line when logging to a file)."""
        line = json.dumps(record, ensure_ascii=False)
        with self._lock:
            self._records.append(json.loads(line))  # a copy, exactly as written
            if self._file is not None:
                self._file.write(line + "\n")
                self._file.flush()

    @property
    def records(self) -> list[dict[str, Any]]:
        """A snapshot of all records so far."""
        with self._lock:
            return list(self._records)

    def close(self) -> None:
        """Close the log file (the in-memory records stay available)."""
        with self._lock:
            if self._file is not None:
                self._file.close()
                self._file = None
