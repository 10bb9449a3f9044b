"""What a session spends (§11): every model call into the usage ledger, a warning at each
`cost.warn_at_dollars` threshold crossed, and the stop at `cost.stop_at_dollars`.

Each `UsageRecorded` event — chat, Norris, the preplanner, the second opinion, summaries,
descriptions — arrives here once, already priced (`store.pricing`), and becomes one ledger row.
Only known costs count toward the thresholds; a call nothing could price is recorded as
unknown, never as $0. Once the stop is reached, calls to models off this machine are refused
(`refuse`, consulted by `agent.outbound` before every call) until `:cost limit <usd>` raises it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from aish.endpoints import is_loopback_endpoint

if TYPE_CHECKING:
    from aish.agent.events import UsageRecorded
    from aish.config.schema import CostConfig
    from aish.llm.types import ModelTarget
    from aish.store import Store

_log = logging.getLogger("aish.spending")


class SessionSpending:
    """The ledger rows, the running total and the thresholds of one session."""

    def __init__(
        self,
        store: Store | None,
        session_id: int | None,
        cost: CostConfig,
        *,
        say: Callable[[str], None],
    ) -> None:
        self._store = store
        self._session_id = session_id
        self._say = say
        self.total = 0.0
        if store is not None and session_id is not None:
            self.total = _resumed_total(store, session_id)
        self.limit = cost.stop_at_dollars
        # A resumed session already crossed some thresholds: they were said back then.
        self._pending = sorted(t for t in cost.warn_at_dollars if t > self.total)
        self._ledger_failed = False

    def record(self, event: UsageRecorded) -> None:
        """One model call: a ledger row, the total, and a warning for a threshold crossed."""
        self._write(event)
        if event.cost_usd is not None:
            self.total += event.cost_usd
        crossed = [t for t in self._pending if self.total >= t]
        if crossed:
            self._pending = [t for t in self._pending if t not in crossed]
            self._say(
                f"this session has spent ${self.total:.4f}, past cost.warn_at_dollars "
                f"${crossed[-1]:g}"
            )

    def refuse(self, target: ModelTarget) -> str | None:
        """Why a call to `target` must not be made now (None: it may)."""
        if self.limit is None or self.total < self.limit:
            return None
        if is_loopback_endpoint(target.endpoint) and target.price is None:
            return None  # a model on this machine costs nothing
        return (
            f"cost.stop_at_dollars reached: this session spent ${self.total:.4f} of "
            f"${self.limit:g}; `:cost limit <usd>` raises the limit"
        )

    def _write(self, event: UsageRecorded) -> None:
        if self._store is None:
            return
        from aish.store import StoreError, UsageRow

        row = UsageRow(
            category=event.category,
            preset=event.preset,
            model=event.model,
            prompt_tokens=event.prompt_tokens,
            completion_tokens=event.completion_tokens,
            cached_tokens=event.cached_tokens,
            cost_usd=event.cost_usd,
            cost_source=event.cost_source if event.cost_usd is not None else "unknown",
            estimated=event.estimated,
        )
        try:
            self._store.record_usage(self._session_id, row)
        except (StoreError, ValueError) as error:
            _log.warning("usage not recorded: %r", error)
            if not self._ledger_failed:  # said once; the session goes on without its ledger
                self._ledger_failed = True
                self._say(f"usage ledger unavailable: {error}")


def _resumed_total(store: Store, session_id: int) -> float:
    from aish.store import StoreError

    try:
        return store.session_cost(session_id)
    except StoreError:
        return 0.0
