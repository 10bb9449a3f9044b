"""SSE handling must not depend on where the network splits the bytes.

aish's own HTTP responses (`aish.llm.http1.Response`) over an in-memory body: the split points
are the variable, the decoding (the response's incremental UTF-8, aish's SSE parser and wire
decoders) is the real code.
"""

from __future__ import annotations

import asyncio
import itertools
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from aish.llm.anthropic_protocol import AnthropicStreamDecoder
from aish.llm.http1 import Response
from aish.llm.http1.body import Body
from aish.llm.http1.head import Headers, ResponseHead
from aish.llm.openai_protocol import OpenAIStreamDecoder
from aish.llm.sse import aiter_sse
from aish.llm.types import Reply


class _Pieces(Body):
    """A body that arrives in the given pieces."""

    def __init__(self, pieces: list[bytes]) -> None:
        super().__init__()
        self._pieces = list(pieces)
        self.done = False

    async def next(self) -> bytes:
        if self._pieces:
            return self._pieces.pop(0)
        self.done = True
        return b""


def _chunk(delta: dict[str, object], finish: str | None = None) -> str:
    body = {"id": "c1", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    return "data: " + json.dumps(body, ensure_ascii=False)


OPENAI_STREAM = "\r\n\r\n".join(
    [
        ": ping",
        _chunk({"role": "assistant", "content": None}),
        _chunk({"reasoning_content": "thinking… ✓"}),
        _chunk({"content": "héllo wörld 🎉 "}),
        ": OPENROUTER PROCESSING",
        _chunk({"content": "CMD: ls -la\n"}),
        _chunk(
            {
                "tool_calls": [
                    {"index": 0, "id": "t1", "type": "function", "function": {"name": "f"}}
                ]
            }
        ),
        _chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"a": "ü'}}]}),
        _chunk({"tool_calls": [{"index": 0, "function": {"arguments": '"}'}}]}),
        _chunk({}, "tool_calls"),
        'data: {"choices": [], "usage": {"prompt_tokens": 7, "completion_tokens": 3}}',
        "data: [DONE]",
        "",
    ]
).encode()

ANTHROPIC_STREAM = "".join(
    f"event: {name}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"
    for name, data in [
        ("message_start", {"type": "message_start", "message": {"usage": {"input_tokens": 9}}}),
        ("ping", {"type": "ping"}),
        ("content_block_start", {"index": 0, "content_block": {"type": "text", "text": ""}}),
        ("content_block_delta", {"index": 0, "delta": {"type": "text_delta", "text": "naïve ☕"}}),
        ("content_block_stop", {"index": 0}),
        (
            "content_block_start",
            {"index": 1, "content_block": {"type": "tool_use", "id": "tu", "name": "g"}},
        ),
        (
            "content_block_delta",
            {"index": 1, "delta": {"type": "input_json_delta", "partial_json": '{"x":'}},
        ),
        (
            "content_block_delta",
            {"index": 1, "delta": {"type": "input_json_delta", "partial_json": " 1}"}},
        ),
        ("content_block_stop", {"index": 1}),
        (
            "message_delta",
            {"delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 5}},
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
).encode()


async def _decode(
    pieces: list[bytes], decoder: OpenAIStreamDecoder | AnthropicStreamDecoder
) -> Reply:
    head = ResponseHead("HTTP/1.1", 200, "OK", Headers([("Content-Type", "text/event-stream")]))
    response = Response("http://model/v1", head, _Pieces(pieces))
    reply = Reply()
    async for sse in aiter_sse(response.aiter_text()):
        for event in decoder.feed(sse):
            reply.add(event)
    for event in decoder.end():
        reply.add(event)
    return reply


def _all_splits(data: bytes) -> list[list[bytes]]:
    return [[data[:i], data[i:]] for i in range(1, len(data))] + [
        [data[i : i + 1] for i in range(len(data))]
    ]


def test_openai_stream_is_the_same_wherever_it_is_split() -> None:
    async def run() -> None:
        whole = await _decode([OPENAI_STREAM], OpenAIStreamDecoder())
        assert whole.text == "héllo wörld 🎉 CMD: ls -la\n"
        assert whole.reasoning == "thinking… ✓"
        assert [(c.id, c.name, c.arguments) for c in whole.tool_calls] == [
            ("t1", "f", '{"a": "ü"}')
        ]
        assert whole.usage is not None and whole.usage.prompt_tokens == 7
        assert whole.finish is not None and whole.finish.reason == "tool_calls"
        for pieces in _all_splits(OPENAI_STREAM):
            assert await _decode(pieces, OpenAIStreamDecoder()) == whole, pieces

    asyncio.run(run())


def test_anthropic_stream_is_the_same_wherever_it_is_split() -> None:
    async def run() -> None:
        whole = await _decode([ANTHROPIC_STREAM], AnthropicStreamDecoder())
        assert whole.text == "naïve ☕"
        assert [(c.id, c.name, c.arguments) for c in whole.tool_calls] == [("tu", "g", '{"x": 1}')]
        assert whole.usage is not None
        assert (whole.usage.prompt_tokens, whole.usage.completion_tokens) == (9, 5)
        for pieces in _all_splits(ANTHROPIC_STREAM):
            assert await _decode(pieces, AnthropicStreamDecoder()) == whole, pieces

    asyncio.run(run())


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(min_value=1, max_value=len(OPENAI_STREAM) - 1), max_size=12))
def test_openai_stream_survives_any_multiway_split(cuts: list[int]) -> None:
    points = [0, *sorted(set(cuts)), len(OPENAI_STREAM)]
    pieces = [OPENAI_STREAM[a:b] for a, b in itertools.pairwise(points)]
    whole = asyncio.run(_decode([OPENAI_STREAM], OpenAIStreamDecoder()))
    assert asyncio.run(_decode(pieces, OpenAIStreamDecoder())) == whole
