"""The session's memory: the `[background]` block kept up to date with the store, and
`:memory summarize` on this session's log.

Any aish process may change what is remembered; before each turn the store's memory version
is compared and the items are read again only when it moved. A store that fails is said once
and the model goes on with what it was told.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from aish.conversation.background import render_background

if TYPE_CHECKING:
    from aish.agent.events import AgentEvent
    from aish.agent.memory_summary import Candidate
    from aish.agent.outbound import Outbound
    from aish.config.schema import AishConfig
    from aish.conversation.context import Conversation
    from aish.store import Store


class SessionMemory:
    """What one session remembers and tells; the store is shared with other processes."""

    def use_config(self, config: AishConfig) -> None:
        """A reloaded config's memory settings, from the next refresh on."""
        self._config = config

    def __init__(
        self,
        store: Store,
        config: AishConfig,
        *,
        status: Callable[[str], None],
        render: Callable[[AgentEvent], None],
        log: Callable[[str, Mapping[str, Any]], None],
        outbound: Outbound | None = None,
    ) -> None:
        self.store = store
        self._outbound = outbound  # the session's door: the summarizer's question passes it
        self._config = config
        self._status = status
        self._render = render
        self._log = log
        self._block = ""
        self._version: int | None = None
        self._failed = False

    def prune(self) -> None:
        """`memory.prune_older_than_days`, once at start."""
        from aish.store import StoreError

        days = self._config.memory.prune_older_than_days
        if days is None:
            return
        try:
            if count := self.store.prune_memory(days):
                self._status(f"memory: forgot {count} items older than {days} days")
        except StoreError as error:
            self._status(f"memory: not pruned: {error}")

    def refresh(self, conversation: Conversation) -> None:
        """Bring the conversation's block up to date with the store."""
        from aish.store import StoreError

        try:
            version = self.store.memory_version()
            if version != self._version:
                items = self.store.active_memory()
                self._block = render_background(items, self._config.memory.inject_max_chars)
                self._version = version
        except StoreError as error:
            if not self._failed:  # say it once; the model goes on with what it was told
                self._failed = True
                self._status(f"memory unavailable: {error}")
        conversation.background = self._block

    def block(self, conversation: Conversation, *, force: bool = False) -> str:
        self.refresh(conversation)
        conversation.background_forced = force or conversation.background_forced
        return self._block

    async def summarize(self, session_id: int, model: str) -> list[Candidate]:
        from aish.agent.memory_summary import SUMMARY_KIND, summarize
        from aish.session.model_targets import resolve_target

        config = self._config
        name = config.memory.summarizer_model or ("fast" if "fast" in config.models else None)
        target = resolve_target(config, name or model, os.environ)
        turns = [(t.kind, t.payload) for t in self.store.turns(session_id)]
        text, candidates = await summarize(target, turns, self._render, self._outbound)
        if text:
            self._log(SUMMARY_KIND, {"text": text, "model": target.name})
        return candidates
