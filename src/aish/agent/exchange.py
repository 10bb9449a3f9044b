"""One round trip with the model on a conversation: send, stream, commit, log.

Shared by the chat turn and each Norris step. The newest user message is built by the caller
(it carries the dynamic context); the reply streams to the frontend and into the session log
(at most once a second, so a crash mid-reply loses nothing already shown); a model slow to
start says so. Afterwards the exchange joins the conversation — a partial reply marked cut — and
the log; a request that produced nothing at all leaves the conversation untouched, so the next
request is not a dangling user turn.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from aish.agent.events import AgentEvent, AssistantDelta, Frontend, RequestFailed, Status
from aish.agent.streaming import stream_reply
from aish.conversation.context import Conversation
from aish.llm.errors import LLMError
from aish.llm.types import Message, ModelTarget, Reply

TurnLog = Callable[[str, Mapping[str, Any]], None]
"""Appends one turn (kind, payload) to the session log."""

# Before this, silence is a model starting; after it, the user is told what aish waits for.
_WAITING_AFTER_S = 0.5


class _LoggedProgress:
    """Passes events to the frontend and logs the reply's text as it arrives (at most once a
    second), so a crash or `kill -9` mid-reply loses nothing already shown."""

    _EVERY_S = 1.0

    def __init__(self, frontend: Frontend, log: TurnLog) -> None:
        self._frontend = frontend
        self._log = log
        self._unlogged = ""
        self._last = time.monotonic()
        self.started = False

    def render(self, event: AgentEvent) -> None:
        self.started = True
        self._frontend.render(event)
        if isinstance(event, AssistantDelta):
            self._unlogged += event.text
            if time.monotonic() - self._last >= self._EVERY_S:
                self._log("assistant_delta", {"text": self._unlogged})
                self._unlogged = ""
                self._last = time.monotonic()


@dataclass
class Exchange:
    """Sends one user message on `conversation` to `target` and records the reply."""

    conversation: Conversation
    target: ModelTarget
    frontend: Frontend
    log: TurnLog
    # What the call's usage counts as (`chat`, `norris`, …).
    category: str = "chat"

    async def stream(
        self, newest: Message, reply: Reply, *, cwd: str, logged: Mapping[str, Any]
    ) -> LLMError | None:
        """Stream the reply to `newest` into `reply` (the caller's, so a cancelled caller
        still holds the partial text) and commit both. `logged` is the user turn's payload
        for the session log (`message` is added). A failure is shown and returned; cancelling
        keeps the partial reply and re-raises."""
        self.log("user", {**logged, "message": newest.content, "cwd": cwd})
        messages = self.conversation.request(newest)
        progress = _LoggedProgress(self.frontend, self.log)
        waiting = asyncio.create_task(self._say_waiting(progress))
        try:
            error = await stream_reply(
                self.target, messages, progress, reply, category=self.category
            )
        except asyncio.CancelledError:
            self._commit(newest, reply, cwd)
            raise
        finally:
            waiting.cancel()
        self._commit(newest, reply, cwd)
        if error is not None:
            message = str(error)
            self.log("status", {"text": message})
            self.frontend.render(RequestFailed(type(error).__name__, message))
        return error

    async def _say_waiting(self, progress: _LoggedProgress) -> None:
        # A slow model (loading, a long prompt to process) must not look like a hung aish.
        await asyncio.sleep(_WAITING_AFTER_S)
        if not progress.started:
            self.frontend.render(Status(f"waiting for {self.target.name}…"))

    def _commit(self, newest: Message, reply: Reply, cwd: str) -> None:
        if not reply.text and reply.cut:
            # Nothing came back: the question stays out of the history (its pending
            # context stays pending), so the next request is not a dangling user turn.
            return
        self.conversation.commit(newest, reply.text, cut=reply.cut, cwd=cwd)
        self.log("assistant", {"text": reply.text, "cut": reply.cut, "model": self.target.name})
