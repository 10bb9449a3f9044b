"""The OpenAI-compatible decoder on the quirks servers are known to have."""

from __future__ import annotations

import json

import pytest

from aish.llm.errors import ProtocolError, StreamErrorEvent, TruncatedStreamError
from aish.llm.openai_protocol import OpenAIStreamDecoder, decode_completion
from aish.llm.sse import ServerSentEvent, SSEParser
from aish.llm.types import Reply


def _run(raw: str) -> Reply:
    parser = SSEParser()
    decoder = OpenAIStreamDecoder()
    reply = Reply()
    for sse in parser.feed(raw) + parser.close():
        for event in decoder.feed(sse):
            reply.add(event)
    for event in decoder.end():
        reply.add(event)
    return reply


def _data(obj: object) -> str:
    return f"data: {json.dumps(obj)}\n\n"


def test_whole_tool_call_in_one_chunk_and_empty_repeated_ids() -> None:
    call = {
        "index": 0,
        "id": "c9",
        "type": "function",
        "function": {"name": "ls", "arguments": '{"p": 1}'},
    }
    again = {"index": 0, "id": "", "function": {"name": "", "arguments": ""}}
    raw = (
        _data({"choices": [{"index": 0, "delta": {"tool_calls": [call]}}]})
        + _data({"choices": [{"index": 0, "delta": {"tool_calls": [again]}}]})
        + _data({"choices": [{"index": 0, "delta": {}, "finish_reason": "STOP"}]})
        + "data: [DONE]\n\n"
    )
    reply = _run(raw)
    assert [(c.id, c.name, c.arguments) for c in reply.tool_calls] == [("c9", "ls", '{"p": 1}')]
    # A finish reason in odd case is normalised; a call means the turn ended for tools.
    assert reply.finish is not None and reply.finish.reason == "tool_calls"


def test_usage_chunk_with_null_or_missing_choices() -> None:
    for usage_chunk in (
        {"choices": None, "usage": {"prompt_tokens": 3, "completion_tokens": 1}},
        {"usage": {"prompt_tokens": 3, "completion_tokens": 1}},
    ):
        raw = (
            _data(
                {
                    "choices": [{"index": 0, "delta": {"content": "x"}, "finish_reason": None}],
                    "usage": None,
                }
            )
            + _data(
                {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}], "usage": None}
            )
            + _data(usage_chunk)
            + "data: [DONE]\n\n"
        )
        reply = _run(raw)
        assert reply.text == "x"
        assert reply.usage is not None and reply.usage.prompt_tokens == 3


def test_unknown_finish_reason_is_other_not_a_crash() -> None:
    reply = _run(
        _data({"choices": [{"index": 0, "delta": {"content": "a"}, "finish_reason": "weird"}]})
    )
    assert reply.finish is not None and reply.finish.reason == "other"


def test_legacy_error_line_is_an_error_with_its_message() -> None:
    raw = _data({"choices": [{"index": 0, "delta": {"content": "par"}}]}) + (
        'error: {"code": 500, "message": "slot unavailable"}\n\n'
    )
    with pytest.raises(StreamErrorEvent) as caught:
        _run(raw)
    assert "slot unavailable" in str(caught.value)
    assert caught.value.partial == "par"


def test_eof_without_finish_is_truncated_and_keeps_partial() -> None:
    with pytest.raises(TruncatedStreamError) as caught:
        _run(_data({"choices": [{"index": 0, "delta": {"content": "half"}}]}) + 'data: {"cho')
    assert caught.value.partial == "half"


def test_garbage_chunk_is_a_protocol_error() -> None:
    with pytest.raises(ProtocolError):
        _run("data: <html>oops</html>\n\n")


def test_old_vllm_top_level_error_object() -> None:
    with pytest.raises(StreamErrorEvent, match="out of memory"):
        _run(_data({"object": "error", "message": "out of memory", "code": 500}))


def test_whole_completion_json() -> None:
    events = decode_completion(
        {
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": "hi"},
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": 4, "completion_tokens": 1, "cost": 0.002},
        }
    )
    reply = Reply()
    for event in events:
        reply.add(event)
    assert reply.text == "hi"
    assert reply.usage is not None and reply.usage.provider_cost_usd == 0.002


def test_event_named_error_is_an_error() -> None:
    decoder = OpenAIStreamDecoder()
    with pytest.raises(StreamErrorEvent, match="bad"):
        decoder.feed(ServerSentEvent(event="error", data='{"error": {"message": "bad"}}'))


def _tool_chunk(*fragments: dict[str, object]) -> str:
    return _data({"choices": [{"index": 0, "delta": {"tool_calls": list(fragments)}}]})


def _finish(reason: str = "tool_calls") -> str:
    return _data({"choices": [{"index": 0, "delta": {}, "finish_reason": reason}]})


def test_ollama_parallel_calls_all_with_index_zero_stay_apart() -> None:
    raw = (
        _tool_chunk({"index": 0, "id": "a", "function": {"name": "w", "arguments": '{"p":"a"}'}})
        + _tool_chunk({"index": 0, "id": "b", "function": {"name": "w", "arguments": '{"p":"b"}'}})
        + _finish()
    )
    reply = _run(raw)
    assert [(c.id, c.arguments) for c in reply.tool_calls] == [
        ("a", '{"p":"a"}'),
        ("b", '{"p":"b"}'),
    ]


def test_fragments_without_index_continue_the_call_they_belong_to() -> None:
    raw = (
        _tool_chunk({"id": "a", "function": {"name": "w", "arguments": ""}})
        + _tool_chunk({"function": {"arguments": '{"p":'}})
        + _tool_chunk({"function": {"arguments": '"a"}'}})
        + _tool_chunk({"id": "b", "function": {"name": "r", "arguments": "{}"}})
        + _finish()
    )
    reply = _run(raw)
    assert [(c.id, c.name, c.arguments) for c in reply.tool_calls] == [
        ("a", "w", '{"p":"a"}'),
        ("b", "r", "{}"),
    ]


def test_reasoning_under_both_names_is_shown_once() -> None:
    raw = _data(
        {"choices": [{"index": 0, "delta": {"reasoning_content": "think", "reasoning": "think"}}]}
    ) + _finish("stop")
    assert _run(raw).reasoning == "think"


def test_error_events_carry_their_status_and_only_5xx_is_retryable() -> None:
    for payload, status, retryable in [
        ({"error": {"code": 502, "message": "Provider returned error"}}, 502, True),
        ({"error": {"type": "overloaded_error", "message": "Overloaded"}}, 529, True),
        ({"error": {"code": 400, "message": "bad"}}, 400, False),
        ({"error": {"message": "no code"}}, None, False),
    ]:
        with pytest.raises(StreamErrorEvent) as caught:
            _run(_data(payload))
        assert (caught.value.status, caught.value.retryable) == (status, retryable)
        assert not caught.value.fallback_eligible
