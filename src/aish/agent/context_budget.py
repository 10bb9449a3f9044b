"""Keeping the conversation within `context.max_turns` and `context.token_budget` (§3).

Before each new exchange (a chat turn, a Norris step) the request it would send is measured:
when it has too many exchanges or too many tokens, the oldest exchanges leave whole, with one
status line. The arithmetic — the sizes, the limits, how many exchanges leave (down to three
quarters of the limit exceeded) — is pure and lives in `conversation.budget`; this module is
the part that needs the agent: resolving and asking the summariser, the status lines, the log.

With `context.summarize_on_evict` (never in Norris: a run must not pause to summarise its own
steps) the evicted exchanges and the summary so far go to the summariser, and the new summary
is told with the next message. The summariser gets a bounded time; when it fails, is too slow
or cannot be resolved, the exchanges are dropped anyway, the old summary kept, and one status
line says so. Evictions are logged, so a resumed session evicts the same exchanges.

The budget is checked when an exchange starts, not between the requests of a tool sub-loop:
the open round is the newest exchange, and its results must reach the model whole.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from aish.agent.events import AgentEvent, Status, UsageRecorded
from aish.agent.exchange import TurnLog
from aish.agent.outbound import REQUEST_FAILURES
from aish.config.schema import AishConfig
from aish.conversation.budget import Limits, end_of_exchanges, request_tokens
from aish.conversation.context import Conversation
from aish.conversation.summary import clip, shorten_request, summarize_request
from aish.conversation.tokens import TokenCounter
from aish.errors import ConfigError
from aish.llm.types import Message, ModelTarget, PresetResolver, ToolSpec

_log = logging.getLogger("aish.context")

_OVER = (
    "the request is ~{tokens:,} tokens, over context.token_budget {budget:,}, even without "
    "older exchanges: sending it anyway"
)
# The longest the summariser may hold up the user's request, whatever its preset allows.
SUMMARY_TIMEOUT_S = 30.0


@dataclass
class ContextBudget:
    """The limits, the token counter, and how to reach the summariser."""

    max_turns: int
    token_budget: int
    counter: TokenCounter = field(default_factory=TokenCounter)
    summarize_on_evict: bool = False
    max_summary_chars: int = 2000
    # The summariser for a request to the given active model; raises `ConfigError` when the
    # configured preset cannot be used.
    summarizer: Callable[[ModelTarget], ModelTarget] | None = None

    @classmethod
    def from_config(
        cls, config: AishConfig, targets: PresetResolver, counter: TokenCounter
    ) -> ContextBudget:
        """Built from `[context]`; `targets` resolves the summariser's preset."""
        context = config.context

        def summarizer(active: ModelTarget) -> ModelTarget:
            name = context.summarizer_model or ("fast" if "fast" in config.models else None)
            return active if name is None else targets(name)

        return cls(
            max_turns=context.max_turns,
            token_budget=context.token_budget,
            counter=counter,
            summarize_on_evict=context.summarize_on_evict,
            max_summary_chars=context.max_summary_chars,
            summarizer=summarizer,
        )

    def estimate(
        self,
        conversation: Conversation,
        newest: Message,
        target: ModelTarget,
        tools: Sequence[ToolSpec] = (),
    ) -> int:
        """The tokens of the request `newest` would make."""
        return request_tokens(self.counter, conversation, newest, target, tools)

    async def make_room(
        self,
        conversation: Conversation,
        newest: Callable[[], Message],
        target: ModelTarget,
        *,
        tools: Sequence[ToolSpec] = (),
        on_event: Callable[[AgentEvent], None],
        log: TurnLog,
        summarize: bool = True,
    ) -> Message:
        """Evict what the request of `newest()` does not have room for; the newest message
        as it is to be sent (rebuilt after an eviction: it tells the summary, the cwd…)."""
        limits = Limits(self.max_turns, self.token_budget, self.counter)
        message = newest()
        over_turns, over_tokens, tokens = limits.over(conversation, message, target, tools)
        if not (over_turns or over_tokens) or conversation.exchange_count() == 0:
            return message
        summarizing = summarize and self.summarize_on_evict and self.summarizer is not None
        # Room for the summary the message will tell, so it does not push it over again.
        reserve = self.max_summary_chars if summarizing else len(conversation.summary)
        count = limits.evictions(
            conversation, message, target, tools, over_turns=over_turns, reserve_chars=reserve
        )
        if count == 0:
            # The request is over budget on its own (a long paste, a large tool list):
            # dropping the conversation would lose it and still not fit.
            on_event(Status(_OVER.format(tokens=tokens, budget=self.token_budget)))
            return message
        why = (
            f"max_turns {self.max_turns}"
            if over_turns
            else f"~{tokens:,} tokens over token_budget {self.token_budget:,}"
        )
        summary = None
        if summarizing:
            summary = await self._summary(conversation, count, target, on_event)
        conversation.evict(count, summary)
        payload: dict[str, Any] = {"exchanges": count, "reason": why}
        if summary is not None:
            payload["summary"] = summary
            on_event(Status(f"context: {count} oldest exchange(s) summarised ({why})"))
        else:
            on_event(Status(f"context: {count} oldest exchange(s) dropped ({why})"))
        log("evict", payload)
        message = newest()
        tokens = self.estimate(conversation, message, target, tools)
        if tokens > self.token_budget:
            on_event(Status(_OVER.format(tokens=tokens, budget=self.token_budget)))
        return message

    async def _summary(
        self,
        conversation: Conversation,
        count: int,
        active: ModelTarget,
        on_event: Callable[[AgentEvent], None],
    ) -> str | None:
        """The new rolling summary, or None (with one status line) when it cannot be had."""
        assert self.summarizer is not None
        evicted = conversation.history[: end_of_exchanges(conversation.history, count)]
        try:
            target = self.summarizer(active)
        except ConfigError as error:
            on_event(Status(f"no summary of the dropped exchanges: {error}"))
            return None
        on_event(Status(f"context: summarising {count} oldest exchange(s) via {target.name}…"))
        timeout = min(SUMMARY_TIMEOUT_S, target.idle_timeout_s)
        try:
            async with asyncio.timeout(timeout):
                return await self._ask(target, conversation.summary, evicted, on_event)
        except (*REQUEST_FAILURES, TimeoutError, ValueError) as error:
            _log.warning("summariser %s failed: %r", target.name, error)
            reason = f"no answer within {timeout:g}s" if isinstance(error, TimeoutError) else error
            on_event(
                Status(
                    f"summariser {target.name} failed ({reason}); "
                    "the oldest exchanges are dropped without a summary"
                )
            )
            return None

    async def _ask(
        self,
        target: ModelTarget,
        previous: str,
        evicted: Sequence[Message],
        on_event: Callable[[AgentEvent], None],
    ) -> str:
        from aish.agent.outbound import chat

        limit = self.max_summary_chars
        reply = await chat(target, summarize_request(previous, evicted, limit))
        if reply.usage is not None:
            on_event(UsageRecorded.of(target, reply.usage, "summarize"))
        summary = _without_thinking(reply.text)
        if len(summary) > limit:
            shorter = await chat(target, shorten_request(summary, limit))
            if shorter.usage is not None:
                on_event(UsageRecorded.of(target, shorter.usage, "summarize"))
            summary = clip(_without_thinking(shorter.text) or summary, limit)
        if not summary:
            raise ValueError("the summariser answered with nothing")
        return summary


def _without_thinking(text: str) -> str:
    """A reasoning model's `<think>…</think>` is not part of its summary."""
    end = text.rfind("</think>")
    return (text[end + len("</think>") :] if end >= 0 else text).strip()
