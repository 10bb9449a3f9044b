"""The outbound door: what a scrubbing target is sent, and the spending stop before it."""

from __future__ import annotations

import pytest

from aish.agent.outbound import Outbound, SpendingStopped
from aish.llm.types import Message, ModelTarget, ToolCall

CLOUD = ModelTarget("cloud", "https://api.example.com/v1", "m", scrub_secrets=True)
LOCAL = ModelTarget("local", "http://127.0.0.1:8080/v1", "m")
PASSWORD = "Zq9xLm2Pw7Rt"


def test_a_local_target_gets_the_messages_as_they_are() -> None:
    messages = [Message("user", f"psql --password={PASSWORD}")]
    assert Outbound(environment={}).prepare(LOCAL, messages) == messages


def test_a_value_revealed_late_in_a_request_is_scrubbed_earlier_in_it_too() -> None:
    door = Outbound(environment={})
    messages = [
        Message("user", f"output: {PASSWORD}"),
        Message("assistant", "ok"),
        Message("user", f"psql --password={PASSWORD}"),
    ]
    sent = door.prepare(CLOUD, messages)
    assert all(PASSWORD not in m.content for m in sent)
    # The next request (the same history plus one) sends the old messages byte for byte.
    again = door.prepare(CLOUD, [*messages, Message("assistant", "done")])
    assert again[: len(sent)] == sent


def test_environment_values_and_tool_call_arguments_are_scrubbed() -> None:
    door = Outbound(environment={"MY_API_KEY": "Qw7eRt9yUi2oPzX"})
    call = ToolCall("1", "notes__write", '{"text": "Qw7eRt9yUi2oPzX"}')
    [sent] = door.prepare(CLOUD, [Message("assistant", "", tool_calls=(call,))])
    assert "Qw7eRt9yUi2oPzX" not in sent.tool_calls[0].arguments
    assert "AISH_SECRET_" in sent.tool_calls[0].arguments


def test_the_spending_stop_refuses_before_anything_is_prepared() -> None:
    door = Outbound(environment={}, refuse=lambda target: "spent too much")
    with pytest.raises(SpendingStopped, match="spent too much"):
        door.prepare(CLOUD, [Message("user", "hi")])
