"""`??` (and its key): one corrected command for the command that just failed — proposed, never
run.

The question is an exchange on the session's conversation, as a chat turn's is: the same system
prompt, the same tool list for the preset, and what changes in the newest user message only —
where the failed command, its exit status and its bounded output already are, among the runs
since the last reply. It goes through the session's door (secrets scrubbed, the spending stop)
and its usage into the ledger. The reply's first `CMD:` line is the proposal; the gate judges it
as it judges a command proposed in chat, and the caller puts it in the line editor, where it
runs only as the user's own line, when they press Enter.

"Since the last question": a question commits the runs it told, so a failure among the pending
runs is one the model has not been asked about yet.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from aish.agent import gate, placeholders
from aish.agent.actions import extract_commands
from aish.agent.events import Frontend
from aish.agent.exchange import Exchange, TurnLog
from aish.agent.streaming import complete_lines
from aish.agent.toolbox import ToolOutcome, ToolRound
from aish.llm.types import Message, ModelTarget, Reply, ToolSpec

if TYPE_CHECKING:
    from aish.agent.context_budget import ContextBudget
    from aish.agent.outbound import Outbound
    from aish.agent.shell_facts import FactsSource
    from aish.conversation.context import CommandRun, Conversation

__all__ = ["NO_FAILURE", "FixProposal", "FixTurn", "last_failure"]

NO_FAILURE = "no command failed since your last question: nothing to fix"
NO_COMMAND = "the model proposed no command"

# The words of the newest user message after the context block; the log keeps "??".
FIX_QUESTION = (
    "[aish: the user pressed the fix key] `{command}` failed with exit status {status} (its "
    "output is above). Reply with the corrected command on one line starting with CMD:, and "
    "at most one short sentence on what was wrong. It is not run: the user edits or runs it."
)
# A tool call in the reply is answered so (every call must be), and nothing is called.
_NO_TOOLS = "[aish] not run: a fix is one CMD: line, not tool calls"


def last_failure(conversation: Conversation) -> CommandRun | None:
    """The newest run since the last question that ended with a non-zero status."""
    return next((run for run in reversed(conversation.pending) if run.exit_status != 0), None)


@dataclass(frozen=True)
class FixProposal:
    """What goes into the line editor, and what the gate thinks of it."""

    # As the user's shell will read it: secret placeholders back to their values.
    command: str
    # The gate's verdict on the command as the model wrote it (placeholders and all).
    assessment: gate.Assessment


@dataclass
class FixTurn:
    conversation: Conversation
    target: ModelTarget
    frontend: Frontend
    log: TurnLog
    policy: gate.Policy
    outbound: Outbound
    # The chat's tool list for this preset: the request's prefix stays the chat's.
    tools: Sequence[ToolSpec] = ()
    policy_source: gate.PolicySource | None = None
    fallback: ModelTarget | None = None
    budget: ContextBudget | None = None
    shell_facts: FactsSource | None = None
    reply: Reply = field(default_factory=Reply)

    async def propose(self, cwd: str) -> FixProposal | str | None:
        """The proposal; or one line to say why there is none (None: the failed request
        was shown already). Cancelling keeps the partial reply in the conversation."""
        failed = last_failure(self.conversation)
        if failed is None:
            return NO_FAILURE
        question = FIX_QUESTION.format(command=failed.command, status=failed.exit_status)
        newest = await self._newest(question, cwd)
        exchange = Exchange(
            self.conversation,
            self.target,
            self.frontend,
            self.log,
            category="fix",
            tools=self.tools,
            fallback=self.fallback,
            counter=self.budget.counter if self.budget is not None else None,
            outbound=self.outbound,
        )
        try:
            error = await exchange.stream(newest, self.reply, cwd=cwd, logged={"text": "??"})
        finally:
            if self.conversation.unanswered_tool_calls():
                ToolRound(self.conversation, self.frontend, self.log, _no_tools).answer_rest(
                    _NO_TOOLS
                )
        if error is not None:
            return None
        commands = extract_commands(complete_lines(self.reply))
        if not commands:
            return NO_COMMAND
        return await self._judged(commands[0])

    async def _judged(self, command: str) -> FixProposal:
        action = gate.ProposedCommand(command)
        policy = self.policy if self.policy_source is None else self.policy_source(action)
        if policy.outbound is not self.outbound:
            policy = replace(policy, outbound=self.outbound)
        assessment = await gate.assess(action, policy, facts=self.shell_facts)
        if placeholders.MARK in command:
            command = placeholders.command_with_values(command, self.outbound.vault)
        return FixProposal(command, assessment)

    async def _newest(self, question: str, cwd: str) -> Message:
        def build() -> Message:
            return self.conversation.user_message(question, cwd=cwd)

        if self.budget is None:
            return build()
        return await self.budget.make_room(
            self.conversation,
            build,
            self.target,
            tools=self.tools,
            on_event=self.frontend.render,
            log=self.log,
        )


async def _no_tools(authorization: gate.Authorization) -> ToolOutcome:
    raise AssertionError("a fix runs no tools")  # its ToolRound only answers calls
