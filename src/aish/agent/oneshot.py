"""`aish ask`: one question, one streamed answer, proposed commands collected and never run.

Events go to a `Frontend`; this module never prints. A cancelled or failed stream leaves its
partial text in the outcome's reply, marked as cut.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import BinaryIO

from aish.agent.actions import extract_commands
from aish.agent.events import CommandProposed, Frontend, RequestFailed, Status
from aish.agent.fallback import UntilShown, fallback_status, falls_back, reset_reply
from aish.agent.outbound import RequestFailure
from aish.agent.streaming import complete_lines, stream_reply
from aish.conversation.attachments import render_piped_input
from aish.conversation.system_prompt import PromptFacts, render_system_prompt
from aish.llm.types import Message, ModelTarget, Reply


@dataclass
class AskOutcome:
    reply: Reply = field(default_factory=Reply)
    commands: list[str] = field(default_factory=list)
    error: RequestFailure | None = None


_READ_BLOCK = 64 * 1024
# Piped text has no terminal width; a wide virtual screen keeps its lines as they were.
_PIPED_COLUMNS = 512


def read_piped(stream: BinaryIO, *, max_lines: int, max_bytes: int) -> str | None:
    """Piped input as the model should see it: what a terminal would have shown (colour
    codes and `\r` progress collapsed, binary labelled), bounded head and tail, read to the
    end in blocks so memory stays flat however much arrives. None when nothing was piped."""
    first = stream.read(_READ_BLOCK)
    if not first:
        return None  # the capture (and pyte) load only when there is something to read
    from aish.shell.capture import OutputCapture

    capture = OutputCapture(max_lines=max_lines, max_bytes=max_bytes, columns=_PIPED_COLUMNS)
    capture.feed(first)
    while block := stream.read(_READ_BLOCK):
        capture.feed(block)
    return capture.result().text


def build_ask_messages(question: str, piped: str | None, facts: PromptFacts) -> list[Message]:
    user = question if piped is None else f"{render_piped_input(piped)}\n\n{question}"
    return [
        Message("system", render_system_prompt(facts)),
        Message("user", user),
    ]


async def ask_once(
    target: ModelTarget,
    messages: list[Message],
    frontend: Frontend,
    outcome: AskOutcome,
    *,
    fallback: ModelTarget | None = None,
) -> AskOutcome:
    """Stream the answer to `frontend`, filling `outcome` as it goes (so a caller whose task
    is cancelled still holds the partial reply). Request errors end up in `outcome.error`.
    A transport failure before anything was shown is asked once more on `fallback`."""
    watch = UntilShown(frontend)
    try:
        outcome.error = await stream_reply(target, messages, watch, outcome.reply)
        error = outcome.error
        if error is not None and falls_back(error, watch.shown, target, fallback):
            assert fallback is not None
            frontend.render(Status(fallback_status(target, error, fallback)))
            reset_reply(outcome.reply)
            watch = UntilShown(frontend)
            outcome.error = await stream_reply(fallback, messages, watch, outcome.reply)
    finally:
        watch.release()
    outcome.commands = extract_commands(complete_lines(outcome.reply))
    for command in outcome.commands:
        frontend.render(CommandProposed(command))
    if outcome.error is not None:
        frontend.render(RequestFailed(type(outcome.error).__name__, str(outcome.error)))
    return outcome
