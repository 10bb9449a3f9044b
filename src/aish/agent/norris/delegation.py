"""`DELEGATE: <preset>: <sub-goal>`: a bounded sub-goal handed to a Norris run on another preset.

The model (in chat, or a Norris step) may hand a self-contained sub-goal to another preset — a
local executor for mechanical work, say. The sub-run is a Norris run of its own: a fresh
conversation holding only the sub-goal (the parent's context is not sent anywhere), the same
gate and the same shell (so the same sandbox), and bounds of its own that never exceed what the
parent has left (`bounds_within`). What it did comes back as one summary
(`delegation_summary`), which the parent model reads with its next message.

Refused, with the reason told to the user and the model, before anyone is asked: an unknown or
unusable preset; a delegation from a delegated run (one level deep, no more); and a sub-goal
carrying a secret (a placeholder, or a value the scrubber knows) to a preset that does not
scrub — that preset would be sent the secret's value.

Who says yes: the user, in chat always and in Norris unless `[norris] delegate = true`
(then it runs unattended; `aish goal` refuses it without that, nobody being there to ask).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Protocol

from aish.agent.norris.bounds import NorrisBounds

if TYPE_CHECKING:
    from aish.agent.actions import DelegateLine
    from aish.agent.outbound import Outbound
    from aish.config.schema import NorrisConfig
    from aish.llm.types import ModelTarget

__all__ = [
    "ONE_LEVEL",
    "Delegator",
    "SubRun",
    "bounds_within",
    "delegation_refused",
    "delegation_summary",
]


class SubRunResult(Protocol):
    """How a sub-run ended (`aish.agent.norris.loop.NorrisResult`, which imports this module)."""

    @property
    def status(self) -> str: ...
    @property
    def reason(self) -> str: ...
    @property
    def steps(self) -> int: ...
    @property
    def elapsed_s(self) -> float: ...
    @property
    def tokens(self) -> int: ...
    @property
    def cost_usd(self) -> float | None: ...
    @property
    def cwd(self) -> str: ...
    @property
    def pending_action(self) -> str | None: ...


SubRun = Callable[["ModelTarget", str, NorrisBounds], Awaitable[SubRunResult]]
"""Runs a sub-goal on a preset's target within bounds: a `NorrisRun` of depth 1 on the same
executor, gate and frontend as its parent (`aish.session.Session.delegator` makes it)."""

ONE_LEVEL = "a delegated run cannot delegate again (DELEGATE: goes one level deep)"
_SUMMARY_MAX = 1200


@dataclass
class Delegator:
    """What a chat turn or a Norris run needs to hand sub-goals on."""

    # The target of a preset, or why it cannot be used.
    resolve: Callable[[str], ModelTarget | str]
    presets: Callable[[], list[str]]
    # Not an executor: every action of the sub-run goes through the gate like its parent's.
    sub_run: SubRun
    # The sub-run's own caps (`[norris] delegate_*`), before the parent's remaining bounds.
    caps: NorrisBounds
    # `[norris] delegate = true`: a Norris step's delegation runs without asking.
    unattended: bool = False
    outbound: Outbound | None = None

    @classmethod
    def caps_from(cls, config: NorrisConfig, commands_per_step: int) -> NorrisBounds:
        return NorrisBounds(
            max_steps=config.delegate_max_steps,
            wall_clock_s=config.delegate_wall_clock_s,
            token_cap=config.token_cap,
            cost_cap_usd=config.delegate_cost_cap_dollars,
            command_timeout_s=config.command_timeout_s,
            skip_budget=config.skip_budget,
            commands_per_step=commands_per_step,
        )

    def target(self, line: DelegateLine, *, depth: int) -> ModelTarget | str:
        """The preset's target for this delegation, or why it is refused."""
        if depth >= 1:
            return ONE_LEVEL
        known = self.presets()
        if line.preset not in known:
            names = ", ".join(known) or "none"
            return f"unknown model preset '{line.preset}' (known: {names})"
        target = self.resolve(line.preset)
        if isinstance(target, str):
            return f"preset '{line.preset}' cannot be used: {target}"
        if not target.scrub_secrets and self._bears_secrets(line.goal):
            return (
                f"the sub-goal carries a secret and preset '{line.preset}' does not scrub "
                "secrets: it would be sent the value"
            )
        return target

    def _bears_secrets(self, text: str) -> bool:
        from aish.agent.placeholders import MARK

        if MARK in text:
            return True
        return self.outbound is not None and self.outbound.vault.scrub(text) != text


def bounds_within(
    caps: NorrisBounds,
    *,
    steps_left: int | None = None,
    seconds_left: float | None = None,
    tokens_left: int | None = None,
    dollars_left: float | None = None,
) -> NorrisBounds:
    """The sub-run's bounds: its caps, never more than the parent has left (None: the parent
    has no such bound)."""
    return replace(
        caps,
        max_steps=max(1, min(caps.max_steps, steps_left or caps.max_steps)),
        wall_clock_s=_least(caps.wall_clock_s, seconds_left),
        token_cap=_least_int(caps.token_cap, tokens_left),
        cost_cap_usd=_least(caps.cost_cap_usd, dollars_left),
    )


def delegation_summary(line: DelegateLine, result: SubRunResult, bounds: NorrisBounds) -> str:
    """What the parent model is told about the sub-run."""
    cost = "" if result.cost_usd is None else f", ${result.cost_usd:.4f}"
    text = (
        f"[aish] delegated to {line.preset} (within {bounds.max_steps} steps, "
        f"{bounds.wall_clock}): {line.goal}\n"
        f"It ended {result.status} after {result.steps} step(s), {result.elapsed_s:.1f}s, "
        f"{result.tokens:,} tokens{cost}, in {result.cwd}: {result.reason}"
    )
    if result.pending_action:
        text += f"\nIt stopped at: {result.pending_action}"
    return text if len(text) <= _SUMMARY_MAX else text[: _SUMMARY_MAX - 1] + "…"


def delegation_refused(line: DelegateLine, why: str) -> str:
    return f"delegation to {line.preset} not run: {why}"


def _least(a: float | None, b: float | None) -> float | None:
    found = [x for x in (a, b) if x is not None]
    return max(min(found), 0.0) if found else None


def _least_int(a: int | None, b: int | None) -> int | None:
    found = [x for x in (a, b) if x is not None]
    return max(min(found), 1) if found else None
