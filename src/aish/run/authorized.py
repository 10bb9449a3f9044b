"""The one door into execution: the gate's `Authorization`, redeemed.

Every executor here (the user's shell, the agent's shell, the MCP tool calls) starts what the
model proposed with `redeem(authorization, kind)`: it is `gate.redeem` — a forged, copied,
declined or already used authorization is refused (`gate.Unauthorized`) — and then the check
that the action is one this executor runs (a shell command is not a tool call's to run, nor the
other way round). Nothing else in `aish.run` imports the agent: this module is the one
reviewed exception to the "run imports no agent" contract (`pyproject.toml`), because the gate
that issues authorizations is the agent's and run must redeem them.
"""

from __future__ import annotations

from typing import Literal

from aish.agent import gate
from aish.agent.gate import Authorization, ProposedCommand, ProposedToolCall, Unauthorized

__all__ = [
    "Authorization",
    "ProposedCommand",
    "ProposedToolCall",
    "Unauthorized",
    "redeem",
]

# A `background command` (`CMD&:`) is started as a job only, and a `command` (`CMD:`) never
# is: what the user was shown is how it runs.
Kind = Literal["command", "background command", "tool call"]

_KINDS: dict[Kind, type[ProposedCommand] | type[ProposedToolCall]] = {
    "command": ProposedCommand,
    "background command": ProposedCommand,
    "tool call": ProposedToolCall,
}
_NOT = {
    "command": "not a shell command to run in the foreground",
    "background command": "not a shell command to run in the background",
    "tool call": "not a tool call",
}


def redeem(authorization: object, kind: Kind) -> Authorization:
    """Right before running: the authorization, spent (`gate.redeem`), if it is a `kind`;
    raises `gate.Unauthorized` for anything the gate did not issue, did not allow, already
    ran, or that is not this executor's to run."""
    approved = gate.redeem(authorization)
    action = approved.action
    wrong = not isinstance(action, _KINDS[kind]) or (
        isinstance(action, ProposedCommand) and action.background != (kind == "background command")
    )
    if wrong:
        raise Unauthorized(f"{_NOT[kind]}: {action.text}")
    return approved
