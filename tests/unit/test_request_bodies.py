"""Request bodies: stable bytes for identical input, legal role order for strict servers."""

from __future__ import annotations

import json

from aish.llm import anthropic_protocol, openai_protocol
from aish.llm.types import Message, ModelTarget, ToolCall, ToolSpec

TARGET = ModelTarget("t", "http://127.0.0.1:1/v1", "m", max_tokens=100, temperature=0.2)
TOOLS = [ToolSpec("b", "second", {"type": "object"}), ToolSpec("a", "first", {"type": "object"})]
HISTORY = [
    Message("system", "sys"),
    Message("user", "q1"),
    Message("assistant", "", tool_calls=(ToolCall("c1", "a", '{"x": 1}'),)),
    Message("tool", "result one", tool_call_id="c1"),
    Message("user", "and then?"),
]


def test_openai_body_is_deterministic_and_keeps_tool_order() -> None:
    one = json.dumps(openai_protocol.request_body(TARGET, HISTORY, TOOLS))
    two = json.dumps(openai_protocol.request_body(TARGET, list(HISTORY), list(TOOLS)))
    assert one == two
    body = openai_protocol.request_body(TARGET, HISTORY, TOOLS)
    assert [t["function"]["name"] for t in body["tools"]] == ["b", "a"]
    assistant = body["messages"][2]
    assert assistant["content"] is None
    assert assistant["tool_calls"][0]["function"] == {"name": "a", "arguments": '{"x": 1}'}
    assert body["messages"][3] == {"role": "tool", "tool_call_id": "c1", "content": "result one"}
    assert (body["max_tokens"], body["temperature"]) == (100, 0.2)


def test_anthropic_body_hoists_system_and_merges_user_turns() -> None:
    body = anthropic_protocol.request_body(TARGET, HISTORY, TOOLS)
    assert body["system"] == "sys"
    assert [t["role"] for t in body["messages"]] == ["user", "assistant", "user"]
    last = body["messages"][2]["content"]
    assert last[0] == {"type": "tool_result", "tool_use_id": "c1", "content": "result one"}
    assert last[1] == {"type": "text", "text": "and then?"}
    assert body["messages"][1]["content"] == [
        {"type": "tool_use", "id": "c1", "name": "a", "input": {"x": 1}}
    ]
    assert anthropic_protocol.messages_url(TARGET) == "http://127.0.0.1:1/v1/messages"
    no_v1 = ModelTarget("t", "https://api.anthropic.com", "m", api="anthropic")
    assert anthropic_protocol.messages_url(no_v1) == "https://api.anthropic.com/v1/messages"


def test_anthropic_body_without_tools_tells_earlier_tool_rounds_as_text() -> None:
    # Anthropic refuses tool_use/tool_result blocks in a request that defines no tools (every
    # server down, a preset with tools = false, a side question on the conversation).
    body = anthropic_protocol.request_body(TARGET, HISTORY, None)
    assert "tools" not in body
    assert body["messages"][1]["content"] == [
        {"type": "text", "text": '[tool call c1: a {"x": 1}]'}
    ]
    assert body["messages"][2]["content"] == [
        {"type": "text", "text": "[result of tool call c1]\nresult one"},
        {"type": "text", "text": "and then?"},
    ]
    blocks = json.dumps(body)
    assert "tool_use" not in blocks and "tool_result" not in blocks
