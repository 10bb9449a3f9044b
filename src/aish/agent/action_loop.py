"""Propose → authorize → run, written once for chat and Norris.

A reply's proposals are carried out in order. Each one the gate may judge is authorized (the
gate asks, halts, denies or lets it run, and logs its decision), and what it authorized runs
through the mode's executor — which redeems the authorization, so nothing else can run. The
loop is the same in every mode; what differs is how each outcome is told and whether the rest
of the reply still runs after it: those are the mode's `Reactions` (`agent.chat` for a chat
turn, `agent.norris.dispatch` for a Norris step).

Whatever the mode, the user's `cancel` or `abort` ends the reply at once, and an action that
runs without asking is announced before it runs. An action that needed a person when there was
none (`refused`) is one the gate did not let run: Norris ends the run there, chat goes on.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, Protocol

from aish.agent import gate
from aish.agent.proposals import Proposal

__all__ = ["Carried", "Next", "Reactions", "carry_out"]

# After a reaction: go on with the reply's next proposal, or leave the rest unrun.
Next = Literal["continue", "stop"]
# How the loop ended: every proposal had its turn, or a reaction (or an ending outcome) stopped
# it with some left.
Carried = Literal["done", "stopped"]

_ENDS_THE_REPLY = frozenset({"cancel", "abort"})


class Reactions(Protocol):
    """What one mode does at each point of the loop. `rest` is the reply's proposals after the
    current one, which a reaction that stops the loop tells the model were not run."""

    def unusable(self, proposal: Proposal, rest: Sequence[Proposal]) -> Next:
        """A proposal the gate cannot judge: a tool call that cannot be made, or one over the
        limit. The model is told `proposal.error`."""
        ...

    async def authorize(self, proposal: Proposal, action: gate.Action) -> gate.Authorization:
        """The gate's answer for this mode (its policy, its confirmer or HALT, its judge) about
        `proposal`, whose gate action is `action`."""
        ...

    def stopped(
        self, proposal: Proposal, authorization: gate.Authorization, rest: Sequence[Proposal]
    ) -> None:
        """The user ended the reply here (cancel, abort)."""
        ...

    def not_run(
        self, proposal: Proposal, authorization: gate.Authorization, rest: Sequence[Proposal]
    ) -> Next:
        """The gate did not let it run: declined, skipped, denied by the user's policy, or
        refused (it needed a person and there was none)."""
        ...

    def unasked(self, proposal: Proposal, authorization: gate.Authorization) -> None:
        """It is about to run without anyone having been asked."""
        ...

    async def run_authorized(self, proposal: Proposal, authorization: gate.Authorization) -> bool:
        """Runs what the gate authorized; True when it succeeded."""
        ...

    def ran(
        self,
        proposal: Proposal,
        authorization: gate.Authorization,
        succeeded: bool,
        rest: Sequence[Proposal],
    ) -> Next:
        """After it ran: whether the rest of the reply still runs."""
        ...


async def carry_out(proposals: Sequence[Proposal], reactions: Reactions) -> Carried:
    """Each proposal through the gate and, when authorized, the mode's executor, in order."""
    for index, proposal in enumerate(proposals):
        rest = proposals[index + 1 :]
        if proposal.action is None:
            if reactions.unusable(proposal, rest) == "stop":
                return "stopped"
            continue
        authorization = await reactions.authorize(proposal, proposal.action)
        if authorization.outcome in _ENDS_THE_REPLY:
            reactions.stopped(proposal, authorization, rest)
            return "stopped"
        if not authorization.run:
            if reactions.not_run(proposal, authorization, rest) == "stop":
                return "stopped"
            continue
        if authorization.outcome == "auto":
            reactions.unasked(proposal, authorization)
        succeeded = await reactions.run_authorized(proposal, authorization)
        if reactions.ran(proposal, authorization, succeeded, rest) == "stop":
            return "stopped"
    return "done"
