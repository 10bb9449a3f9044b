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

Kind = Literal["command", "tool call"]

_KINDS: dict[Kind, type[ProposedCommand] | type[ProposedToolCall]] = {
    "command": ProposedCommand,
    "tool call": ProposedToolCall,
}
_NOT = {"command": "not a shell command", "tool call": "not a tool call"}


def redeem(authorization: object, kind: Kind) -> Authorization:
    """Right before running: the authorization, spent (`gate.redeem`), if it is a `kind`;
    raises `gate.Unauthorized` for anything the gate did not issue, did not allow, already
    ran, or that is not this executor's to run."""
    approved = gate.redeem(authorization)
    if not isinstance(approved.action, _KINDS[kind]):
        raise Unauthorized(f"{_NOT[kind]}: {approved.action.text}")
    return approved
