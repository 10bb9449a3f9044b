"""One chat turn in the REPL: the question, the streamed reply, then its proposed commands.

The newest user message carries the commands run since the last reply; the round trip itself
(streaming, logging, committing) is an `Exchange`. Each complete `CMD:` line of the reply (a
partial reply is marked cut) goes through the gate, and only what the
gate authorizes runs — in the user's shell, through the runner the frontend supplies, which
takes nothing but the gate's `Authorization`. Cancelling a question, or interrupting a command
the gate ran without asking, stops the rest of the reply's proposals. The second opinion is
never asked of a model that answered this turn (the routed model, or the fallback when it
answered): without another judge the action is not cleared, so it asks (see `second_opinion`).

Both go through the propose → authorize → run loop Norris shares (`agent.action_loop`); chat's
reactions are `_CommandReactions` and `_ToolCallReactions` at the end of this module.

The tool sub-loop: a reply that calls tools has each call judged by the gate (it asks unless
the call is auto-approved and flagged by nothing), run by the frontend's tool executor, and
answered with its result; then the model is asked again on the same prefix, until it answers
in text, the user cancels, or the turn made `max_tool_calls` calls (the calls over it are
answered with the limit, and the turn ends with one status line). `CMD:` lines of every reply
of the turn are proposed once the sub-loop is over.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Protocol

from aish.agent import command_docs, gate
from aish.agent.action_loop import Next, carry_out
from aish.agent.actions import (
    CommandLine,
    DelegateLine,
    capped,
    extract_command_lines,
    extract_delegations,
)
from aish.agent.events import CommandProposed, Frontend, Status, UsageRecorded
from aish.agent.exchange import Exchange, TurnLog
from aish.agent.outbound import REQUEST_FAILURES, RequestFailure
from aish.agent.proposals import Proposal, tool_call_proposals
from aish.agent.streaming import complete_lines
from aish.agent.toolbox import (
    CANCELLED,
    DECLINED,
    INTERRUPTED,
    LIMIT,
    ToolBox,
    ToolExecutor,
    ToolRound,
    offered,
)
from aish.conversation.context import CALL_STOPPED, CommandRun, Conversation
from aish.llm.types import Message, ModelTarget, Reply, ToolCall, ToolSpec

if TYPE_CHECKING:
    from aish.agent.context_budget import ContextBudget
    from aish.agent.norris import Delegator
    from aish.agent.outbound import Outbound
    from aish.agent.second_opinion import Opinion, SecondOpinion
    from aish.agent.shell_facts import FactsSource
    from aish.run.jobs import Job
    from aish.safety.verdict import Verdict

AuthorizedRunner = Callable[[gate.Authorization], Awaitable[CommandRun]]
"""Runs what the gate authorized in the user's shell (redeeming the authorization first, so
anything the gate did not issue is refused) → what the model will be told."""

JobStarter = Callable[[gate.Authorization], Awaitable["Job"]]
"""Starts what the gate authorized for the background (a `CMD&:` line) as a job of the user's
shell, redeeming it first; raises `aish.run.jobs.JobNotStarted` with the reason."""


class ChatFrontend(Frontend, gate.Confirmer, Protocol):
    """A frontend that can also ask the user about proposed commands."""


@dataclass
class ChatOutcome:
    reply: Reply = field(default_factory=Reply)
    error: RequestFailure | None = None
    commands: list[str] = field(default_factory=list)
    ran: list[CommandRun] = field(default_factory=list)
    # Tool calls the model made this turn (answered, run or not).
    tool_calls: int = 0
    # The user cancelled at a confirm prompt: nothing more of the turn was proposed.
    cancelled: bool = False


# The exit status of a command the user stopped with Ctrl-C (128 + SIGINT).
_INTERRUPTED = 130

_RUNS_UNASKED = "[{level}] runs without asking (safety.confirm_cmd = false)"
_DELEGATE_DESCRIBED = (
    "The model hands this sub-goal to an autonomous (Norris) run on the named preset: a fresh "
    "conversation holding only the sub-goal, in a shell of the agent's own, within the "
    "[norris] delegate_* bounds. Safe steps run, others HALT for you. The model gets a "
    "summary of how it went."
)
_IN_THE_BACKGROUND = (
    "CMD&: runs in the background; the prompt comes back at once, :jobs shows it, and its "
    "result goes with your next question"
)
_TOOL_UNASKED = "[{level}] {name} runs without asking (auto_approve)"


@dataclass
class ChatTurn:
    conversation: Conversation
    target: ModelTarget
    frontend: ChatFrontend
    run_authorized: AuthorizedRunner
    log: TurnLog
    policy: gate.Policy = field(default_factory=lambda: gate.Policy("interactive"))
    # When given, asked for each action instead of `policy`: the config of the directory the
    # user's shell is in at that moment (an earlier command of the reply may have `cd`-ed).
    policy_source: gate.PolicySource | None = None
    # One per session (it caches answers); None: no second opinion at all.
    second_opinion: SecondOpinion | None = None
    # The MCP tools and their executor; without both no tools are offered.
    tools: ToolBox[Any] | None = None
    run_tool: ToolExecutor | None = None
    max_tool_calls: int = 8
    # `CMD:` lines proposed from one turn's replies; the rest are dropped, and the model is
    # told (safety.max_commands_per_reply).
    max_commands: int = 10
    # Each request is asked once more here when the model fails before showing anything
    # (routing.cloud_fallback); None: no fallback.
    fallback: ModelTarget | None = None
    # Evicts the oldest exchanges when the request would be over budget; None: never.
    budget: ContextBudget | None = None
    # The live state of the user's shell, which runs the commands (see gate.assess).
    shell_facts: FactsSource | None = None
    # The session's door every request of the turn passes (None: the policy's). The turn has
    # one door: every policy it judges with redeems placeholders with the same vault.
    outbound: Outbound | None = None
    # Starts `CMD&:` lines as background jobs; None: they are refused (nothing to start them).
    start_job: JobStarter | None = None
    # Hands a `DELEGATE:` line to a bounded Norris sub-run after the user's yes; None: refused.
    delegator: Delegator | None = None
    # The tool list of this turn's requests, for the side questions asked on its prefix.
    _specs: Sequence[ToolSpec] = field(default=(), init=False, repr=False)
    # This turn's round trip: which models answered it, so none of them judges its actions.
    _exchange: Exchange | None = field(default=None, init=False, repr=False)

    async def ask(self, question: str, *, cwd: str = "") -> ChatOutcome:
        """The whole turn. Cancelling it while the reply streams keeps the partial reply."""
        outcome = ChatOutcome()
        specs = offered(self.target, self.tools) if self.run_tool is not None else ()
        self._specs = specs  # side questions on this conversation carry the same tool list
        newest = await self._newest(question, cwd, specs)
        exchange = Exchange(
            self.conversation,
            self.target,
            self.frontend,
            self.log,
            tools=specs,
            fallback=self.fallback,
            counter=self.budget.counter if self.budget is not None else None,
            outbound=self._outbound(),
        )
        self._exchange = exchange
        outcome.error = await exchange.stream(
            newest, outcome.reply, cwd=cwd, logged={"text": question}
        )
        said = [complete_lines(outcome.reply)]
        if self.conversation.unanswered_tool_calls():
            await self._tool_loop(exchange, outcome, said)
        if outcome.cancelled:
            return outcome
        if not outcome.reply.cut and not await self._offer_diffs("\n".join(said), cwd):
            # A cut reply's diff may be missing files: none of it is offered.
            outcome.cancelled = True
            pending = len(extract_command_lines("\n".join(said)))
            if pending:
                self.frontend.render(Status(f"cancelled: {pending} proposed command(s) not run"))
            return outcome
        lines, dropped = capped(extract_command_lines("\n".join(said)), self.max_commands)
        outcome.commands = [line.command for line in lines]
        if dropped is not None:
            self.frontend.render(Status(dropped))
            self.conversation.note(dropped)
            self.log("note", {"text": dropped})
        proposals = [self._proposal(line) for line in lines]
        carried = await carry_out(proposals, _CommandReactions(self, outcome))
        delegations = extract_delegations("\n".join(said))
        if delegations and carried == "done":
            await self._delegate(delegations, outcome)
        return outcome

    async def _delegate(self, lines: list[DelegateLine], outcome: ChatOutcome) -> None:
        """The reply's first `DELEGATE:` line, on the user's yes (the others are refused: one
        a reply); the sub-run's summary is told with the next question."""
        from aish.agent.norris import delegation_refused
        from aish.safety.verdict import Verdict

        line, *others = lines
        for other in others:
            self._say_and_note(delegation_refused(other, "one delegation a reply"))
        if self.delegator is None:
            self._say_and_note(delegation_refused(line, "delegation is not available here"))
            return
        target = self.delegator.target(line, depth=0)
        if isinstance(target, str):
            self._say_and_note(delegation_refused(line, target))
            return
        bounds = self.delegator.caps
        text = f"DELEGATE: {line.preset}: {line.goal}"
        within = ", ".join(bounds.describe()[:3])
        verdict = Verdict(
            "unknown",
            (
                f"hands this sub-goal to a Norris run on preset {line.preset} ({within})",
                "each of its steps passes the same gate (HALTs ask you)",
            ),
        )
        while (answer := await self.frontend.confirm_command(text, verdict)) == "describe":
            await self.frontend.show_description(text, _DELEGATE_DESCRIBED)
        if answer == "cancel":
            outcome.cancelled = True
            self.frontend.render(Status(f"cancelled: delegation to {line.preset} not run"))
            return
        if answer not in ("yes", "always", "project"):
            self._say_and_note(delegation_refused(line, "declined by the user"))
            return
        self.log("delegate", {"preset": line.preset, "goal": line.goal, "depth": 1})
        # What the sub-run's commands print reaches this turn's models through its words.
        scrubbed = self.policy.scrubbed or any(
            model is not None and model.scrub_secrets for model in (self.target, self.fallback)
        )
        result = await self.delegator.sub_run(target, line.goal, bounds, scrubbed)
        told = self.delegator.told(line, target, result, bounds, parent_scrubbed=scrubbed)
        self.conversation.note(told)
        self.log("note", {"text": told})
        self.frontend.render(Status(told.splitlines()[1]))

    def _say_and_note(self, said: str) -> None:
        self.frontend.render(Status(said))
        self.conversation.note(f"[aish] {said}")
        self.log("note", {"text": f"[aish] {said}"})

    def _proposal(self, line: CommandLine) -> Proposal:
        if line.background and self.start_job is None:
            why = "background jobs (CMD&:) cannot be started here"
            return Proposal.refused(line.command, why, background=True)
        return Proposal.command(line.command, background=line.background)

    async def _offer_diffs(self, text: str, cwd: str) -> bool:
        """The reply's diffs, each applied only on the user's word and the gate's; False when
        the user cancelled."""
        if "@@" not in text:
            return True  # no hunk, no diff: the parser stays unloaded
        from aish.agent.diff_review import offer_diffs

        return await offer_diffs(
            text,
            cwd or ".",
            self.frontend,
            self.frontend,
            self._policy_for(gate.ProposedCommand("git apply")),
            self.run_authorized,
            self.log,
        )

    async def _newest(self, question: str, cwd: str, specs: Sequence[ToolSpec]) -> Message:
        """The turn's user message, once the conversation has room for its request."""

        def build() -> Message:
            return self.conversation.user_message(question, cwd=cwd)

        if self.budget is None:
            return build()
        return await self.budget.make_room(
            self.conversation,
            build,
            self.target,
            tools=specs,
            on_event=self.frontend.render,
            log=self.log,
        )

    async def authorize(self, action: gate.Action) -> gate.Authorization:
        """The gate's answer about one of this turn's actions: the user is asked here."""
        return await gate.authorize(
            action,
            self._policy_for(action),
            confirmer=self.frontend,
            describe=self.describe,
            judge=self._judge if self.second_opinion is not None else None,
            facts=self.shell_facts,
            log=self.log,
        )

    def _policy_for(self, action: gate.Action) -> gate.Policy:
        policy = self.policy if self.policy_source is None else self.policy_source(action)
        return _through(policy, self._outbound())

    def _outbound(self) -> Outbound:
        if self.outbound is None:
            self.outbound = self.policy.outbound
        return self.outbound

    # ---- the tool sub-loop -------------------------------------------------------------------

    async def _tool_loop(self, exchange: Exchange, outcome: ChatOutcome, said: list[str]) -> None:
        """Answer the calls, ask again, until the model answers in text or the loop stops."""
        assert self.run_tool is not None
        answers = ToolRound(self.conversation, self.frontend, self.log, self.run_tool)
        try:
            while calls := self.conversation.unanswered_tool_calls():
                if not await self._answer_calls(calls, answers, outcome):
                    return
                reply = outcome.reply = Reply()
                outcome.error = await exchange.follow_up(reply)
                said.append(complete_lines(reply))
        except asyncio.CancelledError:
            answers.answer_rest(INTERRUPTED)
            raise
        finally:
            # Whatever stopped the loop, every call has its answer (the APIs insist).
            answers.answer_rest(CALL_STOPPED)

    async def _answer_calls(
        self, calls: list[ToolCall], answers: ToolRound, outcome: ChatOutcome
    ) -> bool:
        """One reply's calls through the gate; False when the loop must stop here."""
        assert self.tools is not None
        room = max(self.max_tool_calls - outcome.tool_calls, 0)
        proposals = tool_call_proposals(calls, self.tools, room)
        carried = await carry_out(proposals, _ToolCallReactions(self, outcome, answers))
        return carried == "done"

    async def _judge(self, text: str, verdict: Verdict) -> Opinion | None:
        assert self.second_opinion is not None
        return await self.second_opinion.judge(
            text, verdict, proposers=self._proposers(), on_event=self.frontend.render
        )

    def _proposers(self) -> tuple[ModelTarget, ...]:
        """The models whose replies this turn's actions come from."""
        answered = self._exchange.answered_by if self._exchange is not None else ()
        return answered if self.target in answered else (self.target, *answered)

    async def describe(self, command: str) -> str:
        """The model's explanation of a command, asked on the conversation's own prefix with
        the local documentation of its options; without a model, that documentation."""
        explanation = await command_docs.explained(command, self.policy.user_rules)
        question = Message("user", command_docs.describe_question(command, explanation))
        try:
            messages = self.conversation.request(question)
            reply = await self._outbound().chat(self.target, messages, self._specs or None)
            if reply.usage is not None:
                self.frontend.render(UsageRecorded.of(self.target, reply.usage, "describe"))
            text = reply.text.strip() or "(the model gave no description)"
        except REQUEST_FAILURES as error:
            text = command_docs.offline_description(explanation, str(error))
        self.log("description", {"command": command, "text": text})
        return text


@dataclass
class _CommandReactions:
    """A chat turn's reactions to its `CMD:` lines: a declined or denied command is skipped and
    the next one offered; a cancel leaves the rest unrun, and so does a Ctrl-C on a command that
    ran without asking (the user's only chance to say no)."""

    turn: ChatTurn
    outcome: ChatOutcome

    def unusable(self, proposal: Proposal, rest: Sequence[Proposal]) -> Next:
        # A `CMD&:` line that cannot be started as a job: refused before anyone is asked.
        said = f"not run: {proposal.text} ({proposal.error})"
        self.turn.frontend.render(Status(said))
        self._note(f"[aish] {said}")
        return "continue"

    async def authorize(self, proposal: Proposal, action: gate.Action) -> gate.Authorization:
        self.turn.frontend.render(CommandProposed(proposal.text))
        if proposal.background:
            self.turn.frontend.render(Status(_IN_THE_BACKGROUND))
        return await self.turn.authorize(action)

    def stopped(
        self, proposal: Proposal, authorization: gate.Authorization, rest: Sequence[Proposal]
    ) -> None:
        skipped = len(rest) + 1
        self.turn.frontend.render(Status(f"cancelled: {skipped} proposed command(s) not run"))

    def not_run(
        self, proposal: Proposal, authorization: gate.Authorization, rest: Sequence[Proposal]
    ) -> Next:
        self.turn.frontend.render(Status(_not_run(proposal.text, authorization)))
        return "continue"

    def unasked(self, proposal: Proposal, authorization: gate.Authorization) -> None:
        level = authorization.verdict.level
        self.turn.frontend.render(Status(_RUNS_UNASKED.format(level=level)))

    async def run_authorized(self, proposal: Proposal, authorization: gate.Authorization) -> bool:
        if proposal.background:
            return await self._start_job(authorization)
        run = await self.turn.run_authorized(authorization)
        self.outcome.ran.append(run)
        return run.exit_status == 0

    async def _start_job(self, authorization: gate.Authorization) -> bool:
        from aish.run.jobs import JobNotStarted

        assert self.turn.start_job is not None
        command = authorization.command
        try:
            job = await self.turn.start_job(authorization)
        except JobNotStarted as error:
            said = f"not started: {command} ({error})"
            self.turn.frontend.render(Status(said))
            self._note(f"[aish] {said}")
            return False
        self.turn.frontend.render(Status(f"[{job.number}] started in the background: {command}"))
        self._note(
            f"[aish] background job {job.number} started: {command} (its exit status and "
            "output come with the first message after it ends)"
        )
        return True

    def _note(self, text: str) -> None:
        self.turn.conversation.note(text)
        self.turn.log("note", {"text": text})

    def ran(
        self,
        proposal: Proposal,
        authorization: gate.Authorization,
        succeeded: bool,
        rest: Sequence[Proposal],
    ) -> Next:
        if proposal.background:
            return "continue"
        interrupted = self.outcome.ran[-1].exit_status == _INTERRUPTED
        if authorization.outcome == "auto" and interrupted and rest:
            said = f"interrupted: {len(rest)} proposed command(s) not run"
            self.turn.frontend.render(Status(said))
            return "stop"
        return "continue"


@dataclass
class _ToolCallReactions:
    """A chat turn's reactions to one reply's tool calls: each is answered whether it ran or
    not; a declined or denied call is answered so and the next one offered; a cancel, or the
    turn's limit, answers the rest unrun and ends the tool sub-loop."""

    turn: ChatTurn
    outcome: ChatOutcome
    answers: ToolRound

    def unusable(self, proposal: Proposal, rest: Sequence[Proposal]) -> Next:
        assert proposal.call is not None
        frontend = self.turn.frontend
        if proposal.over_limit:
            # The limit is the turn's, not this reply's share of it.
            limit = self.turn.max_tool_calls
            left = self.answers.answer_rest(LIMIT.format(limit=limit))
            frontend.render(
                Status(
                    f"tool-call limit reached ({limit} calls this turn, "
                    f"mcp.max_tool_calls): {left} more not run"
                )
            )
            return "stop"
        self.outcome.tool_calls += 1
        self.answers.answer(proposal.call, proposal.error, is_error=True)
        frontend.render(Status(f"not run: {proposal.call.name} ({proposal.error})"))
        return "continue"

    async def authorize(self, proposal: Proposal, action: gate.Action) -> gate.Authorization:
        self.outcome.tool_calls += 1
        return await self.turn.authorize(action)

    def stopped(
        self, proposal: Proposal, authorization: gate.Authorization, rest: Sequence[Proposal]
    ) -> None:
        left = self.answers.answer_rest(CANCELLED)
        self.turn.frontend.render(Status(f"cancelled: {left} tool call(s) not run"))
        self.outcome.cancelled = True

    def not_run(
        self, proposal: Proposal, authorization: gate.Authorization, rest: Sequence[Proposal]
    ) -> Next:
        assert proposal.call is not None
        denied = authorization.outcome == "denied"
        answer = _not_run(proposal.call.name, authorization) if denied else DECLINED
        self.answers.answer(proposal.call, answer)
        self.turn.frontend.render(Status(_not_run(proposal.text, authorization)))
        return "continue"

    def unasked(self, proposal: Proposal, authorization: gate.Authorization) -> None:
        assert proposal.call is not None
        level, name = authorization.verdict.level, proposal.call.name
        self.turn.frontend.render(Status(_TOOL_UNASKED.format(level=level, name=name)))

    async def run_authorized(self, proposal: Proposal, authorization: gate.Authorization) -> bool:
        assert proposal.prepared is not None
        result = await self.answers.run_authorized(proposal.prepared, authorization)
        return not result.is_error

    def ran(
        self,
        proposal: Proposal,
        authorization: gate.Authorization,
        succeeded: bool,
        rest: Sequence[Proposal],
    ) -> Next:
        return "continue"


def _through(policy: gate.Policy, outbound: Outbound) -> gate.Policy:
    """`policy`, redeeming placeholders with `outbound`'s vault."""
    if policy.outbound is outbound:
        return policy
    return replace(policy, outbound=outbound)


def _not_run(command: str, authorization: gate.Authorization) -> str:
    """The status line for a proposal that did not run; a denied one says which rule."""
    if authorization.outcome == "denied" and authorization.verdict.reasons:
        return f"not run: {command} ({authorization.verdict.reasons[0]})"
    return f"not run: {command}"
