"""The tools a model may call, as the agent sees them: a small protocol MCP servers satisfy.

The agent never talks to a tool's server. It offers the catalogue as it stands at a turn
boundary (`offered`: nothing to a preset with `tools = false`), turns each call the model made
into the gate's `ProposedToolCall` — or into the error the model is told instead, for a tool
that is not offered or arguments that are not a JSON object (`prepare`) — and hands what the
gate authorized to the frontend's `ToolExecutor`, which redeems the authorization before it
calls anything (`aish.run.tool_calls`). `ToolRound` answers every call of a reply exactly once,
in the conversation and the session log, so no request ever carries a dangling call.

`aish.mcp.McpServers` is a `ToolBox`; this module does not import the mcp room (its SDK is slow
to import) except for `tool_specs`, when there are tools to offer.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol, TypeVar

from aish.agent import gate
from aish.agent.events import Frontend, ToolCallFinished, ToolCallStarted
from aish.conversation.context import Conversation
from aish.llm.types import ModelTarget, ToolCall, ToolSpec

__all__ = [
    "PreparedCall",
    "Tool",
    "ToolBox",
    "ToolExecutor",
    "ToolOutcome",
    "ToolRound",
    "offered",
    "prepare",
    "with_distinct_ids",
]

# What the model reads instead of a result. Errors are marked so it cannot take them for output.
TOOL_ERROR = "[tool error] "
DECLINED = "[aish] not run: the user declined this call"
CANCELLED = "[aish] not run: the user cancelled this reply's calls"
INTERRUPTED = "[aish] not run: the user interrupted the turn"
LIMIT = (
    "[aish] not run: this request reached its limit of {limit} tool calls "
    "(mcp.max_tool_calls); answer with what you have"
)
_NO_OUTPUT = "[no output]"
_INTERRUPTED_CALL = f"{TOOL_ERROR}interrupted by the user before it finished"

# The preview in `ToolCallFinished`.
_PREVIEW_LINES = 4
_PREVIEW_CHARS = 240


class Tool(Protocol):
    """One tool of the catalogue (`aish.mcp.McpTool`)."""

    @property
    def qualified(self) -> str:
        """`<server>__<tool>`, sanitised: the name the model calls."""
        ...

    @property
    def server(self) -> str: ...

    @property
    def name(self) -> str: ...

    @property
    def annotations(self) -> Mapping[str, Any] | None: ...

    @property
    def trusted(self) -> bool: ...

    @property
    def held(self) -> str:
        """Why a call needs the user's word whatever its verdict ("": it does not)."""
        ...


class ToolOutcome(Protocol):
    """A call's result (`aish.mcp.ToolResult`); failures of any kind are results too."""

    @property
    def text(self) -> str: ...

    @property
    def is_error(self) -> bool: ...

    @property
    def duration_s(self) -> float: ...


ToolT = TypeVar("ToolT", bound=Tool)


class ToolBox(Protocol[ToolT]):
    """The catalogue and the calls (`aish.mcp.McpServers`)."""

    def tools(self) -> Sequence[ToolT]:
        """The snapshot: it changes only when `refresh` is called."""
        ...

    def refresh(self) -> bool:
        """Take a new snapshot (at a turn boundary only); True when it changed."""
        ...

    def find(self, qualified: str) -> ToolT | None: ...

    async def call(self, tool: ToolT, arguments: Mapping[str, Any]) -> ToolOutcome:
        """Never raises, except `CancelledError`."""
        ...


ToolExecutor = Callable[[gate.Authorization], Awaitable[ToolOutcome]]
"""Runs the tool call the gate authorized (redeeming the authorization first, so anything the
gate did not issue is refused) → its result: `ToolRunner.run_authorized`."""


def offered(target: ModelTarget, toolbox: ToolBox[Any] | None) -> tuple[ToolSpec, ...]:
    """The tools offered with this turn's requests: the catalogue as of now (a turn boundary:
    refreshed here, then fixed for the turn, so every request of the turn carries the same
    bytes), sorted and serialised by the mcp room. None for a preset with `tools = false`."""
    if toolbox is None or not target.tools:
        return ()
    toolbox.refresh()
    tools = list(toolbox.tools())
    if not tools:
        return ()
    from aish.mcp import tool_specs

    return tuple(tool_specs(tools))


@dataclass(frozen=True)
class PreparedCall:
    """A call the model made, as the gate will judge it."""

    call: ToolCall
    action: gate.ProposedToolCall

    @property
    def key(self) -> str:
        """Equal for the same tool with the same arguments (however the JSON was spaced)."""
        return self.action.text


def prepare(call: ToolCall, toolbox: ToolBox[Any]) -> PreparedCall | str:
    """The gate's action for `call`, or the error the model is told instead."""
    tool = toolbox.find(call.name)
    if tool is None:
        return f"{TOOL_ERROR}there is no tool named {call.name!r} here; nothing was run"
    try:
        arguments = call.parsed_arguments()
    except ValueError as error:
        return f"{TOOL_ERROR}the arguments are not a JSON object ({error}); nothing was run"
    action = gate.ProposedToolCall(
        tool.server, tool.name, arguments, tool.annotations, tool.trusted, tool.held
    )
    return PreparedCall(call, action)


def with_distinct_ids(calls: Sequence[ToolCall]) -> tuple[ToolCall, ...]:
    """The calls, each with an id of its own: a server that sends none (or the same one twice)
    would leave the answers impossible to pair with their calls."""
    seen: set[str] = set()
    out: list[ToolCall] = []
    for index, call in enumerate(calls):
        call_id = call.id
        suffix = index
        while not call_id or call_id in seen:
            call_id = f"call_aish_{suffix}"
            suffix += len(calls)
        seen.add(call_id)
        out.append(call if call_id == call.id else replace(call, id=call_id))
    return tuple(out)


def answer_text(result: ToolOutcome) -> str:
    """A result as the model reads it, errors marked (the mcp room bounds its size)."""
    text = result.text
    if result.is_error:
        return TOOL_ERROR + (text or "the tool failed without saying why")
    return text or _NO_OUTPUT


def preview(text: str) -> str:
    """A few lines of a result, for the frame on screen."""
    lines = text.strip().splitlines()
    shown = "\n".join(lines[:_PREVIEW_LINES])
    if len(shown) > _PREVIEW_CHARS:
        shown = shown[: _PREVIEW_CHARS - 1] + "…"
    elif len(lines) > _PREVIEW_LINES:
        shown += "\n…"
    return shown


def canonical_arguments(action: gate.ProposedToolCall) -> str:
    return json.dumps(dict(action.arguments), sort_keys=True, ensure_ascii=False)


TurnLog = Callable[[str, Mapping[str, Any]], None]


@dataclass
class ToolRound:
    """Answers the calls of the conversation's open round: each exactly once, as a `tool`
    message right after the reply and as a `tool_result` turn in the session log (which
    `Conversation.replay` reads back)."""

    conversation: Conversation
    frontend: Frontend
    log: TurnLog
    execute: ToolExecutor

    def answer(self, call: ToolCall, text: str, *, is_error: bool = False) -> None:
        self.conversation.answer_tool_call(call.id, text)
        payload = {"call_id": call.id, "name": call.name, "message": text, "is_error": is_error}
        self.log("tool_result", payload)

    def answer_rest(self, text: str) -> int:
        """Answer every call not answered yet with `text`; how many there were."""
        calls = self.conversation.unanswered_tool_calls()
        for call in calls:
            self.answer(call, text)
        return len(calls)

    async def run_authorized(
        self, prepared: PreparedCall, authorization: gate.Authorization
    ) -> ToolOutcome:
        """Run what the gate authorized through the executor, show it, answer the call."""
        call = prepared.call
        level = authorization.verdict.level
        self.frontend.render(
            ToolCallStarted(call.name, canonical_arguments(prepared.action), level)
        )
        started = time.monotonic()
        try:
            result = await self.execute(authorization)
        except asyncio.CancelledError:
            self.frontend.render(
                ToolCallFinished(call.name, "interrupted", True, time.monotonic() - started)
            )
            self.answer(
                call, f"{TOOL_ERROR}interrupted by the user before it finished", is_error=True
            )
            raise
        self.frontend.render(
            ToolCallFinished(call.name, preview(result.text), result.is_error, result.duration_s)
        )
        self.answer(call, answer_text(result), is_error=result.is_error)
        return result
