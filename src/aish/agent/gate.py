"""THE gate: the only place that decides whether an action the model proposed may run.

Every proposed action — a `CMD:` line in chat today; Norris steps, preplanned tasks and MCP
tool calls later — comes here, and only an `Authorization` from here lets a caller run it.
Until the safety classifier lands, the verdict for every proposed command is "ask": nothing
the model proposes runs without the user's yes. Edits are the user's own command and run as
edited; "describe" asks the model to explain and then asks again; "cancel" (Ctrl-C) declines
this command and the rest of the reply's.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Literal, Protocol

Mode = Literal["interactive", "norris", "headless"]
Answer = Literal["yes", "edit", "no", "describe", "cancel"]


@dataclass(frozen=True)
class ProposedCommand:
    command: str
    proposed_by: str = "model"


@dataclass(frozen=True)
class Verdict:
    """What the gate concluded before the user was asked."""

    level: Literal["ask"]
    reasons: tuple[str, ...]


@dataclass(frozen=True)
class Authorization:
    """The gate's answer. `command` is what may run — the user's edit when they edited."""

    run: bool
    command: str
    answer: Answer


class Confirmer(Protocol):
    """The frontend's part of the gate: show the verdict, get the user's answer."""

    async def confirm_command(self, command: str, verdict: Verdict) -> Answer: ...

    async def edit_command(self, command: str) -> str | None: ...

    async def show_description(self, command: str, description: str) -> None: ...


Describer = Callable[[str], Awaitable[str]]

_NOT_CLASSIFIED = "every proposed command asks for your yes"


def assess(action: ProposedCommand, mode: Mode) -> Verdict:
    """The verdict before asking. The classifier and second opinion will refine this."""
    return Verdict("ask", (_NOT_CLASSIFIED,))


async def authorize(
    action: ProposedCommand, mode: Mode, confirmer: Confirmer, describe: Describer
) -> Authorization:
    """Ask until the user says yes, no, or edits; only then may the caller run anything."""
    verdict = assess(action, mode)
    if mode == "headless":
        return Authorization(False, action.command, "no")
    while True:
        answer = await confirmer.confirm_command(action.command, verdict)
        if answer == "describe":
            await confirmer.show_description(action.command, await describe(action.command))
            continue
        if answer == "edit":
            edited = await confirmer.edit_command(action.command)
            if edited is None or not edited.strip():
                return Authorization(False, action.command, "no")
            return Authorization(True, edited.strip(), "edit")
        return Authorization(answer == "yes", action.command, answer)
