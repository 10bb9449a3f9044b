"""The session log: every turn of the session, as it happens, in the store.

aish keeps working without its log: a store that fails is said once. A log over the REPL's
store (shared with memory, trust and the ledger) keeps the store open and goes on trying; a log
that opened a store of its own (`aish goal`) gives it up and goes on without one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from aish.store import SessionInfo, Store

__all__ = ["SessionLog"]


class SessionLog:
    """Appends (kind, payload) turns to the store under the session's id."""

    def __init__(
        self,
        store: Store | None,
        info: SessionInfo | None,
        *,
        say: Callable[[str], None],
        owns_store: bool = False,
    ) -> None:
        self.store = store
        self.info = info
        self._say = say
        self._owns_store = owns_store
        self._failed = False

    @classmethod
    def open(cls, *, cwd: str, model: str, say: Callable[[str], None]) -> SessionLog:
        """A store of its own, with a new session in it; without one when it cannot open."""
        from aish.store import Store, StoreError

        log = cls(None, None, say=say, owns_store=True)
        try:
            log.store = Store.open()
            log.info = log.store.start_session(cwd=cwd, model=model)
        except StoreError as error:
            log._lost(error)
        return log

    @property
    def session_id(self) -> int | None:
        """The session the turns are logged as; None while there is no log."""
        return self.info.id if self.info is not None else None

    def append(self, kind: str, payload: Mapping[str, Any]) -> None:
        from aish.store import StoreError

        if self.store is None or self.info is None:
            return
        try:
            self.store.append_turn(self.info.id, kind, payload)
        except StoreError as error:
            if self._owns_store:
                self._lost(error)
            elif not self._failed:  # say it once; aish keeps working without its log
                self._failed = True
                self._say(f"session log unavailable: {error}")

    def close(self) -> None:
        """Close a store the log opened itself (a shared one is its opener's to close)."""
        if self._owns_store and self.store is not None:
            self.store.close()
            self.store = None

    def _lost(self, error: Exception) -> None:
        self._say(f"session log unavailable, going on without it: {error}")
        self.info = None
        self.close()
