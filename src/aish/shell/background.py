"""Output that arrives outside any command: background jobs, the user's rc files, job notices.

It goes to the consumer's callback as it comes (the REPL prints it above its prompt); without a
callback, the newest 64 KiB are kept until taken, so a chatty job cannot grow aish's memory.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable

__all__ = ["BackgroundOutput"]

_log = logging.getLogger("aish.shell")
LIMIT = 64 * 1024


class BackgroundOutput:
    def __init__(self, callback: Callable[[bytes], None] | None, *, limit: int = LIMIT) -> None:
        self._callback = callback
        self._limit = limit
        self._kept: deque[bytes] = deque()
        self._size = 0

    def deliver(self, data: bytes) -> None:
        if self._callback is not None:
            try:
                self._callback(data)
            except Exception:  # the consumer's failure must not break the PTY reader
                _log.exception("background output consumer failed")
            return
        self._kept.append(data)
        self._size += len(data)
        while self._size > self._limit and len(self._kept) > 1:
            self._size -= len(self._kept.popleft())

    def take(self) -> bytes:
        """What was kept, oldest first; the buffer is emptied."""
        data = b"".join(self._kept)
        self._kept.clear()
        self._size = 0
        return data
