"""The one door into execution (`aish.run.authorized.redeem`) and the one record step
(`aish.run.record.record_run`), without a shell: the executors that use them are driven by
the integration and end-to-end tests."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from aish.agent.gate import (
    Authorization,
    Policy,
    ProposedCommand,
    ProposedToolCall,
    Unauthorized,
    authorize,
)
from aish.conversation.context import CommandRun, Conversation
from aish.run.authorized import redeem
from aish.run.record import record_run
from aish.safety.bash.live_shell import ShellFacts


async def _plain_shell(command: str) -> ShellFacts:
    return ShellFacts()


async def _command() -> Authorization:
    granted = await authorize(
        ProposedCommand("true"), Policy("headless", yes_safe=True), facts=_plain_shell
    )
    assert granted.run
    return granted


async def _tool_call() -> Authorization:
    call = ProposedToolCall("time", "get_time", {"zone": "UTC"}, {"readOnlyHint": True}, True)
    granted = await authorize(call, Policy("headless", yes_safe=True))
    assert granted.run
    return granted


async def test_redeem_hands_back_the_authorization_of_its_kind_once() -> None:
    command, call = await _command(), await _tool_call()
    assert redeem(command, "command") is command
    assert redeem(call, "tool call") is call
    with pytest.raises(Unauthorized, match="not authorized by the gate"):
        redeem(command, "command")


async def test_an_action_of_another_kind_is_refused_and_spent() -> None:
    command, call = await _command(), await _tool_call()
    with pytest.raises(Unauthorized, match="not a tool call: true"):
        redeem(command, "tool call")
    with pytest.raises(Unauthorized, match=r"not a shell command[^:]*: time__get_time"):
        redeem(call, "command")
    # Refused after the gate's redeem: neither can be taken to the right executor now.
    for spent, kind in ((command, "command"), (call, "tool call")):
        with pytest.raises(Unauthorized, match="not authorized by the gate"):
            redeem(spent, kind)  # type: ignore[arg-type]


async def test_what_the_gate_declined_or_never_issued_is_refused() -> None:
    declined = await authorize(ProposedCommand("rm -rf /tmp/x"), Policy("headless"))
    assert not declined.run
    with pytest.raises(Unauthorized, match="did not allow"):
        redeem(declined, "command")
    with pytest.raises(Unauthorized, match="not authorized by the gate"):
        redeem(ProposedCommand("true"), "command")


def test_record_run_tells_the_model_and_the_log_once() -> None:
    conversation = Conversation("You are aish.")
    log: list[tuple[str, Mapping[str, Any]]] = []
    run = CommandRun("ls", 0, "/w", "/w", 0.1, "a\n", "model", asked=False)
    record_run(run, conversation, lambda kind, payload: log.append((kind, payload)), shell="agent")
    assert conversation.pending == [run]
    [(kind, payload)] = log
    assert kind == "command"
    assert payload["command"] == "ls" and payload["source"] == "model"
    assert payload["shell"] == "agent"
