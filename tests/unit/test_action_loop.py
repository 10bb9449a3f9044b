"""The propose → authorize → run loop chat and Norris share (`aish.agent.action_loop`).

The gate is the real one (real verdicts, real authorizations); the reactions record what the
loop asked of them, so the order and the stopping rules are checked apart from either mode.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from aish.agent import gate
from aish.agent.action_loop import Next, carry_out
from aish.agent.proposals import Proposal
from aish.safety.verdict import Verdict

SRC = Path(__file__).resolve().parents[2] / "src" / "aish"


@dataclass
class Answering:
    """A confirmer with one answer per command, by command text."""

    answers: dict[str, gate.Answer]

    async def confirm_command(self, command: str, verdict: Verdict) -> gate.Answer:
        return self.answers[command]

    async def edit_command(self, command: str) -> str | None:
        return None

    async def show_description(self, command: str, description: str) -> None:
        return None


@dataclass
class Recording:
    confirmer: Answering
    failing: frozenset[str] = frozenset()
    stop_after_failure: bool = False
    policy: gate.Policy = field(default_factory=lambda: gate.Policy("interactive"))
    seen: list[tuple[str, str]] = field(default_factory=list)

    def unusable(self, proposal: Proposal, rest: Sequence[Proposal]) -> Next:
        self.seen.append(("unusable", proposal.text))
        return "continue"

    async def authorize(self, proposal: Proposal, action: gate.Action) -> gate.Authorization:
        return await gate.authorize(action, self.policy, confirmer=self.confirmer)

    def stopped(
        self, proposal: Proposal, authorization: gate.Authorization, rest: Sequence[Proposal]
    ) -> None:
        self.seen.append(("stopped", f"{proposal.text} +{len(rest)}"))

    def not_run(
        self, proposal: Proposal, authorization: gate.Authorization, rest: Sequence[Proposal]
    ) -> Next:
        self.seen.append(("not_run", f"{proposal.text} {authorization.outcome}"))
        return "continue"

    def unasked(self, proposal: Proposal, authorization: gate.Authorization) -> None:
        self.seen.append(("unasked", proposal.text))

    async def run_authorized(self, proposal: Proposal, authorization: gate.Authorization) -> bool:
        gate.redeem(authorization)  # only a real, gate-issued authorization gets here
        self.seen.append(("run", authorization.command))
        return proposal.text not in self.failing

    def ran(
        self,
        proposal: Proposal,
        authorization: gate.Authorization,
        succeeded: bool,
        rest: Sequence[Proposal],
    ) -> Next:
        self.seen.append(("ran", f"{proposal.text} {'ok' if succeeded else 'failed'}"))
        return "stop" if not succeeded and self.stop_after_failure else "continue"


def commands(*lines: str) -> list[Proposal]:
    return [Proposal.command(line) for line in lines]


async def test_each_proposal_is_authorized_then_run_in_order() -> None:
    reactions = Recording(Answering({"touch a": "yes", "touch b": "no", "touch c": "yes"}))
    carried = await carry_out(commands("touch a", "touch b", "touch c"), reactions)
    assert carried == "done"
    assert reactions.seen == [
        ("run", "touch a"),
        ("ran", "touch a ok"),
        ("not_run", "touch b no"),
        ("run", "touch c"),
        ("ran", "touch c ok"),
    ]


async def test_cancel_ends_the_reply_and_the_rest_never_reaches_the_gate() -> None:
    # `touch c` has no answer: asking about it would raise KeyError.
    reactions = Recording(Answering({"touch a": "yes", "touch b": "cancel"}))
    carried = await carry_out(commands("touch a", "touch b", "touch c"), reactions)
    assert carried == "stopped"
    assert reactions.seen[-1] == ("stopped", "touch b +1")
    assert ("run", "touch c") not in reactions.seen


async def test_a_safe_command_runs_unasked_and_is_announced_first() -> None:
    # With confirm_cmd = false a safe command runs without asking; nobody may be asked.
    reactions = Recording(Answering({}), policy=gate.Policy("interactive", confirm_cmd=False))
    assert await carry_out(commands("ls"), reactions) == "done"
    assert reactions.seen == [("unasked", "ls"), ("run", "ls"), ("ran", "ls ok")]


async def test_a_reaction_stops_the_rest_after_a_failure() -> None:
    reactions = Recording(
        Answering({"make": "yes", "make install": "yes"}),
        failing=frozenset({"make"}),
        stop_after_failure=True,
    )
    carried = await carry_out(commands("make", "make install"), reactions)
    assert carried == "stopped"
    assert ("run", "make install") not in reactions.seen


async def test_a_proposal_the_gate_cannot_judge_goes_to_unusable() -> None:
    broken = Proposal("notes__x {", "notes__x {", None, error="arguments are not JSON")
    reactions = Recording(Answering({"touch a": "yes"}))
    assert await carry_out([broken, *commands("touch a")], reactions) == "done"
    assert reactions.seen[0] == ("unusable", "notes__x {")


def called_names(module: str) -> set[str]:
    tree = ast.parse((SRC / module).read_text())
    return {
        node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
    }


@pytest.mark.parametrize(
    ("module", "through"),
    [
        ("agent/chat.py", "carry_out"),
        ("agent/norris/dispatch.py", "carry_out"),
        ("agent/norris/loop.py", "StepDispatch"),
    ],
)
def test_chat_and_norris_carry_out_through_the_shared_loop(module: str, through: str) -> None:
    # Neither mode walks its proposals itself: chat hands them to `carry_out`, Norris to its
    # dispatch, which does. Neither runs what the gate authorized except in a reaction.
    names = called_names(module)
    assert through in names
    assert "redeem" not in names
