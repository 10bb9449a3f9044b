"""One round trip with the model on a conversation: send, stream, commit, log.

Shared by the chat turn and each Norris step. The newest user message is built by the caller
(it carries the dynamic context); the reply streams to the frontend and into the session log
(at most once a second, so a crash mid-reply loses nothing already shown); a model slow to
start says so. Afterwards the exchange joins the conversation — a partial reply marked cut — and
the log; a request that produced nothing at all leaves the conversation untouched, so the next
request is not a dangling user turn.

The tools offered (`tools`, fixed for the exchange: the catalogue snapshot of this turn) go
with every request of the exchange. A reply's tool calls join the conversation only when tools
were offered — a model that calls a tool it was never given is told so in a note instead, so
no request ever carries a call without the tool list it belongs to. `follow_up` asks for the
next reply once the caller has answered every call.

Cloud fallback (SPEC §8): a request whose model fails in transport (`fallback_eligible`) before
anything of the reply was shown is sent once more, unchanged, to `fallback`, after a status line
saying so. Only that request: the next one goes to `target` again. The reply then belongs to
the preset that answered — the log's `model` and the usage name it. A reply that had begun
never falls back (what was shown stays, once), nor does a cancelled one.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from aish.agent.events import (
    AgentEvent,
    AssistantDelta,
    Frontend,
    RequestFailed,
    Status,
)
from aish.agent.fallback import UntilShown, fallback_status, falls_back, reset_reply
from aish.agent.outbound import RequestFailure
from aish.agent.streaming import stream_reply
from aish.agent.toolbox import with_distinct_ids
from aish.conversation.context import Conversation, tool_calls_payload
from aish.llm.types import Message, ModelTarget, Reply, ToolCall, ToolSpec

_log = logging.getLogger("aish.chat")

if TYPE_CHECKING:
    from aish.conversation.tokens import TokenCounter

TurnLog = Callable[[str, Mapping[str, Any]], None]
"""Appends one turn (kind, payload) to the session log."""

# Before this, silence is a model starting; after it, the user is told what aish waits for.
_WAITING_AFTER_S = 0.5


class _LoggedProgress:
    """Passes events to the frontend and logs the reply's text as it arrives (at most once a
    second), so a crash or `kill -9` mid-reply loses nothing already shown.

    `started`: the frontend was told anything (a retry, a status); `shown`: some of the reply
    itself (see `UntilShown`, which holds back the end of a reply cut before that).
    """

    _EVERY_S = 1.0

    def __init__(self, frontend: Frontend, log: TurnLog) -> None:
        self._frontend = UntilShown(frontend)
        self._log = log
        self._unlogged = ""
        self._last = time.monotonic()
        self.started = False

    @property
    def shown(self) -> bool:
        return self._frontend.shown

    def render(self, event: AgentEvent) -> None:
        self.started = True
        self._frontend.render(event)
        if isinstance(event, AssistantDelta):
            self._unlogged += event.text
            if time.monotonic() - self._last >= self._EVERY_S:
                self._log("assistant_delta", {"text": self._unlogged})
                self._unlogged = ""
                self._last = time.monotonic()

    def release(self) -> None:
        """Pass on the held end of a cut reply: the failure is to be shown after all."""
        self._frontend.release()


@dataclass
class Exchange:
    """Sends one user message on `conversation` to `target` and records the reply."""

    conversation: Conversation
    target: ModelTarget
    frontend: Frontend
    log: TurnLog
    # What the call's usage counts as (`chat`, `norris`, …).
    category: str = "chat"
    # Offered with every request of this exchange; empty: no tools.
    tools: Sequence[ToolSpec] = ()
    # Asked once more when a request to `target` fails in transport before anything of the
    # reply was shown (routing.cloud_fallback); None: no fallback.
    fallback: ModelTarget | None = None
    # Learns each model's tokens from the usage its server reports; None: nothing learns.
    counter: TokenCounter | None = None
    # The preset whose reply the current request commits: `target`, or `fallback` after one.
    _answering: ModelTarget | None = field(default=None, init=False, repr=False)
    _answered_by: list[ModelTarget] = field(default_factory=list, init=False, repr=False)

    @property
    def answered_by(self) -> tuple[ModelTarget, ...]:
        """Every preset that answered a request of this exchange (the fallback included when
        it answered one): the models whose words the proposed actions are."""
        return tuple(self._answered_by)

    async def stream(
        self, newest: Message, reply: Reply, *, cwd: str, logged: Mapping[str, Any]
    ) -> RequestFailure | None:
        """Stream the reply to `newest` into `reply` (the caller's, so a cancelled caller
        still holds the partial text) and commit both. `logged` is the user turn's payload
        for the session log (`message` is added). A failure is shown and returned; cancelling
        keeps the partial reply and re-raises."""
        self.log("user", {**logged, "message": newest.content, "cwd": cwd})
        messages = self.conversation.request(newest)
        return await self._send(messages, reply, lambda: self._commit(newest, reply, cwd))

    async def follow_up(self, reply: Reply) -> RequestFailure | None:
        """Stream the model's next reply after the tool messages that end the history (every
        call of its last reply answered) into `reply`, and commit it, as `stream` does."""
        messages = self.conversation.follow_up_request()
        return await self._send(messages, reply, lambda: self._commit_follow_up(reply))

    async def _send(
        self, messages: list[Message], reply: Reply, commit: Callable[[], None]
    ) -> RequestFailure | None:
        self._answering = self.target
        try:
            error, progress = await self._attempt(self.target, messages, reply)
            if error is not None and falls_back(error, progress.shown, self.target, self.fallback):
                assert self.fallback is not None
                text = fallback_status(self.target, error, self.fallback)
                self.log("status", {"text": text})
                self.frontend.render(Status(text))
                reset_reply(reply)
                self._answering = self.fallback
                error, progress = await self._attempt(self.fallback, messages, reply)
        except asyncio.CancelledError:
            self._answered(self._answering)
            commit()
            raise
        self._answered(self._answering)
        progress.release()
        self._observe(messages, reply)
        commit()
        if error is not None:
            message = str(error)
            self.log("status", {"text": message})
            self.frontend.render(RequestFailed(type(error).__name__, message))
        return error

    def _answered(self, target: ModelTarget | None) -> None:
        if target is not None and target not in self._answered_by:
            self._answered_by.append(target)

    async def _attempt(
        self, target: ModelTarget, messages: list[Message], reply: Reply
    ) -> tuple[RequestFailure | None, _LoggedProgress]:
        """One request to `target`, streamed into `reply`."""
        progress = _LoggedProgress(self.frontend, self.log)
        waiting = asyncio.create_task(self._say_waiting(target, progress))
        try:
            error = await stream_reply(
                target,
                messages,
                progress,
                reply,
                category=self.category,
                # The same tools, whatever the fallback's `tools` says: its history may hold
                # tool rounds, and a strict API refuses those without the tool list.
                tools=self.tools,
            )
        except asyncio.CancelledError:
            progress.release()
            raise
        finally:
            waiting.cancel()
        if error is not None:
            # The terminal got one line; the log keeps what happened (docs/troubleshooting.md).
            _log.warning(
                "%s request to %s failed: %s", self.category, target.name, error, exc_info=error
            )
        return error, progress

    def _observe(self, messages: list[Message], reply: Reply) -> None:
        target = self._answering or self.target
        if self.counter is not None and reply.usage is not None:
            from aish.conversation.tokens import model_key

            self.counter.observe(model_key(target), messages, self.tools, reply.usage)

    async def _say_waiting(self, target: ModelTarget, progress: _LoggedProgress) -> None:
        # A slow model (loading, a long prompt to process) must not look like a hung aish.
        await asyncio.sleep(_WAITING_AFTER_S)
        if not progress.started:
            self.frontend.render(Status(f"waiting for {target.name}…"))

    def _commit(self, newest: Message, reply: Reply, cwd: str) -> None:
        if not reply.text and reply.cut:
            # Nothing came back: the question stays out of the history (its pending
            # context stays pending), so the next request is not a dangling user turn.
            return
        calls = self._calls(reply)
        self.conversation.commit(newest, reply.text, cut=reply.cut, cwd=cwd, tool_calls=calls)
        self._logged(reply, calls)
        self._not_offered(reply)

    def _commit_follow_up(self, reply: Reply) -> None:
        if not reply.text and reply.cut:
            # Nothing came back: the history still ends in the tool results, which is a
            # request the model can be asked again.
            return
        calls = self._calls(reply)
        self.conversation.commit_follow_up(reply.text, cut=reply.cut, tool_calls=calls)
        self._logged(reply, calls, follow_up=True)
        self._not_offered(reply)

    def _calls(self, reply: Reply) -> tuple[ToolCall, ...]:
        if not self.tools or reply.cut:
            return ()
        return with_distinct_ids(reply.tool_calls)

    def _logged(self, reply: Reply, calls: Sequence[ToolCall], *, follow_up: bool = False) -> None:
        answering = self._answering or self.target
        payload: dict[str, Any] = {"text": reply.text, "cut": reply.cut, "model": answering.name}
        if calls:
            payload["tool_calls"] = tool_calls_payload(calls)
        if follow_up:
            payload["after_tools"] = True
        self.log("assistant", payload)

    def _not_offered(self, reply: Reply) -> None:
        if self.tools or reply.cut:
            return
        for call in reply.tool_calls:
            # Said after the commit, so it rides in the next user message.
            text = f"[aish] no tools are offered here; {call.name} was not called"
            self.conversation.note(text)
            self.log("note", {"text": text})
