"""The actions a reply proposes, in the order they are carried out: its `CMD:` and `CMD&:`
lines, then its tool calls (chat carries out its tool calls in the tool sub-loop, before its
command lines).

Each carries the key repeat detection compares (a command with its whitespace normalised; a
tool call's `server__tool` with its arguments as canonical JSON), and what to do with it: an
action for the gate, or — for a tool call that cannot be made (an unknown tool, arguments that
are not a JSON object) or one over the turn's or step's limit — the answer the model gets instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from aish.agent import gate
from aish.agent.toolbox import LIMIT, PreparedCall, ToolBox, prepare
from aish.llm.types import ToolCall

__all__ = ["Proposal", "tool_call_proposals"]


@dataclass(frozen=True)
class Proposal:
    """One action of a reply: a `CMD:` line, or a tool call (`call`), which is answered by a
    tool message. A tool call that cannot be made has no `action`; `error` says why."""

    text: str  # the command, or `server__tool {json}`
    key: str  # equal for the same action proposed again
    action: gate.Action | None
    call: ToolCall | None = None
    prepared: PreparedCall | None = None
    error: str = ""
    # Over the turn's or step's limit: answered with the limit, in its turn, without running.
    over_limit: bool = False
    # A `CMD&:` line: started as a background job by the mode's job starter.
    background: bool = False

    @classmethod
    def command(cls, command: str, *, background: bool = False) -> Proposal:
        """A `CMD:` line, or a `CMD&:` line (`background`). A command that cannot be started
        as a job (`aish.run.jobs.cannot_background`) has no action: it is refused with the
        reason before anyone is asked."""
        key = " ".join(command.split())
        if not background:
            return cls(command, key, gate.ProposedCommand(command))
        from aish.run.jobs import cannot_background

        refusal = cannot_background(command)
        if refusal is not None:
            error = f"cannot run in the background: {refusal}"
            return cls(command, f"{key} &", None, error=error, background=True)
        action = gate.ProposedCommand(command, background=True)
        return cls(command, f"{key} &", action, background=True)

    @classmethod
    def refused(cls, command: str, why: str, *, background: bool = False) -> Proposal:
        """A command this mode cannot run at all (`why`), answered without asking anyone."""
        key = " ".join(command.split()) + (" &" if background else "")
        return cls(command, key, None, error=why, background=background)

    @classmethod
    def tool_call(cls, call: ToolCall, prepared: PreparedCall | str) -> Proposal:
        if isinstance(prepared, str):
            text = f"{call.name} {call.arguments}"
            return cls(text, text, None, call, error=prepared)
        return cls(prepared.action.text, prepared.key, prepared.action, call, prepared)


def tool_call_proposals(
    calls: Sequence[ToolCall], tools: ToolBox[Any], limit: int
) -> list[Proposal]:
    """The calls in their order; those after the first `limit` are marked `over_limit`."""
    proposals = [Proposal.tool_call(call, prepare(call, tools)) for call in calls[:limit]]
    over = LIMIT.format(limit=limit)
    proposals += [
        Proposal(call.name, call.name, None, call, error=over, over_limit=True)
        for call in calls[limit:]
    ]
    return proposals
