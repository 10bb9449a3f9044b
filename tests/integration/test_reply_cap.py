"""A reply is read only up to the preset's `max_reply_chars`, then the stream is closed and the
reply cut with one line. Real aish-testllm over HTTP; the servers here stall forever (with
pings, so no idle timeout ends it) once they sent more than the cap, so a broker that kept
reading would never finish."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from aish.llm.broker import chat
from aish.llm.errors import ProtocolError
from aish.llm.reply_cap import MIN_WIRE_CHARS
from aish.llm.types import Message, ModelTarget, Reply, ToolSpec

from ..conftest import ServeFn

AISH = [sys.executable, "-m", "aish"]
MESSAGES = [Message("user", "talk forever")]
TOOLS = [ToolSpec("write", "write a file", {"type": "object"})]
LINE = "0123456789abcdefghi\n"  # 20 characters
LONG_TEXT = LINE * 15_000  # 300,000 characters
# After 150 chunks of 1,000 characters (150,000, more than the caps below) the server stops
# sending anything but pings for five minutes.
FOREVER = {"chunk_size": 1000, "stall_after": 150, "stall_s": 300, "ping_every_ms": 200}


def _target(url: str, cap: int, api: str = "openai") -> ModelTarget:
    endpoint = url if api == "anthropic" else url + "/v1"
    return ModelTarget("t", endpoint, "testllm", api=api, max_reply_chars=cap, max_retries=0)


def _chat(serve: ServeFn, reply: dict[str, Any], cap: int, api: str = "openai") -> Reply:
    server = serve({"rules": [], "default": reply})
    return asyncio.run(asyncio.wait_for(chat(_target(server.url, cap, api), MESSAGES, TOOLS), 60))


@pytest.mark.parametrize("api", ["openai", "anthropic"])
def test_text_is_cut_exactly_at_the_cap_and_the_stream_closed(serve: ServeFn, api: str) -> None:
    reply = _chat(serve, {"text": LONG_TEXT, **FOREVER}, cap=100_000, api=api)
    assert reply.text == LONG_TEXT[:100_000]
    assert reply.cut and reply.finish is not None and reply.finish.reason == "reply_cap"
    assert reply.finish.raw_reason == "reply"
    assert reply.usage is not None and reply.usage.estimated  # what arrived is still counted


def test_reasoning_counts_toward_the_cap(serve: ServeFn) -> None:
    reply = _chat(serve, {"reasoning": LONG_TEXT, "text": "never", **FOREVER}, cap=50_000)
    assert reply.reasoning == LONG_TEXT[:50_000] and reply.text == "" and reply.cut


@pytest.mark.parametrize("api", ["openai", "anthropic"])
def test_a_tool_call_past_the_cap_is_dropped_whole(serve: ServeFn, api: str) -> None:
    call = {"name": "write", "arguments": {"text": LONG_TEXT}}
    reply = _chat(
        serve, {"text": "Writing.", "tool_calls": [call], **FOREVER}, cap=100_000, api=api
    )
    assert reply.text == "Writing." and reply.tool_calls == [] and reply.cut


@pytest.mark.parametrize("chunk_size", [1, 1000, len(LONG_TEXT)])
def test_a_reply_within_the_cap_is_untouched(serve: ServeFn, chunk_size: int) -> None:
    # One character per event is the most framing a reply can come with; the whole reply in
    # one event, the longest line.
    reply = _chat(serve, {"text": LONG_TEXT, "chunk_size": chunk_size}, cap=len(LONG_TEXT))
    assert reply.text == LONG_TEXT and not reply.cut
    assert reply.finish is not None and reply.finish.reason == "stop"


def test_an_endless_line_is_cut_at_the_line_limit_before_the_wire_limit(serve: ServeFn) -> None:
    cap = 200_000  # one line may be 1.6 million characters, the whole stream 102 million
    endless = 'data: {"choices":[{"index":0,"delta":{"content":"' + "x" * (cap * 8 + 4096)
    scripted = {"raw": [endless], "stall_after": 1, "stall_s": 300, "ping_every_ms": 200}
    reply = _chat(serve, scripted, cap=cap)
    assert reply.cut and reply.finish is not None and reply.finish.raw_reason == "wire"


def test_an_endless_line_is_cut_at_the_wire_limit(serve: ServeFn) -> None:
    # One SSE line that never ends: no event is ever complete, so only the wire count sees it.
    endless = 'data: {"choices":[{"index":0,"delta":{"content":"' + "x" * (MIN_WIRE_CHARS + 4096)
    reply = _chat(
        serve, {"raw": [endless], "stall_after": 1, "stall_s": 300, "ping_every_ms": 200}, cap=10
    )
    assert reply.cut and reply.finish is not None and reply.finish.raw_reason == "wire"
    assert reply.text == ""


def test_a_stream_of_nothing_but_comments_ends_at_the_wire_limit(serve: ServeFn) -> None:
    # Comments reset the idle timeout and carry no reply: without a bound this never ends.
    comments = [": " + "p" * 1000 + "\n"] * (MIN_WIRE_CHARS // 1000 + 100)
    scripted = {"raw": comments, "stall_after": len(comments), "stall_s": 300}
    reply = _chat(serve, {**scripted, "ping_every_ms": 200}, cap=10)
    assert reply.cut and reply.finish is not None and reply.finish.raw_reason == "wire"


def test_a_whole_json_body_past_the_wire_limit_is_not_read(serve: ServeFn) -> None:
    body = '{"choices":[{"message":{"content":"' + "x" * (MIN_WIRE_CHARS + 4096) + '"}}]}'
    server = serve({"rules": [], "default": {"raw": [body], "content_type": "application/json"}})
    with pytest.raises(ProtocolError, match="larger than 1,048,576 bytes"):
        asyncio.run(chat(_target(server.url, 10), MESSAGES))


def test_aish_ask_shows_what_arrived_and_says_so_once(serve: ServeFn, xdg_home: Path) -> None:
    server = serve({"rules": [], "default": {"text": LONG_TEXT, **FOREVER}})
    config = xdg_home / "config" / "aish" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        f'default_model = "local"\n[models.local]\nendpoint = "{server.url}/v1"\n'
        'model = "testllm"\ntimeout_s = 5\nmax_retries = 0\nmax_reply_chars = 100000\n'
    )
    result = subprocess.run(
        [*AISH, "ask", "talk forever"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        env=os.environ.copy(),
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == LONG_TEXT[:100_000]  # it ends on a line break of its own
    assert result.stderr.splitlines() == [
        "[aish] reply cut at 100,000 characters (models.local.max_reply_chars); "
        "the rest was not read"
    ]
