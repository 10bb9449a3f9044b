"""`aish ask`: one question, one streamed answer, proposed commands collected and never run.

The caller supplies where events go; this module never prints. A cancelled or failed stream
leaves its partial text in the returned (or raised-with) reply, marked as cut.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field

from aish.agent.actions import extract_commands
from aish.conversation.attachments import render_piped_input
from aish.conversation.system_prompt import PromptFacts, render_system_prompt
from aish.llm.errors import LLMError
from aish.llm.types import Message, ModelTarget, Reply, StreamEvent


@dataclass
class AskOutcome:
    reply: Reply
    commands: list[str] = field(default_factory=list)
    error: LLMError | None = None


def build_ask_messages(question: str, piped: str | None, facts: PromptFacts) -> list[Message]:
    user = question if piped is None else f"{render_piped_input(piped)}\n\n{question}"
    return [
        Message("system", render_system_prompt(facts)),
        Message("user", user),
    ]


async def ask_once(
    target: ModelTarget,
    messages: list[Message],
    on_event: Callable[[StreamEvent], None],
    on_retry: Callable[[LLMError, float, int], None] | None = None,
) -> AskOutcome:
    """Stream the answer to `on_event`. Errors are returned, not raised; cancellation re-raises
    after marking the reply cut, so the caller still holds the partial text."""
    from aish.llm.broker import stream_chat  # httpx stays out of start-up until needed

    outcome = AskOutcome(Reply())
    try:
        async for event in stream_chat(target, messages, on_retry=on_retry):
            outcome.reply.add(event)
            on_event(event)
    except LLMError as error:
        outcome.reply.cut = True
        outcome.error = error
    except asyncio.CancelledError:
        outcome.reply.cut = True
        raise
    finally:
        outcome.commands = extract_commands(outcome.reply.text)
    return outcome
