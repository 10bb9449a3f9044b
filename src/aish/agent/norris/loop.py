"""Norris: the model pursues a goal on its own, one step at a time, inside hard bounds.

One step is one streamed round trip (an `Exchange` on the user's conversation, so `:history`
shows the run and every exit keeps the context), then the actions the reply proposed — at most
`bounds.commands_per_step` of its `CMD:` lines (the model is told the rest were not run) and
`max_tool_calls` tool calls, so a run of N steps runs a bounded number of actions — in order,
each through the gate in Norris mode (or headless mode for `aish goal`): `safe` runs unattended,
`unknown` asks the second opinion, `destructive` and a YES halt for the user's proceed / skip /
abort. The second opinion is never a model that proposed the step — the executor, the
preplanner, or a fallback that answered it; with no other judge, `unknown` halts. The run says
at its start which judge it has. What ran — output, exit status, cwd — goes into the next step's
message; so does a skip ("[aish] action skipped by user: …"). Commands run in the agent's own
shell (`AgentShell`). A reply's tool calls are actions too, after its commands: the same gate,
the same skip, repeat and failure rules (a tool's error is a failure), but each is answered by a
tool message right after the reply, whether it ran, was skipped or never got its turn.

With a preplanner the run first asks it for tasks (`preplan`); each step then names the current
one, and the run moves to the next task after a step whose actions all succeeded, or one the
user skipped; a failed step stays on its task.

A run ends as `done` (GOAL: complete, once that reply's actions all ran and succeeded — if one
failed or was skipped the model sees that first), `blocked` (GOAL: blocked), `stalled` (no action
and no GOAL line), `aborted` (the user), `stuck` (an action proposed again after it was skipped,
or after it failed with nothing changed since), `tasks_complete` (every task done),
`budget_exhausted` (steps, wall clock, tokens, cost, or consecutive skips), `halted` (headless:
an action needed a person, or a step waited for terminal input — "needs your input", see
`input_halt`) or `failed` (the model could not be reached). After a failed command
or a skip the rest of that reply is not run: the model re-plans from the result. The actions go
through the propose → authorize → run loop chat shares; Norris's reactions are in `dispatch`.

Time spent waiting for the user at a HALT does not count against the wall clock, and a command
the user approved gets the whole per-command timeout: the bound is for the agent, not the person.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Protocol

from aish.agent import gate
from aish.agent.actions import (
    CommandLine,
    DelegateLine,
    GoalLine,
    capped,
    extract_command_lines,
    extract_delegations,
    extract_goal,
)
from aish.agent.events import (
    AgentEvent,
    CommandFinished,
    CommandStarted,
    Frontend,
    Halt,
    NorrisEnded,
    NorrisStarted,
    NorrisStatus,
    NorrisStep,
    Status,
    UsageRecorded,
)
from aish.agent.exchange import Exchange, TurnLog
from aish.agent.norris.bounds import NorrisBounds
from aish.agent.norris.dispatch import RunEnds, StepDispatch, StepOutcome
from aish.agent.norris.prompt import INSTRUCTIONS, StepFacts, step_message
from aish.agent.proposals import Proposal, tool_call_proposals
from aish.agent.streaming import complete_lines
from aish.agent.toolbox import ToolBox, ToolExecutor, ToolRound, offered
from aish.conversation.context import CommandRun, Conversation
from aish.llm.types import Message, ModelTarget, Reply, ToolSpec
from aish.run.input_wait import InputWaitHandler, NeedsInput
from aish.run.record import Record, record_run

if TYPE_CHECKING:
    from aish.agent.context_budget import ContextBudget
    from aish.agent.norris.delegation import Delegator
    from aish.agent.outbound import Outbound
    from aish.agent.second_opinion import Opinion, SecondOpinion
    from aish.agent.shell_facts import FactsSource
    from aish.run.jobs import Job
    from aish.safety.verdict import Verdict

__all__ = ["BackgroundJobs", "CommandRunner", "NorrisFrontend", "NorrisResult", "NorrisRun"]

_log = logging.getLogger("aish.norris")


class CommandRunner(Protocol):
    """Runs what the gate authorized (redeeming it) with a timeout, and records the run with
    `record` on its way out, asking `on_input` about a command that waits for terminal input:
    `aish.run.agent_shell.AgentShell.run_authorized`."""

    def __call__(
        self,
        authorization: gate.Authorization,
        timeout_s: float,
        *,
        record: Record,
        on_input: InputWaitHandler | None = None,
    ) -> Awaitable[CommandRun]: ...


class NorrisFrontend(Frontend, gate.HaltPrompt, Protocol):
    """Shows the run and answers its HALTs."""


class BackgroundJobs(Protocol):
    """Where `CMD&:` steps run as background jobs: `aish.run.agent_shell.AgentShell`.
    `start_job` redeems the authorization first; `on_job_end` is told when a job ends."""

    on_job_end: Callable[[Job], None] | None

    async def start_job(self, authorization: gate.Authorization) -> Job: ...

    def running_jobs(self) -> list[Job]: ...

    async def wait_for_jobs(self, timeout_s: float) -> list[Job]: ...


@dataclass(frozen=True)
class NorrisResult:
    status: NorrisStatus
    reason: str
    steps: int
    elapsed_s: float
    tokens: int
    cost_usd: float | None
    cwd: str
    pending_action: str | None = None
    # Each command the run ran, with its exit status (what a scrubbed parent is told of a
    # delegated run whose model's words it may not read).
    commands: tuple[tuple[str, int], ...] = ()


# The answer of a tool call whose step ended before its turn came (the run ended, or the model
# said the goal is blocked).
_STEP_ENDED = "[aish] not run: the step ended before this call ran"


@dataclass
class _Spending:
    """Tokens and cost of every model call the run made (the usage events pass through)."""

    frontend: Frontend
    tokens: int = 0
    cost_usd: float | None = None

    def render(self, event: AgentEvent) -> None:
        if isinstance(event, UsageRecorded):
            self.tokens += event.prompt_tokens + event.completion_tokens
            if event.cost_usd is not None:
                self.cost_usd = (self.cost_usd or 0.0) + event.cost_usd
        self.frontend.render(event)


@dataclass
class _HaltAtStep:
    """The frontend's HALT question, preceded by the banner naming the step; says how long
    the user took (that time is theirs, not the run's)."""

    frontend: NorrisFrontend
    step: int
    max_steps: int
    waited: Callable[[float], None]

    async def halt_action(self, action: str, verdict: Verdict) -> gate.HaltAnswer:
        self.frontend.render(
            Halt(
                self.step,
                self.max_steps,
                action,
                verdict.level,
                tuple(verdict.reasons),
                verdict.touches,
            )
        )
        asked = time.monotonic()
        try:
            return await self.frontend.halt_action(action, verdict)
        finally:
            self.waited(time.monotonic() - asked)


@dataclass
class NorrisRun:
    """One goal, run to its end. `run()` returns how it ended; cancelling it (Ctrl-C) stops
    the running command, reports `aborted`, and re-raises."""

    goal: str
    conversation: Conversation
    target: ModelTarget  # the executor
    frontend: NorrisFrontend
    run_authorized: CommandRunner
    cwd: Callable[[], str]  # the agent shell's cwd
    log: TurnLog
    policy: gate.Policy
    bounds: NorrisBounds = field(default_factory=NorrisBounds)
    second_opinion: SecondOpinion | None = None
    # Asked for tasks when the run starts (norris.preplanner); None: a single-model run.
    planner: ModelTarget | None = None
    tasks_max: int = 16
    preplan_system: str | None = None
    # Tasks planned already (then the planner is not asked) and who planned them.
    tasks: tuple[str, ...] = ()
    planned_by: str | None = None
    # The MCP tools and their executor; without both no tools are offered.
    tools: ToolBox[Any] | None = None
    run_tool: ToolExecutor | None = None
    # Tool calls run from one reply at most; the rest are answered with the limit.
    max_tool_calls: int = 8
    # A step's request is asked once more here when the executor fails before showing
    # anything (routing.cloud_fallback); the next step asks the executor again.
    fallback: ModelTarget | None = None
    # Evicts the oldest exchanges (never summarised here) when a step's request would be over
    # budget; None: never.
    budget: ContextBudget | None = None
    # The live state of the agent's shell, which runs the steps (see gate.assess).
    shell_facts: FactsSource | None = None
    # When given, asked for each action instead of `policy`: the config of the directory the
    # agent's shell is in at that step (the run may `cd` into another project).
    policy_source: gate.PolicySource | None = None
    # The session's door every request of the run passes (None: the policy's). The run has
    # one door: every policy it judges with redeems placeholders with the same vault.
    outbound: Outbound | None = None
    # Where `CMD&:` steps start background jobs (the agent's shell); None: they are refused.
    jobs: BackgroundJobs | None = None
    # Hands `DELEGATE:` lines to sub-runs (`delegation`); None: they are refused. `depth` 1 is
    # a delegated run itself, which may not delegate again.
    delegator: Delegator | None = None
    depth: int = 0
    # What its commands print reaches a scrubbed model though its own models do not scrub: a
    # delegated run whose model's words go back to a scrubbing parent.
    output_reaches_scrubbed_model: bool = False

    def __post_init__(self) -> None:
        if self.outbound is None:
            self.outbound = self.policy.outbound
        elif self.policy.outbound is not self.outbound:
            self.policy = dataclasses.replace(self.policy, outbound=self.outbound)
        models = (self.target, self.planner, self.fallback)
        # What its commands print reaches a scrubbed model: the gate keeps secrets home.
        self._scrubbed = self.output_reaches_scrubbed_model or any(
            model is not None and model.scrub_secrets for model in models
        )
        if self._scrubbed:
            self.policy = dataclasses.replace(self.policy, scrubbed=True)
        self._spending = _Spending(self.frontend)
        self._answers: ToolRound | None = None
        if self.run_tool is not None:
            self._answers = ToolRound(self.conversation, self._spending, self.log, self.run_tool)
        self._started = 0.0
        self._waiting_s = 0.0  # at HALT prompts
        self._step = 0
        self._ran: list[tuple[str, int]] = []
        self._task = 0  # index into the plan's tasks
        self._dispatch = StepDispatch(
            self._spending,
            self.bounds,
            self._authorize,
            self._run,
            self._answers,
            self._note,
            lambda: self._step,
            self._start_job if self.jobs is not None else None,
        )
        self._exchange: Exchange | None = None  # this step's: who answered it
        if self.jobs is not None:
            self.jobs.on_job_end = self._job_ended

    async def run(self) -> NorrisResult:
        self._started = time.monotonic()
        try:
            await self._plan()
            tasks = self.tasks
            judge = self._judge_line()
            self.frontend.render(
                NorrisStarted(
                    self.goal,
                    self.bounds.describe(),
                    self.target.name,
                    tasks,
                    self.planned_by,
                    judge,
                )
            )
            self.log(
                "norris_start",
                {"goal": self.goal, "model": self.target.name, "tasks": tasks, "judge": judge},
            )
            status, reason, pending = await self._steps()
        except asyncio.CancelledError:
            self._finish("aborted", "interrupted (Ctrl-C)", None)
            raise
        return self._finish(status, reason, pending)

    async def _plan(self) -> None:
        if self.planner is None or self.tasks:
            return
        from aish.agent.norris.preplanner import preplan

        try:
            async with asyncio.timeout(_finite(self._remaining_s())):
                plan = await preplan(
                    self.goal,
                    self.planner,
                    tasks_max=self.tasks_max,
                    system=self.preplan_system,
                    on_event=self._spending.render,
                    outbound=self.outbound,
                )
        except TimeoutError:
            limit = self.bounds.wall_clock
            self.frontend.render(Status(f"preplan failed: no plan within {limit}"))
            return
        self.frontend.render(Status(plan.status))
        self.tasks = plan.tasks
        self.planned_by = plan.preset if plan.tasks else None

    async def _steps(self) -> tuple[NorrisStatus, str, str | None]:
        try:
            while True:
                self._check_bounds()
                goal, outcome = await self._one_step()
                if goal is not None and goal.state == "blocked":
                    return "blocked", goal.detail or "the model gave no reason", None
                if goal is not None and outcome == "ok":
                    return "done", goal.detail or "the model says the goal is complete", None
                if self.tasks and outcome in ("ok", "skipped"):
                    self._task += 1
        except RunEnds as end:
            return end.status, end.reason, end.pending

    def _check_bounds(self) -> None:
        bounds = self.bounds
        if self.tasks and self._task >= len(self.tasks):
            raise RunEnds("tasks_complete", f"all {len(self.tasks)} planned tasks done")
        if self._step >= bounds.max_steps:
            raise RunEnds("budget_exhausted", f"step limit reached ({bounds.max_steps} steps)")
        if self._remaining_s() <= 0:
            raise RunEnds("budget_exhausted", f"wall-clock limit reached ({bounds.wall_clock})")
        if bounds.token_cap is not None and self._spending.tokens >= bounds.token_cap:
            raise RunEnds("budget_exhausted", f"token cap reached ({bounds.token_cap:,} tokens)")
        cost = self._spending.cost_usd
        if bounds.cost_cap_usd is not None and cost is not None and cost >= bounds.cost_cap_usd:
            raise RunEnds("budget_exhausted", f"cost cap reached (${bounds.cost_cap_usd:g})")

    def _remaining_s(self) -> float:
        if self.bounds.wall_clock_s is None:
            return float("inf")
        used = time.monotonic() - self._started - self._waiting_s
        return self.bounds.wall_clock_s - used

    def _waited(self, seconds: float) -> None:
        self._waiting_s += seconds

    # ---- one step ----------------------------------------------------------------------------

    async def _one_step(self) -> tuple[GoalLine | None, StepOutcome]:
        self._step += 1
        facts = self._facts()
        self.frontend.render(
            NorrisStep(facts.step, facts.max_steps, facts.task, facts.task_index, facts.task_count)
        )
        cwd = self.cwd()
        specs = offered(self.target, self.tools) if self._answers is not None else ()
        text, newest = await self._step_message(facts, cwd, specs)
        exchange = Exchange(
            self.conversation,
            self.target,
            self._spending,
            self.log,
            "norris",
            tools=specs,
            fallback=self.fallback,
            counter=self.budget.counter if self.budget is not None else None,
            outbound=self.outbound,
        )
        self._exchange = exchange
        reply = Reply()
        try:
            async with asyncio.timeout(_finite(self._remaining_s())):
                error = await exchange.stream(
                    newest, reply, cwd=cwd, logged={"text": text, "norris_step": self._step}
                )
        except TimeoutError:
            raise RunEnds(
                "budget_exhausted",
                f"wall-clock limit reached ({self.bounds.wall_clock}) while the model answered",
            ) from None
        if error is not None:
            raise RunEnds("failed", str(error))
        said = complete_lines(reply)
        goal = extract_goal(said)
        try:
            if goal is not None and goal.state == "blocked":
                return goal, "ok"  # nothing more is run for a model that says it cannot go on
            lines = extract_command_lines(said)
            commands, dropped = capped(lines, self.bounds.commands_per_step)
            if dropped is not None:
                self.frontend.render(Status(dropped))
                self._note(dropped)
            delegations = extract_delegations(said)
            if not commands and goal is None and not reply.tool_calls and not delegations:
                if await self._waited_for_jobs():
                    return None, "waited"
                raise RunEnds("stalled", "the reply proposed no action and no GOAL line")
            proposals = [self._proposal(line) for line in commands]
            proposals += self._tool_proposals()
            outcome = await self._dispatch.actions(proposals)
            if delegations and outcome == "ok":
                outcome = await self._delegate(delegations)
            return goal, outcome
        finally:
            # However the step ended, every call of the reply has its answer.
            if self._answers is not None:
                self._answers.answer_rest(_STEP_ENDED)

    def _proposal(self, line: CommandLine) -> Proposal:
        if line.background and self.jobs is None:
            why = "background jobs (CMD&:) cannot be started in this run"
            return Proposal.refused(line.command, why, background=True)
        return Proposal.command(line.command, background=line.background)

    # ---- delegation --------------------------------------------------------------------------

    async def _delegate(self, lines: list[DelegateLine]) -> StepOutcome:
        """The step's first `DELEGATE:` line as a bounded sub-run (the others are refused:
        one a step); how it went, for the step."""
        from aish.agent.norris.delegation import ONE_LEVEL

        line, *others = lines
        for other in others:
            self._refuse(other, "one delegation a step: propose it again in a later step")
        if self.delegator is None:
            why = ONE_LEVEL if self.depth >= 1 else "delegation is not available in this run"
            return self._refuse(line, why)
        target = self.delegator.target(line, depth=self.depth)
        if isinstance(target, str):
            return self._refuse(line, target)
        bounds = self._delegate_bounds(self.delegator.caps)
        if not self.delegator.unattended:
            if self.policy.mode == "headless":
                why = "it needs the user's yes ([norris] delegate = true runs it unattended)"
                return self._refuse(line, why)
            answer = await self._halt().halt_action(
                f"DELEGATE: {line.preset}: {line.goal}", _delegation_verdict(line, bounds)
            )
            if answer == "abort":
                raise RunEnds("aborted", "aborted at the HALT prompt (delegation)")
            if answer == "skip":
                self.frontend.render(Status(f"skipped: delegation to {line.preset}"))
                self._note(f"[aish] delegation skipped by user: {line.preset}: {line.goal}")
                return "skipped"
        self.log("delegate", {"preset": line.preset, "goal": line.goal, "depth": self.depth + 1})
        result = await self.delegator.sub_run(target, line.goal, bounds, self._scrubbed)
        # The sub-run's steps, tokens and cost are the parent's too.
        self._step += result.steps
        self._spending.tokens += result.tokens
        if result.cost_usd is not None:
            self._spending.cost_usd = (self._spending.cost_usd or 0.0) + result.cost_usd
        told = self.delegator.told(line, target, result, bounds, parent_scrubbed=self._scrubbed)
        self._note(told)
        self.frontend.render(Status(told.splitlines()[1]))
        return "ok" if result.status in ("done", "tasks_complete") else "failed"

    def _refuse(self, line: DelegateLine, why: str) -> StepOutcome:
        from aish.agent.norris.delegation import delegation_refused

        said = delegation_refused(line, why)
        self.frontend.render(Status(said))
        self._note(f"[aish] {said}")
        return "failed"

    def _delegate_bounds(self, caps: NorrisBounds) -> NorrisBounds:
        from aish.agent.norris.delegation import bounds_within

        bounds, spent = self.bounds, self._spending
        remaining = self._remaining_s()
        return bounds_within(
            caps,
            steps_left=max(bounds.max_steps - self._step, 1),
            seconds_left=None if remaining == float("inf") else remaining,
            tokens_left=None if bounds.token_cap is None else bounds.token_cap - spent.tokens,
            dollars_left=None
            if bounds.cost_cap_usd is None
            else bounds.cost_cap_usd - (spent.cost_usd or 0.0),
        )

    def _halt(self) -> _HaltAtStep:
        return _HaltAtStep(self.frontend, self._step, self.bounds.max_steps, self._waited)

    # ---- background jobs -------------------------------------------------------------------

    async def _start_job(self, authorization: gate.Authorization) -> bool:
        """A `CMD&:` step: started, and the run goes on (the model hears of its end with the
        first step after it)."""
        from aish.run.jobs import JobNotStarted

        assert self.jobs is not None
        command = authorization.command
        self.frontend.render(CommandStarted(command, authorization.verdict.level))
        try:
            job = await self.jobs.start_job(authorization)
        except JobNotStarted as error:
            said = f"not started: {command} ({error})"
            self.frontend.render(Status(said))
            self._note(f"[aish] {said}")
            return False
        self.frontend.render(Status(f"[{job.number}] started in the background: {command}"))
        self._note(
            f"[aish] background job {job.number} started: {command} (its exit status and "
            "output come with the first step after it ends; a step that proposes nothing "
            "waits for it)"
        )
        return True

    async def _waited_for_jobs(self) -> bool:
        """A step that proposed nothing while jobs run waits for one to end (within the
        per-command timeout and the wall clock); False when no job runs."""
        running = self.jobs.running_jobs() if self.jobs is not None else []
        if not running:
            return False
        assert self.jobs is not None
        numbers = ", ".join(str(job.number) for job in running)
        self.frontend.render(Status(f"waiting for background job(s) {numbers}"))
        limit = min(self.bounds.command_timeout_s, max(self._remaining_s(), 0.0))
        if not await self.jobs.wait_for_jobs(limit):
            self._note(f"[aish] background job(s) {numbers} still running after {limit:g}s")
        return True

    def _job_ended(self, job: Job) -> None:
        """A job ended: the model is told with the next step, the user now."""
        run = job.as_command_run()
        self.frontend.render(
            CommandFinished(
                run.command, run.exit_status, run.output, run.duration_s, run.cwd_after, run.notice
            )
        )
        self._record(run)

    def _tool_proposals(self) -> list[Proposal]:
        calls = self.conversation.unanswered_tool_calls()
        if not calls or self.tools is None:
            return []  # no tools offered to this run, or the reply made no call
        proposals = tool_call_proposals(calls, self.tools, self.max_tool_calls)
        over = sum(p.over_limit for p in proposals)
        if over:
            self.frontend.render(
                Status(
                    f"tool-call limit reached ({self.max_tool_calls} calls in one step, "
                    f"mcp.max_tool_calls): {over} more not run"
                )
            )
        return proposals

    async def _step_message(
        self, facts: StepFacts, cwd: str, specs: Sequence[ToolSpec]
    ) -> tuple[str, Message]:
        """The step's text and user message, once the conversation has room for it. The
        full instructions go again when an eviction took the message that had them."""
        said: list[str] = []

        def build() -> Message:
            told = any(INSTRUCTIONS in m.content for m in self.conversation.history)
            said[:] = [step_message(replace(facts, instructions=not told))]
            return self.conversation.user_message(said[0], cwd=cwd, background=False)

        if self.budget is None:
            newest = build()
        else:
            newest = await self.budget.make_room(
                self.conversation,
                build,
                self.target,
                tools=specs,
                on_event=self._spending.render,
                log=self.log,
                summarize=False,
            )
        return said[0], newest

    def _facts(self) -> StepFacts:
        tasks = self.tasks
        if not tasks:
            return StepFacts(self.goal, self._step, self.bounds.max_steps)
        index = self._task
        return StepFacts(
            self.goal, self._step, self.bounds.max_steps, tasks[index], index + 1, len(tasks)
        )

    def _policy_for(self, action: gate.Action) -> gate.Policy:
        if self.policy_source is None:
            return self.policy
        # The directory's config decides the rules; what this run is stays the run's: the
        # model its output reaches (scrubbed) and the sandbox its shell was started in.
        run = self.policy
        return dataclasses.replace(
            self.policy_source(action),
            scrubbed=run.scrubbed,
            sandboxed=run.sandboxed,
            sandbox_destructive=run.sandbox_destructive,
            sandbox_network=run.sandbox_network,
            outbound=run.outbound,
        )

    async def _authorize(self, action: gate.Action) -> gate.Authorization:
        return await gate.authorize(
            action,
            self._policy_for(action),
            judge=self._judge if self.second_opinion is not None else None,
            halt=_HaltAtStep(self.frontend, self._step, self.bounds.max_steps, self._waited),
            facts=self.shell_facts,
            log=self.log,
            logged={"norris_step": self._step},
        )

    async def _judge(self, text: str, verdict: Verdict) -> Opinion | None:
        assert self.second_opinion is not None
        return await self.second_opinion.judge(
            text, verdict, proposers=self._proposers(), on_event=self._spending.render
        )

    def _proposers(self) -> tuple[ModelTarget, ...]:
        """The models a step's actions come from: the executor, the preplanner whose tasks
        it follows, and whoever answered the step (a fallback, when the executor failed)."""
        proposers = [self.target]
        if self.planner is not None:
            proposers.append(self.planner)
        if self._exchange is not None:
            proposers += self._exchange.answered_by
        return tuple(proposers)

    def _judge_line(self) -> str:
        """The run's judge, said once at its start."""
        if self.policy.sandboxed:
            destructive = "run too" if self.policy.sandbox_destructive == "run" else "halt"
            return f"in the sandbox unknown steps run unasked; destructive ones {destructive}"
        if self.second_opinion is None:
            return "no independent second opinion: unknown steps halt — none in this run"
        return self.second_opinion.choose(self._proposers()).announcement

    async def _run(self, authorization: gate.Authorization) -> CommandRun:
        self.frontend.render(CommandStarted(authorization.command, authorization.verdict.level))
        timeout = self.bounds.command_timeout_s
        if authorization.outcome == "auto":
            # Unattended commands also stop at the wall clock; one the user approved runs
            # its course (cutting a deletion short would be worse than letting it finish).
            timeout = min(timeout, max(self._remaining_s(), 0.1))
        try:
            run = await self.run_authorized(
                authorization, timeout, record=self._record, on_input=self._input_halt()
            )
        except NeedsInput as stop:  # the step waited for input: halted (nobody there), aborted
            if stop.answer == "abort":
                raise RunEnds("aborted", "aborted at the HALT prompt (needs your input)") from None
            raise RunEnds("halted", stop.wait.describe(), pending=authorization.command) from None
        self._ran.append((run.command, run.exit_status))
        self.frontend.render(
            CommandFinished(
                run.command, run.exit_status, run.output, run.duration_s, run.cwd_after, run.notice
            )
        )
        return run

    def _input_halt(self) -> InputWaitHandler:
        """The HALT "needs your input" of this step (`input_halt`)."""
        from aish.agent.norris.input_halt import InputHalt

        headless = self.policy.mode == "headless"
        return InputHalt(self.frontend, self._step, self.bounds.max_steps, self._waited, headless)

    def _record(self, run: CommandRun) -> None:
        """How the executor records a step's command: for the model and the session log,
        with the step. `shell: agent`: it ran in the agent's shell, so resuming the session
        must not take its cwd for the user's shell."""
        record_run(run, self.conversation, self.log, norris_step=self._step, shell="agent")

    def _note(self, text: str) -> None:
        self.conversation.note(text)
        self.log("note", {"text": text})

    # ---- the end -----------------------------------------------------------------------------

    def _finish(self, status: NorrisStatus, reason: str, pending: str | None) -> NorrisResult:
        if self.jobs is not None:
            # They end with the agent's shell; the model hears of it with the next message.
            running = ", ".join(str(job.number) for job in self.jobs.running_jobs())
            self.jobs.on_job_end = None
            if running:
                self._note(f"[aish] background job(s) {running} stopped: the run ended")
        if status != "done":
            # The model's last word may be a proposal that never ran: the next turn says why.
            self._note(f"[aish] the autonomous run ended ({status}): {reason}")
        result = NorrisResult(
            status,
            reason,
            self._step,
            time.monotonic() - self._started,
            self._spending.tokens,
            self._spending.cost_usd,
            self.cwd(),
            pending,
            tuple(self._ran),
        )
        self.frontend.render(
            NorrisEnded(
                status,
                reason,
                result.steps,
                self.bounds.max_steps,
                result.elapsed_s,
                result.tokens,
                result.cost_usd,
                result.cwd,
                pending,
            )
        )
        self.log(
            "norris_end",
            {
                "status": status,
                "reason": reason,
                "steps": result.steps,
                "elapsed_s": round(result.elapsed_s, 3),
                "tokens": result.tokens,
                "cost_usd": result.cost_usd,
                "cwd": result.cwd,
                "pending_action": pending,
            },
        )
        return result


def _delegation_verdict(line: DelegateLine, bounds: NorrisBounds) -> Verdict:
    from aish.safety.verdict import Verdict

    within = ", ".join(bounds.describe()[:3])
    why = f"hands this sub-goal to a Norris run on preset {line.preset} ({within})"
    return Verdict("unknown", (why, "each of its steps passes the same gate"))


def _finite(seconds: float) -> float | None:
    return None if seconds == float("inf") else max(seconds, 0.0)
