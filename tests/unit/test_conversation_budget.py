"""The context budget's arithmetic, without a model: what a request weighs and what leaves."""

from __future__ import annotations

from aish.conversation.budget import Limits, end_of_exchanges, exchange_sizes
from aish.conversation.context import Conversation
from aish.conversation.tokens import TokenCounter
from aish.llm.types import Message, ModelTarget

TARGET = ModelTarget(name="t", endpoint="http://127.0.0.1:1/v1", model="m")


def _conversation(exchanges: int, words: int = 5) -> Conversation:
    conversation = Conversation("You are aish.")
    for n in range(exchanges):
        conversation.history.append(Message("user", f"question {n} " + "word " * words))
        conversation.history.append(Message("assistant", f"answer {n} " + "word " * words))
    return conversation


def test_over_max_turns_leaves_down_to_three_quarters() -> None:
    conversation = _conversation(4)
    limits = Limits(max_turns=4, token_budget=100_000, counter=TokenCounter())
    newest = Message("user", "question 4")
    over_turns, over_tokens, _ = limits.over(conversation, newest, TARGET)
    assert (over_turns, over_tokens) == (True, False)
    count = limits.evictions(conversation, newest, TARGET, (), over_turns=True, reserve_chars=0)
    assert count == 2  # keeps max(int(4 * 0.75) - 1, 0) = 2 of the 4


def test_over_the_token_budget_leaves_the_oldest_until_it_fits() -> None:
    conversation = _conversation(6, words=200)
    counter = TokenCounter()
    sizes = exchange_sizes(counter, conversation, TARGET)
    assert len(sizes) == 6 and all(size > 0 for size in sizes)
    budget = sum(sizes[3:]) + 50
    limits = Limits(max_turns=100, token_budget=budget, counter=counter)
    newest = Message("user", "short")
    over_turns, over_tokens, _ = limits.over(conversation, newest, TARGET)
    assert (over_turns, over_tokens) == (False, True)
    count = limits.evictions(conversation, newest, TARGET, (), over_turns=False, reserve_chars=0)
    assert 0 < count < 6


def test_a_request_too_big_on_its_own_evicts_nothing() -> None:
    conversation = _conversation(2)
    limits = Limits(max_turns=100, token_budget=10, counter=TokenCounter())
    huge = Message("user", "word " * 1000)
    assert limits.evictions(conversation, huge, TARGET, (), over_turns=False, reserve_chars=0) == 0


def test_end_of_exchanges_is_just_past_the_oldest() -> None:
    history = _conversation(3).history
    assert end_of_exchanges(history, 0) == 0
    assert end_of_exchanges(history, 1) == 2
    assert end_of_exchanges(history, 3) == len(history)
