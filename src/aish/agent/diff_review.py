"""Diffs in a reply (§10): shown, checked, and applied through the gate like any write.

A unified diff the model wrote for files under the project is offered once the reply is in:
the frontend shows it coloured with a per-file summary and asks `[a]pply / [n]o`; on apply it
checks that the diff applies (`git apply --check`, or `patch --dry-run` outside git) and hands
back the command that applies it. That command is an action like any other: the gate judges it
(a write: never `safe`) and only what the gate authorizes runs, in the user's shell. The user's
`[a]pply` is their answer to the gate's question — unless the gate finds the command
destructive, when it asks again with its reasons. A diff that touches anything outside the
project (an absolute path, `..`, a symlink out, `.git/`) is never offered.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Literal, Protocol, runtime_checkable

from aish.agent import gate
from aish.agent.diffs import ProposedDiff, extract_diffs, outside_project, summary_line
from aish.agent.events import Frontend, Status
from aish.conversation.context import CommandRun

Review = Literal["cancel"] | str | None
"""The command that applies a reviewed diff; None: not applied; "cancel": stop the turn."""


@runtime_checkable
class ReviewsDiffs(Protocol):
    async def review_diff(self, diff: ProposedDiff, cwd: str) -> Review:
        """Show `diff`, ask `[a]pply / [n]o`; on apply check it applies in `cwd` and return
        the command that applies it (None when declined or it does not apply — said)."""
        ...


class _Applying:
    """The gate's confirmer once the user said `[a]pply`: that was the answer, unless the gate
    finds the command destructive — then the frontend asks again, showing why."""

    def __init__(self, frontend: gate.Confirmer) -> None:
        self._frontend = frontend

    async def confirm_command(self, command: str, verdict: gate.Verdict) -> gate.Answer:
        if verdict.level == "destructive":
            return await self._frontend.confirm_command(command, verdict)
        return "yes"

    async def edit_command(self, command: str) -> str | None:
        return await self._frontend.edit_command(command)

    async def show_description(self, command: str, description: str) -> None:
        await self._frontend.show_description(command, description)


def project_root(cwd: str) -> str:
    """The git work tree's top (found by walking up to a `.git`, running nothing), else
    `cwd`: where a diff's paths are taken from."""
    here = os.path.realpath(cwd)
    while True:
        if os.path.exists(os.path.join(here, ".git")):
            return here
        parent = os.path.dirname(here)
        if parent == here:
            return os.path.realpath(cwd)
        here = parent


async def offer_diffs(
    text: str,
    cwd: str,
    frontend: Frontend,
    confirmer: gate.Confirmer,
    policy: gate.Policy,
    run_authorized: Callable[[gate.Authorization], Awaitable[CommandRun]],
    log: Callable[[str, Mapping[str, Any]], None],
) -> bool:
    """Offer each diff of `text`; False when the user cancelled (nothing more of the turn)."""
    if not isinstance(frontend, ReviewsDiffs) or policy.mode != "interactive":
        return True
    root = project_root(cwd)
    for diff in extract_diffs(text):
        outside = outside_project(diff, root)
        if outside:
            where = ", ".join(outside[:3])
            frontend.render(Status(f"diff not offered: it touches {where}, outside {root}"))
            continue
        review = await frontend.review_diff(diff, root)
        if review == "cancel":
            return False
        if review is None:
            continue
        authorization = await gate.authorize(
            gate.ProposedCommand(review),
            policy,
            confirmer=_Applying(confirmer),
            log=log,
            logged={"diff": summary_line(diff)},
        )
        if authorization.outcome == "cancel":
            return False
        if not authorization.run:
            frontend.render(Status(f"diff not applied: {summary_line(diff)}"))
            continue
        await run_authorized(authorization)
    return True
