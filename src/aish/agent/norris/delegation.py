"""`DELEGATE: <preset>: <sub-goal>`: a bounded sub-goal handed to a Norris run on another preset.

The model (in chat, or a Norris step) may hand a self-contained sub-goal to another preset — a
local executor for mechanical work, say. The sub-run is a Norris run of its own: a fresh
conversation holding only the sub-goal (the parent's context is not sent anywhere), the same
gate and the same shell (so the same sandbox), and bounds of its own that never exceed what the
parent has left (`bounds_within`). What it did comes back as one summary
(`delegation_summary`), which the parent model reads with its next message.

A parent whose model is shown scrubbed text (a cloud preset) keeps secrets home through its
sub-run too: the sub-run's gate judges as if what its commands print reached a scrubbed model
(it did not, but the sub-model's words come back to one), and when the sub-run's own preset
does not scrub, only structured facts come back — how it ended, its steps, the programs it ran
and their exit statuses — never the sub-model's free text (a secret it read, split into words
or encoded, is in no shape the scrubber knows). What comes back passes the session's scrubber.

Refused, with the reason told to the user and the model, before anyone is asked: an unknown or
unusable preset; a delegation from a delegated run (one level deep, no more); and a sub-goal
carrying a secret (a placeholder, or a value the scrubber knows) to a preset that does not
scrub — that preset would be sent the secret's value.

Who says yes: the user, in chat always and in Norris unless `[norris] delegate = true`
(then it runs unattended; `aish goal` refuses it without that, nobody being there to ask).
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Sequence
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
    @property
    def commands(self) -> Sequence[tuple[str, int]]: ...


SubRun = Callable[["ModelTarget", str, NorrisBounds, bool], Awaitable[SubRunResult]]
"""Runs a sub-goal on a preset's target within bounds: a `NorrisRun` of depth 1 on the same
executor, gate and frontend as its parent (`aish.session.Session.delegator` makes it). The
last argument: what its commands print reaches a scrubbed model (the parent's), so its gate
keeps secrets home as the parent's would."""

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
        """A placeholder, a value the session knows (in any shape), or anything the scrubber
        would take for a secret (a key's format, a password after `--password`)."""
        from aish.agent.placeholders import MARK

        if MARK in text:
            return True
        if self.outbound is not None:
            return self.outbound.holds_secrets(text)
        from aish.safety.secrets.scrubber import find_secrets

        return bool(find_secrets(text))

    def told(
        self,
        line: DelegateLine,
        target: ModelTarget,
        result: SubRunResult,
        bounds: NorrisBounds,
        *,
        parent_scrubbed: bool,
    ) -> str:
        """What the parent model is told about the sub-run: to a scrubbed parent, from a
        sub-model that saw unscrubbed output, only structured facts; scrubbed, whatever it is."""
        facts_only = parent_scrubbed and not target.scrub_secrets
        text = delegation_summary(line, result, bounds, facts_only=facts_only)
        if parent_scrubbed:
            from aish.agent.outbound import door

            text = door(self.outbound).scrub(text)
        return text


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


def delegation_summary(
    line: DelegateLine, result: SubRunResult, bounds: NorrisBounds, *, facts_only: bool = False
) -> str:
    """What the parent model is told about the sub-run. `facts_only`: none of the sub-model's
    words (its reason, the command it stopped at, its commands' arguments) — how it ended, and
    the programs it ran with their exit statuses."""
    cost = "" if result.cost_usd is None else f", ${result.cost_usd:.4f}"
    ended = (
        f"[aish] delegated to {line.preset} (within {bounds.max_steps} steps, "
        f"{bounds.wall_clock}): {line.goal}\n"
        f"It ended {result.status} after {result.steps} step(s), {result.elapsed_s:.1f}s, "
        f"{result.tokens:,} tokens{cost}"
    )
    if facts_only:
        ran = ", ".join(_ran(command, status) for command, status in result.commands)
        text = (
            f"{ended}. Its model's own words are not passed on (it saw unscrubbed output); "
            f"it ran {len(result.commands)} command(s){': ' + ran if ran else ''}"
        )
        if result.pending_action:
            text += f"\nIt stopped at a {_program(result.pending_action)} command"
    else:
        text = f"{ended}, in {result.cwd}: {result.reason}"
        if result.pending_action:
            text += f"\nIt stopped at: {result.pending_action}"
    return text if len(text) <= _SUMMARY_MAX else text[: _SUMMARY_MAX - 1] + "…"


_PROGRAM = re.compile(r"[A-Za-z][A-Za-z0-9._+-]{0,23}")


def _ran(command: str, status: int) -> str:
    # A name no program has (exit 127) would be the sub-model's words passed on.
    program = "(a command not found)" if status == 127 else _program(command)
    return f"{program} (exit {status})"


def _program(command: str) -> str:
    """The program a command line starts with, if it is a plain name: not its arguments,
    which the sub-model wrote."""
    words = command.split(maxsplit=1)
    name = words[0].rsplit("/", 1)[-1] if words else ""
    return name if _PROGRAM.fullmatch(name) else "(unnamed)"


def delegation_refused(line: DelegateLine, why: str) -> str:
    return f"delegation to {line.preset} not run: {why}"


def _least(a: float | None, b: float | None) -> float | None:
    found = [x for x in (a, b) if x is not None]
    return max(min(found), 0.0) if found else None


def _least_int(a: int | None, b: int | None) -> int | None:
    found = [x for x in (a, b) if x is not None]
    return max(min(found), 1) if found else None
