"""One chat turn in the REPL: the question, the streamed reply, then its proposed commands.

The newest user message carries the commands run since the last reply. The reply streams to
the frontend and into the session log (at most once a second, so a crash mid-reply loses nothing
already shown); a model slow to start says so. The reply (partial and marked cut if it broke
off) joins the conversation; each complete `CMD:` line goes through the gate, and only what the
gate authorizes runs — in the user's shell, through the runner the frontend supplies, which
takes nothing but the gate's `Authorization`. Cancelling a question, or interrupting a command
the gate ran without asking, stops the rest of the reply's proposals. The second opinion, when
it has to ask the active model, asks on this conversation's prefix (see `second_opinion`).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from aish.agent import gate
from aish.agent.actions import extract_commands
from aish.agent.events import (
    AgentEvent,
    AssistantDelta,
    CommandProposed,
    Frontend,
    RequestFailed,
    Status,
)
from aish.agent.streaming import complete_lines, stream_reply
from aish.conversation.context import CommandRun, Conversation
from aish.llm.errors import LLMError
from aish.llm.types import Message, ModelTarget, Reply

if TYPE_CHECKING:
    from aish.agent.second_opinion import Opinion, SecondOpinion
    from aish.safety.verdict import Verdict

AuthorizedRunner = Callable[[gate.Authorization], Awaitable[CommandRun]]
"""Runs what the gate authorized in the user's shell (redeeming the authorization first, so
anything the gate did not issue is refused) → what the model will be told."""

TurnLog = Callable[[str, Mapping[str, Any]], None]
"""Appends one turn (kind, payload) to the session log."""


class ChatFrontend(Frontend, gate.Confirmer, Protocol):
    """A frontend that can also ask the user about proposed commands."""


@dataclass
class ChatOutcome:
    reply: Reply = field(default_factory=Reply)
    error: LLMError | None = None
    commands: list[str] = field(default_factory=list)
    ran: list[CommandRun] = field(default_factory=list)


# Before this, silence is a model starting; after it, the user is told what aish waits for.
_WAITING_AFTER_S = 0.5

# The exit status of a command the user stopped with Ctrl-C (128 + SIGINT).
_INTERRUPTED = 130

_RUNS_UNASKED = "[{level}] runs without asking (safety.confirm_cmd = false)"

_DESCRIBE = (
    "Explain briefly what this command would do, step by step, and whether it changes or "
    "deletes anything. Do not propose other commands.\n\n{command}"
)


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
class ChatTurn:
    conversation: Conversation
    target: ModelTarget
    frontend: ChatFrontend
    run_authorized: AuthorizedRunner
    log: TurnLog
    policy: gate.Policy = field(default_factory=lambda: gate.Policy("interactive"))
    # One per session (it caches answers); None: no second opinion at all.
    second_opinion: SecondOpinion | None = None

    async def ask(self, question: str, *, cwd: str = "") -> ChatOutcome:
        """The whole turn. Cancelling it while the reply streams keeps the partial reply."""
        outcome = ChatOutcome()
        newest = self.conversation.user_message(question, cwd=cwd)
        self.log("user", {"text": question, "message": newest.content, "cwd": cwd})
        messages = self.conversation.request(newest)
        progress = _LoggedProgress(self.frontend, self.log)
        waiting = asyncio.create_task(self._say_waiting(progress))
        try:
            outcome.error = await stream_reply(self.target, messages, progress, outcome.reply)
        except asyncio.CancelledError:
            self._commit(newest, outcome.reply, cwd)
            raise
        finally:
            waiting.cancel()
        self._commit(newest, outcome.reply, cwd)
        if outcome.error is not None:
            message = str(outcome.error)
            self.log("status", {"text": message})
            self.frontend.render(RequestFailed(type(outcome.error).__name__, message))
        outcome.commands = extract_commands(complete_lines(outcome.reply))
        for index, command in enumerate(outcome.commands):
            self.frontend.render(CommandProposed(command))
            authorization = await self._authorize(command)
            if authorization.outcome == "cancel":
                skipped = len(outcome.commands) - index
                self.frontend.render(Status(f"cancelled: {skipped} proposed command(s) not run"))
                break
            if not authorization.run:
                self.frontend.render(Status(f"not run: {command}"))
                continue
            unasked = authorization.outcome == "auto"
            if unasked:
                self.frontend.render(
                    Status(_RUNS_UNASKED.format(level=authorization.verdict.level))
                )
            run = await self.run_authorized(authorization)
            outcome.ran.append(run)
            rest = len(outcome.commands) - index - 1
            if unasked and run.exit_status == _INTERRUPTED and rest:
                # The user's Ctrl-C was their only chance to say no: it stops the rest too.
                self.frontend.render(Status(f"interrupted: {rest} proposed command(s) not run"))
                break
        return outcome

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

    async def _authorize(self, command: str) -> gate.Authorization:
        authorization = await gate.authorize(
            gate.ProposedCommand(command),
            self.policy,
            confirmer=self.frontend,
            describe=self.describe,
            judge=self._judge if self.second_opinion is not None else None,
        )
        verdict = authorization.verdict
        self.log(
            "decision",
            {
                "command": command,
                "level": verdict.level,
                "reasons": list(verdict.reasons),
                "decision": authorization.decision,
                "answer": authorization.outcome,
                "ran": authorization.command if authorization.run else None,
            },
        )
        return authorization

    async def _judge(self, text: str, verdict: Verdict) -> Opinion | None:
        assert self.second_opinion is not None
        # On the active model it asks on this conversation's prefix, which that server has
        # cached; the question is sent, never committed.
        return await self.second_opinion.judge(
            text,
            verdict,
            fallback=self.target,
            on_event=self.frontend.render,
            prefix=self.conversation.request,
        )

    async def describe(self, command: str) -> str:
        """The model's explanation of a command, asked on the conversation's own prefix."""
        from aish.llm.broker import chat

        question = Message("user", _DESCRIBE.format(command=command))
        try:
            reply = await chat(self.target, self.conversation.request(question))
            text = reply.text.strip() or "(the model gave no description)"
        except LLMError as error:
            text = f"(no description: {error})"
        self.log("description", {"command": command, "text": text})
        return text
