"""Prefix-reuse accounting and the stand-in tokenizer of aish-testllm (pure functions)."""

from __future__ import annotations

import json

import pytest

from aish_testllm.prefix import PrefixTracker, common_prefix_len, prefix_reuse, serialise_prompt
from aish_testllm.tokens import estimate_tokens, tokenize


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ("", "", 0),
        ("abc", "", 0),
        ("abc", "abc", 3),
        ("abc", "abcdef", 3),
        ("abcdef", "abc", 3),
        ("xbc", "abc", 0),
        ("abcX", "abcY", 3),
        ("héllo wörld", "héllo world", 7),
        ("a" * 1000 + "b", "a" * 1000 + "c", 1000),
    ],
)
def test_common_prefix_len(a: str, b: str, expected: int) -> None:
    assert common_prefix_len(a, b) == expected
    assert common_prefix_len(b, a) == expected


def test_prefix_reuse_first_request_and_fraction() -> None:
    assert prefix_reuse(None, "anything").as_json() == {"chars": 0, "fraction": 0.0}
    assert prefix_reuse("", "").as_json() == {"chars": 0, "fraction": 0.0}
    reuse = prefix_reuse("abcdXYZ", "abcdefgh")
    assert (reuse.chars, reuse.fraction) == (4, 0.5)


def test_serialise_prompt_is_compact_ordered_and_keeps_message_key_order() -> None:
    messages = [{"content": "hi", "role": "user"}]
    text = serialise_prompt(None, None, messages)
    assert text == '{"tools":[],"system":null,"messages":[{"content":"hi","role":"user"}]}'
    text = serialise_prompt([{"name": "ls"}], "sys ✓", [])
    assert text == '{"tools":[{"name":"ls"}],"system":"sys ✓","messages":[]}'
    assert list(json.loads(text)) == ["tools", "system", "messages"]


def test_tracker_measures_against_the_previous_prompt_only() -> None:
    tracker = PrefixTracker()
    assert tracker.observe("abcdef").chars == 0
    assert tracker.observe("abcxyz").chars == 3
    assert tracker.observe("abcxyz!").chars == 6
    assert tracker.observe("zzz").chars == 0


@pytest.mark.parametrize(("chars", "tokens"), [(0, 0), (1, 1), (4, 1), (5, 2), (8, 2), (9, 3)])
def test_estimate_tokens_is_ceil_of_a_quarter(chars: int, tokens: int) -> None:
    assert estimate_tokens(chars) == tokens


def test_tokenize_is_deterministic_one_token_per_four_chars() -> None:
    assert tokenize("") == []
    ids = tokenize("Hello, world!")
    assert len(ids) == 4 and ids == tokenize("Hello, world!")
    assert all(isinstance(i, int) and i > 0 for i in ids)
    assert tokenize("abcdabcd")[0] == tokenize("abcdabcd")[1]
