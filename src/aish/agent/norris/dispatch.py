"""How a Norris step reacts to what the gate and the executor did with its actions.

The step's actions go through the shared loop (`agent.action_loop`); these are Norris's
reactions. After a failure, a skip or a denial the rest of the reply is not run (each is told
so): the model re-plans from the result. An action proposed again after it was skipped, denied,
or failed with nothing changed since, means the run is stuck; so does a run of skips as long as
`norris.skip_budget`. A HALT with nobody to answer it (headless) or the user's abort ends the
run. The dead ends and failures are remembered across the run's steps.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from aish.agent import gate
from aish.agent.action_loop import Next, carry_out
from aish.agent.events import Frontend, Halt, NorrisStatus, Status
from aish.agent.norris.bounds import NorrisBounds
from aish.agent.proposals import Proposal
from aish.agent.toolbox import ToolRound
from aish.conversation.context import CommandRun

__all__ = ["RunEnds", "StepDispatch", "StepOutcome", "denied_line"]

# How a step's actions went: all ran and succeeded, the user skipped one, or one failed; or
# the step proposed nothing and waited for a background job (`CMD&:`) to end.
StepOutcome = Literal["ok", "skipped", "failed", "waited"]


class RunEnds(Exception):
    """Ends the run from anywhere in a step."""

    def __init__(self, status: NorrisStatus, reason: str, pending: str | None = None) -> None:
        super().__init__(reason)
        self.status, self.reason, self.pending = status, reason, pending


@dataclass
class StepDispatch:
    """Norris's `Reactions`, one per run."""

    frontend: Frontend
    bounds: NorrisBounds
    authorize_action: Callable[[gate.Action], Awaitable[gate.Authorization]]
    command_runner: Callable[[gate.Authorization], Awaitable[CommandRun]]
    answers: ToolRound | None
    note: Callable[[str], None]
    step: Callable[[], int]
    # Starts a `CMD&:` step as a background job (True: started); None: no jobs here.
    job_starter: Callable[[gate.Authorization], Awaitable[bool]] | None = None
    # Proposing one of these again means the run is stuck: actions the user skipped or the
    # policy denied, and actions that failed (until something that may change things ran).
    dead_ends: set[str] = field(default_factory=set)
    failed: set[str] = field(default_factory=set)
    skips_in_a_row: int = 0
    _outcome: StepOutcome = "ok"

    async def actions(self, proposals: Sequence[Proposal]) -> StepOutcome:
        """The step's actions, in order; raises `RunEnds` when one ends the run."""
        self._outcome = "ok"
        await carry_out(proposals, self)
        return self._outcome

    # ---- the reactions ---------------------------------------------------------------------

    def unusable(self, proposal: Proposal, rest: Sequence[Proposal]) -> Next:
        if proposal.over_limit:  # answered in its turn: the answers follow the calls' order
            self.tell(proposal, proposal.error)
            return "continue"
        self._not_stuck(proposal)
        # A tool call that cannot be made, or a `CMD&:` line that cannot be started as a job:
        # the model's error.
        said = f"not run: {proposal.text} ({proposal.error})"
        self.tell(proposal, proposal.error if proposal.call else f"[aish] {said}", is_error=True)
        self.frontend.render(Status(said))
        return self._fails(proposal, rest)

    async def authorize(self, proposal: Proposal, action: gate.Action) -> gate.Authorization:
        self._not_stuck(proposal)
        return await self.authorize_action(action)

    def stopped(
        self, proposal: Proposal, authorization: gate.Authorization, rest: Sequence[Proposal]
    ) -> None:
        raise RunEnds("aborted", "aborted at the HALT prompt")

    def not_run(
        self, proposal: Proposal, authorization: gate.Authorization, rest: Sequence[Proposal]
    ) -> Next:
        text = proposal.text
        if authorization.outcome == "refused":  # a HALT with nobody to answer it (headless)
            verdict = authorization.verdict
            self.frontend.render(
                Halt(
                    self.step(), self.bounds.max_steps, text, verdict.level, tuple(verdict.reasons)
                )
            )
            reasons = "; ".join(verdict.reasons)
            raise RunEnds("halted", f"[{verdict.level}] {reasons}".rstrip(), pending=text)
        self.dead_ends.add(proposal.key)
        self._outcome = "skipped"
        if authorization.outcome == "denied":  # the user's policy: the model is told, nobody asked
            said = denied_line(text, authorization.verdict.reasons)
            self.frontend.render(Status(said))
            self.tell(proposal, f"[aish] {said}")
            self._not_run(rest, "after the denied action")
            return "stop"
        self.frontend.render(Status(f"skipped: {text}"))
        self.tell(proposal, f"[aish] action skipped by user: {text}")
        self._not_run(rest, "after the skipped action")
        self.skips_in_a_row += 1
        if self.skips_in_a_row >= self.bounds.skips_allowed:
            raise RunEnds(
                "budget_exhausted",
                f"{self.skips_in_a_row} actions skipped in a row (norris.skip_budget)",
            )
        return "stop"

    def unasked(self, proposal: Proposal, authorization: gate.Authorization) -> None:
        """Norris runs `safe` actions unattended by design: the step banner said so."""

    async def run_authorized(self, proposal: Proposal, authorization: gate.Authorization) -> bool:
        self.skips_in_a_row = 0
        if proposal.prepared is not None:
            assert self.answers is not None
            result = await self.answers.run_authorized(proposal.prepared, authorization)
            return not result.is_error
        if proposal.background:
            assert self.job_starter is not None
            return await self.job_starter(authorization)
        return (await self.command_runner(authorization)).exit_status == 0

    def ran(
        self,
        proposal: Proposal,
        authorization: gate.Authorization,
        succeeded: bool,
        rest: Sequence[Proposal],
    ) -> Next:
        if not succeeded:
            return self._fails(proposal, rest)
        if authorization.verdict.level != "safe":
            # It may have changed something: trying a failed action again is no loop now.
            self.failed.clear()
        return "continue"

    # ---- telling the model -----------------------------------------------------------------

    def tell(self, proposal: Proposal, text: str, *, is_error: bool = False) -> None:
        """Tell the model about a proposal: a tool call's answer, else a note."""
        if proposal.call is not None and self.answers is not None:
            self.answers.answer(proposal.call, text, is_error=is_error)
        else:
            self.note(text)

    def _not_run(self, rest: Sequence[Proposal], why: str) -> None:
        for proposal in rest:
            self.tell(proposal, f"[aish] not run ({why}): {proposal.text}")

    def _fails(self, proposal: Proposal, rest: Sequence[Proposal]) -> Next:
        self.failed.add(proposal.key)
        self._outcome = "failed"
        self._not_run(rest, "after the failure above")
        return "stop"

    def _not_stuck(self, proposal: Proposal) -> None:
        if proposal.key in self.dead_ends or proposal.key in self.failed:
            text = proposal.text
            raise RunEnds("stuck", f"proposed again after it failed or was skipped: {text}")


def denied_line(action: str, reasons: tuple[str, ...]) -> str:
    """What the user and the model are told when the user's policy refuses an action."""
    why = reasons[0] if reasons else "denied by your rules"
    return f"action denied by the user's policy, not run: {action} ({why})"
