"""The per-model token counter: raw estimate, calibration, the reported-prefix path, the report."""

from __future__ import annotations

import math

import pytest

from aish.conversation.tokens import (
    CALIBRATION_WINDOW,
    TokenCount,
    TokenCounter,
    format_token_report,
    raw_estimate,
)
from aish.llm.types import Message, ToolCall, ToolSpec, Usage

FAST = "http://127.0.0.1:8080/v1|fast"
DEEP = "https://api.example.com/v1|deep"
TOOL = ToolSpec("read_file", "Read a file.", {"type": "object", "properties": {}})


def _convo(n: int) -> list[Message]:
    messages = [Message("system", "You are a shell assistant. " * 20)]
    for i in range(n):
        messages += [
            Message("user", f"question {i} " * 10),
            Message("assistant", f"answer {i} " * 8),
        ]
    return [*messages, Message("user", "and now?")]


def _usage(prompt: int, *, estimated: bool = False) -> Usage:
    return Usage(prompt_tokens=prompt, completion_tokens=10, estimated=estimated)


def test_raw_estimate_counts_text_tool_calls_and_tools() -> None:
    assert raw_estimate([]) == 0
    plain = raw_estimate([Message("user", "x" * 400)])
    assert plain == 100 + 4  # bytes / 4 plus the per-message overhead
    call = Message("assistant", "", tool_calls=(ToolCall("call_1", "read_file", '{"p":1}'),))
    assert raw_estimate([call]) > raw_estimate([Message("assistant", "")])
    assert raw_estimate([], [TOOL]) > 8
    # Non-ASCII text costs more per character than ASCII.
    assert raw_estimate([Message("user", "é" * 100)]) > raw_estimate([Message("user", "e" * 100)])


def test_uncalibrated_estimate_is_the_raw_estimate() -> None:
    messages = _convo(2)
    count = TokenCounter().estimate(FAST, messages, [TOOL])
    assert count == TokenCount(math.ceil(raw_estimate(messages, [TOOL])), "estimated", 0)


def test_calibration_learns_the_models_ratio_token_weighted() -> None:
    counter = TokenCounter()
    first, second = _convo(1), _convo(3)
    counter.observe(FAST, first, [], _usage(round(raw_estimate(first) * 1.5)))
    counter.observe(FAST, second, [], _usage(round(raw_estimate(second) * 1.7)))
    other = [Message("system", "Short."), Message("user", "something else entirely " * 30)]
    count = counter.estimate(FAST, other)
    reported = round(raw_estimate(first) * 1.5) + round(raw_estimate(second) * 1.7)
    ratio = reported / (raw_estimate(first) + raw_estimate(second))
    assert count == TokenCount(math.ceil(raw_estimate(other) * ratio), "calibrated", 2)
    assert 1.5 < ratio < 1.7


def test_an_outlier_request_does_not_skew_the_ratio() -> None:
    counter = TokenCounter()
    for n in (1, 2, 3):
        messages = _convo(n)
        counter.observe(FAST, messages, [], _usage(round(raw_estimate(messages) * 2)))
    huge = _convo(4)
    counter.observe(FAST, huge, [], _usage(round(raw_estimate(huge) * 40)))  # a bogus report
    other = [Message("user", "unrelated " * 50)]
    count = counter.estimate(FAST, other)
    assert count.source == "calibrated" and count.calibrated_from == 4
    assert count.tokens == pytest.approx(raw_estimate(other) * 2, rel=0.02)


def test_only_the_last_few_requests_count() -> None:
    counter = TokenCounter()
    messages = _convo(1)
    raw = raw_estimate(messages)
    for _ in range(CALIBRATION_WINDOW):
        counter.observe(FAST, messages, [], _usage(round(raw * 3)))
    for _ in range(CALIBRATION_WINDOW):
        counter.observe(FAST, messages, [], _usage(round(raw * 1.2)))
    other = [Message("user", "y" * 800)]
    count = counter.estimate(FAST, other)
    assert count.calibrated_from == CALIBRATION_WINDOW
    assert count.tokens == pytest.approx(raw_estimate(other) * 1.2, rel=0.01)


def test_estimated_and_empty_usage_teach_nothing() -> None:
    counter = TokenCounter()
    messages = _convo(1)
    counter.observe(FAST, messages, [], _usage(5000, estimated=True))
    counter.observe(FAST, messages, [], _usage(0))
    assert counter.calibrated_from(FAST) == 0
    assert counter.estimate(FAST, [*messages, Message("user", "more")]).source == "estimated"


def test_models_are_calibrated_separately() -> None:
    counter = TokenCounter()
    messages = _convo(2)
    counter.observe(FAST, messages, [], _usage(round(raw_estimate(messages) * 2)))
    counter.observe(DEEP, messages, [], _usage(round(raw_estimate(messages) * 0.5)))
    other = [Message("user", "z" * 2000)]
    fast, deep = counter.estimate(FAST, other), counter.estimate(DEEP, other)
    assert fast.tokens == pytest.approx(raw_estimate(other) * 2, rel=0.01)
    assert deep.tokens == pytest.approx(raw_estimate(other) * 0.5, rel=0.01)
    assert counter.estimate("elsewhere|x", other).source == "estimated"
    assert (counter.calibrated_from(FAST), counter.calibrated_from(DEEP)) == (1, 1)


def test_a_request_extending_the_last_one_uses_its_reported_count() -> None:
    counter = TokenCounter()
    earlier = _convo(1)
    counter.observe(FAST, earlier, [], _usage(round(raw_estimate(earlier) * 3)))
    last = _convo(2)
    counter.observe(FAST, last, [TOOL], _usage(1234))
    ratio = (round(raw_estimate(earlier) * 3) + 1234) / (
        raw_estimate(earlier) + raw_estimate(last, [TOOL])
    )
    added = [Message("assistant", "the reply " * 20), Message("user", "output:\n" + "x" * 3000)]
    count = counter.estimate(FAST, last + added, [TOOL])
    assert count == TokenCount(1234 + math.ceil(raw_estimate(added) * ratio), "reported", 2)
    # The very same request: exactly what the server reported.
    assert counter.estimate(FAST, last, [TOOL]) == TokenCount(1234, "reported", 2)


@pytest.mark.parametrize(
    "change",
    ["other tools", "edited history", "shorter"],
)
def test_a_request_that_does_not_extend_the_last_one_is_calibrated(change: str) -> None:
    counter = TokenCounter()
    last = _convo(2)
    counter.observe(FAST, last, [TOOL], _usage(1234))
    tools: list[ToolSpec] = [TOOL]
    if change == "other tools":
        messages, tools = [*last, Message("user", "more")], []
    elif change == "edited history":
        messages = [Message("system", "A new system prompt."), *last[1:]]
    else:
        messages = last[:-2]
    assert counter.estimate(FAST, messages, tools).source == "calibrated"


def test_token_report_lines() -> None:
    report = format_token_report(
        TokenCount(1234, "calibrated", 3), budget=8192, turns=12, max_turns=40, preset="fast"
    )
    assert report == (
        "next request to fast: ~1,234 tokens of 8,192 (15%), 12 of 40 turns"
        " — calibrated from 3 requests"
    )
    exact = format_token_report(
        TokenCount(1234, "exact"), budget=8192, turns=1, max_turns=40, preset="fast"
    )
    assert exact == (
        "next request to fast: 1,234 tokens (counted by the server) of 8,192 (15%), 1 of 40 turns"
    )
    reported = format_token_report(
        TokenCount(9000, "reported", 1), budget=8192, turns=3, max_turns=40, preset="deep"
    )
    assert reported == (
        "next request to deep: ~9,000 tokens of 8,192 (110%), 3 of 40 turns"
        " — last request as counted by the server, the rest calibrated from 1 request"
    )
    estimated = format_token_report(
        TokenCount(50, "estimated"), budget=0, turns=0, max_turns=0, preset="fast"
    )
    assert estimated == (
        "next request to fast: ~50 tokens, 0 turns — estimated, not yet calibrated"
        " (no usage reported)"
    )
