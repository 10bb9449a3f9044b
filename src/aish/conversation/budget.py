"""The context budget's arithmetic (`context.max_turns`, `context.token_budget`, §3).

How many tokens a request would be, how many each exchange of the history weighs, whether a
request is over a limit and how many of the oldest exchanges must leave for it to fit. Pure: no
model call, no event, no log. `agent.context_budget.ContextBudget` decides when to apply it,
asks the summariser and tells the user.

Eviction goes down to three quarters of the limit exceeded (`LOW_WATER`) rather than just under
it, so it happens now and then instead of every turn: each eviction rewrites the prefix a server
has cached, and each summary costs a call.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from aish.conversation.context import Conversation
from aish.conversation.tokens import TokenCounter, model_key
from aish.llm.types import Message, ModelTarget, ToolSpec

__all__ = [
    "LOW_WATER",
    "Limits",
    "end_of_exchanges",
    "exchange_sizes",
    "request_tokens",
]

# Eviction goes down to this share of the limit that was exceeded.
LOW_WATER = 0.75


def request_tokens(
    counter: TokenCounter,
    conversation: Conversation,
    newest: Message,
    target: ModelTarget,
    tools: Sequence[ToolSpec] = (),
) -> int:
    """The tokens of the request `newest` would make."""
    messages = conversation.request(newest)
    return counter.estimate(model_key(target), messages, tools).tokens


def exchange_sizes(
    counter: TokenCounter, conversation: Conversation, target: ModelTarget
) -> list[int]:
    """The tokens of each exchange of the history, oldest first."""
    groups: list[list[Message]] = []
    for message in conversation.history:
        if message.role == "user" or not groups:
            groups.append([])
        groups[-1].append(message)
    key = model_key(target)
    return [counter.estimate(key, group).tokens for group in groups]


def end_of_exchanges(history: Sequence[Message], count: int) -> int:
    """The index just past the `count` oldest exchanges."""
    seen = 0
    for index, message in enumerate(history):
        if message.role == "user":
            if seen == count:
                return index
            seen += 1
    return len(history)


@dataclass(frozen=True)
class Limits:
    """`context.max_turns` and `context.token_budget`, measured with one token counter."""

    max_turns: int
    token_budget: int
    counter: TokenCounter

    def over(
        self,
        conversation: Conversation,
        newest: Message,
        target: ModelTarget,
        tools: Sequence[ToolSpec] = (),
    ) -> tuple[bool, bool, int]:
        """`(over max_turns, over token_budget, the request's tokens)` for sending `newest`."""
        tokens = request_tokens(self.counter, conversation, newest, target, tools)
        over_turns = conversation.exchange_count() + 1 > self.max_turns
        return over_turns, tokens > self.token_budget, tokens

    def evictions(
        self,
        conversation: Conversation,
        newest: Message,
        target: ModelTarget,
        tools: Sequence[ToolSpec],
        *,
        over_turns: bool,
        reserve_chars: int,
    ) -> int:
        """The oldest exchanges to evict: down to three quarters of the limit exceeded; 0
        when only the token budget is exceeded and the request would be over it even with no
        history at all. `reserve_chars` is kept free for the summary the message will tell,
        so that it does not push the request over again."""
        exchanges = conversation.exchange_count()
        count = 0
        if over_turns:
            keep = max(int(self.max_turns * LOW_WATER) - 1, 0)
            count = exchanges - keep
        sizes = exchange_sizes(self.counter, conversation, target)
        total = request_tokens(self.counter, conversation, newest, target, tools)
        total += reserve_chars // 4
        fixed = total - sum(sizes)  # the system prompt, the tools, the newest message
        if fixed > self.token_budget:
            return count
        over_tokens = total > self.token_budget
        # Three quarters of the budget; just the budget when the fixed part leaves no room for
        # that (then the history goes only as far as it must).
        goal = self.token_budget * LOW_WATER if over_tokens else self.token_budget
        goal = self.token_budget if fixed > goal else goal
        total -= sum(sizes[:count])
        while count < exchanges and total > goal:
            total -= sizes[count]
            count += 1
        return min(count, exchanges)
