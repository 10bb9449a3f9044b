"""`aish ask`: one question, one streamed answer, proposed commands collected and never run.

Events go to a `Frontend`; this module never prints. A cancelled or failed stream leaves its
partial text in the outcome's reply, marked as cut.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from aish.agent.actions import extract_commands
from aish.agent.events import (
    AgentEvent,
    AssistantDelta,
    AssistantReasoning,
    CommandProposed,
    Frontend,
    ReplyFinished,
    RequestFailed,
    Retrying,
    ToolCallProposed,
    UsageRecorded,
)
from aish.conversation.attachments import render_piped_input
from aish.conversation.system_prompt import PromptFacts, render_system_prompt
from aish.llm.errors import LLMError
from aish.llm.types import (
    Finish,
    Message,
    ModelTarget,
    ReasoningDelta,
    Reply,
    StreamEvent,
    TextDelta,
    ToolCallReady,
    Usage,
)


@dataclass
class AskOutcome:
    reply: Reply = field(default_factory=Reply)
    commands: list[str] = field(default_factory=list)
    error: LLMError | None = None


def build_ask_messages(question: str, piped: str | None, facts: PromptFacts) -> list[Message]:
    user = question if piped is None else f"{render_piped_input(piped)}\n\n{question}"
    return [
        Message("system", render_system_prompt(facts)),
        Message("user", user),
    ]


async def ask_once(
    target: ModelTarget, messages: list[Message], frontend: Frontend, outcome: AskOutcome
) -> AskOutcome:
    """Stream the answer to `frontend`, filling `outcome` as it goes (so a caller whose task
    is cancelled still holds the partial reply). Request errors end up in `outcome.error`."""
    from aish.llm.broker import stream_chat  # httpx stays out of start-up until needed

    def retrying(error: LLMError, wait_s: float, attempt: int) -> None:
        frontend.render(Retrying(str(error), wait_s, attempt))

    reply = outcome.reply
    try:
        async for event in stream_chat(target, messages, on_retry=retrying):
            reply.add(event)
            for shown in _shown(event, target):
                frontend.render(shown)
    except LLMError as error:
        reply.cut = True
        outcome.error = error
    except asyncio.CancelledError:
        reply.cut = True
        frontend.render(ReplyFinished("cut", cut=True))
        raise
    outcome.commands = extract_commands(_complete_lines(reply))
    if reply.cut:
        frontend.render(ReplyFinished("cut", cut=True))
    for command in outcome.commands:
        frontend.render(CommandProposed(command))
    if outcome.error is not None:
        frontend.render(RequestFailed(type(outcome.error).__name__, str(outcome.error)))
    return outcome


def _complete_lines(reply: Reply) -> str:
    """The reply's text without a last line the stream cut off: a command broken off in the
    middle (`rm -rf /tmp/build` of `rm -rf /tmp/build/cache`) must never be proposed."""
    if not reply.cut or reply.text.endswith("\n"):
        return reply.text
    return reply.text[: reply.text.rfind("\n") + 1]


def _shown(event: StreamEvent, target: ModelTarget) -> list[AgentEvent]:
    if isinstance(event, TextDelta):
        return [AssistantDelta(event.text)]
    if isinstance(event, ReasoningDelta):
        return [AssistantReasoning(event.text)]
    if isinstance(event, ToolCallReady):
        call = event.call
        return [ToolCallProposed(call.name, call.arguments, call.id)]
    if isinstance(event, Usage):
        return [
            UsageRecorded(
                target.name,
                event.prompt_tokens,
                event.completion_tokens,
                event.cached_tokens,
                event.provider_cost_usd,
                event.estimated,
            )
        ]
    assert isinstance(event, Finish)
    return [ReplyFinished(event.reason, cut=False)]
