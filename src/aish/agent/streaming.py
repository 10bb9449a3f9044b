"""One streamed reply, shown through a `Frontend` as agent events.

Shared by `aish ask` and the REPL's chat turn: the broker's events become the frontend's,
the reply accumulates in a `Reply` the caller owns (so a cancelled caller still has the
partial text), and a failure is returned rather than raised.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import TYPE_CHECKING

from aish.agent.events import (
    AgentEvent,
    AssistantDelta,
    AssistantReasoning,
    Frontend,
    ReplyFinished,
    Retrying,
    Status,
    ToolCallProposed,
    UsageRecorded,
)
from aish.agent.outbound import REQUEST_FAILURES, RequestFailure
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
    ToolSpec,
    Usage,
)

if TYPE_CHECKING:
    from aish.agent.outbound import Outbound


async def stream_reply(
    target: ModelTarget,
    messages: Sequence[Message],
    frontend: Frontend,
    reply: Reply,
    *,
    category: str = "chat",
    tools: Sequence[ToolSpec] = (),
    outbound: Outbound | None = None,
) -> RequestFailure | None:
    """Stream into `reply`, rendering as it goes. Cancellation marks the reply cut and
    re-raises; a request failure marks it cut and is returned. `category` labels the call's
    usage (`chat`, `norris`, …); `tools` are offered with the request (none: no `tools`);
    `outbound` is the session's door the request passes (see `agent.outbound`)."""
    from aish.agent.outbound import door
    from aish.llm.broker import stream_chat  # the broker stays out of start-up until needed

    def retrying(error: LLMError, wait_s: float, attempt: int) -> None:
        frontend.render(Retrying(str(error), wait_s, attempt))

    try:
        # What leaves the machine: secrets scrubbed, the spending stop checked.
        sent = door(outbound).prepare(target, messages)
        # The REPL's door keeps its connections between questions; otherwise the request
        # has a client of its own, closed with it.
        client = outbound.client(target) if outbound is not None else None
        async for event in stream_chat(
            target, sent, tools or None, client=client, on_retry=retrying
        ):
            reply.add(event)
            for shown in _shown(event, target, category):
                frontend.render(shown)
    except REQUEST_FAILURES as error:
        reply.cut = True
        frontend.render(ReplyFinished("cut", cut=True))
        return error
    except asyncio.CancelledError:
        reply.cut = True
        frontend.render(ReplyFinished("cut", cut=True))
        raise
    return None


def complete_lines(reply: Reply) -> str:
    """The reply's text without a last line the stream cut off: a command broken off in the
    middle (`rm -rf /tmp/build` of `rm -rf /tmp/build/cache`) must never be proposed."""
    if not reply.cut or reply.text.endswith("\n"):
        return reply.text
    return reply.text[: reply.text.rfind("\n") + 1]


def _shown(event: StreamEvent, target: ModelTarget, category: str) -> list[AgentEvent]:
    if isinstance(event, TextDelta):
        return [AssistantDelta(event.text)]
    if isinstance(event, ReasoningDelta):
        return [AssistantReasoning(event.text)]
    if isinstance(event, ToolCallReady):
        call = event.call
        return [ToolCallProposed(call.name, call.arguments, call.id)]
    if isinstance(event, Usage):
        return [UsageRecorded.of(target, event, category)]
    assert isinstance(event, Finish)
    if event.reason == "reply_cap":
        notice = reply_cap_notice(target, event.raw_reason)
        return [Status(notice), ReplyFinished(event.reason, cut=True)]
    return [ReplyFinished(event.reason, cut=False)]


def reply_cap_notice(target: ModelTarget, which: str | None) -> str:
    """The one line that says a reply was cut at the preset's `max_reply_chars`."""
    key = f"models.{target.name}.max_reply_chars"
    if which == "wire":
        return (
            f"reply cut: the server sent far more than a reply of {target.max_reply_chars:,} "
            f"characters ({key}); the rest was not read"
        )
    return f"reply cut at {target.max_reply_chars:,} characters ({key}); the rest was not read"
