"""One chat turn in the REPL: the question, the streamed reply, then its proposed commands.

The newest user message carries the commands run since the last reply; the round trip itself
(streaming, logging, committing) is an `Exchange`. Each complete `CMD:` line of the reply (a
partial reply is marked cut) goes through the gate, and only what the
gate authorizes runs — in the user's shell, through the runner the frontend supplies, which
takes nothing but the gate's `Authorization`. Cancelling a question, or interrupting a command
the gate ran without asking, stops the rest of the reply's proposals. The second opinion, when
it has to ask the active model, asks on this conversation's prefix (see `second_opinion`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from aish.agent import gate
from aish.agent.actions import extract_commands
from aish.agent.events import CommandProposed, Frontend, Status
from aish.agent.exchange import Exchange, TurnLog
from aish.agent.streaming import complete_lines
from aish.conversation.context import CommandRun, Conversation
from aish.llm.errors import LLMError
from aish.llm.types import Message, ModelTarget, Reply

if TYPE_CHECKING:
    from aish.agent.second_opinion import Opinion, SecondOpinion
    from aish.safety.verdict import Verdict

AuthorizedRunner = Callable[[gate.Authorization], Awaitable[CommandRun]]
"""Runs what the gate authorized in the user's shell (redeeming the authorization first, so
anything the gate did not issue is refused) → what the model will be told."""


class ChatFrontend(Frontend, gate.Confirmer, Protocol):
    """A frontend that can also ask the user about proposed commands."""


@dataclass
class ChatOutcome:
    reply: Reply = field(default_factory=Reply)
    error: LLMError | None = None
    commands: list[str] = field(default_factory=list)
    ran: list[CommandRun] = field(default_factory=list)


# The exit status of a command the user stopped with Ctrl-C (128 + SIGINT).
_INTERRUPTED = 130

_RUNS_UNASKED = "[{level}] runs without asking (safety.confirm_cmd = false)"

_DESCRIBE = (
    "Explain briefly what this command would do, step by step, and whether it changes or "
    "deletes anything. Do not propose other commands.\n\n{command}"
)


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
        exchange = Exchange(self.conversation, self.target, self.frontend, self.log)
        outcome.error = await exchange.stream(
            newest, outcome.reply, cwd=cwd, logged={"text": question}
        )
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
