"""One reply printer for every frontend: the agent's events, dispatched once, onto a surface
(pure dispatch: the surfaces do the I/O).

The REPL's view, `aish ask` and `aish goal` differ in *where* things go (a terminal with a
line editor, stdout and stderr of a pipe, colour or not) but not in *what* a reply is: text
that streams, reasoning set apart, `CMD:` lines, the reply's end (and the one rule for saying
it was cut short), retries worth announcing, failures, aish's own status lines, Norris's
frames, usage for the ledger. That is decided here, once, over the closed `AgentEvent` union
(`match` + `assert_never`, so mypy names a new event no frontend handles). Each frontend is a
`ReplySurface`: it only knows how to draw each kind of thing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, assert_never

from aish.agent.events import (
    AgentEvent,
    AssistantDelta,
    AssistantReasoning,
    CommandFinished,
    CommandProposed,
    CommandStarted,
    Halt,
    NorrisEnded,
    NorrisStarted,
    NorrisStep,
    ReplyFinished,
    RequestFailed,
    Retrying,
    Status,
    ToolCallFinished,
    ToolCallProposed,
    ToolCallStarted,
    UsageRecorded,
)
from aish.ui.render.norris_frames import NorrisEvent

__all__ = ["ReplyPrinter", "ReplySurface"]


class ReplySurface(Protocol):
    """Where a frontend draws each kind of thing a reply holds."""

    def reply_text(self, text: str) -> None:
        """A streamed piece of the answer (any open reasoning line is closed first)."""

    def reasoning(self, text: str) -> None:
        """A streamed piece of the model's reasoning, set apart from the answer."""

    def end_reply(self) -> None:
        """The reply ended: finish what is held back (markdown, a `CMD:` line) and end the
        line."""

    def proposed(self, command: str) -> None:
        """A `CMD:` line of the finished reply (the REPL shows them as they stream)."""

    def status(self, text: str) -> None:
        """A one-line notice of aish's own."""

    def failed(self, message: str) -> None:
        """The request failed: one line naming what and where."""

    def frame(self, event: NorrisEvent) -> None:
        """A Norris banner, step line, framed command or tool call, HALT or summary."""


class ReplyPrinter:
    """Turns the agent's events into calls on one `ReplySurface`.

    `announce_retries_from_s`: a retry is announced only when its wait is at least this long
    (a headless run keeps short blips off stderr); `retry_wait_digits`: how the wait is shown.
    `as_json`: when set, every event goes there instead (after usage is noted).
    """

    def __init__(
        self,
        surface: ReplySurface,
        *,
        show_reasoning: bool = True,
        announce_retries_from_s: float = 0.0,
        retry_wait_digits: int = 1,
        as_json: Callable[[AgentEvent], None] | None = None,
    ) -> None:
        self._surface = surface
        self._show_reasoning = show_reasoning
        self._announce_retries_from_s = announce_retries_from_s
        self._retry_wait_digits = retry_wait_digits
        self._as_json = as_json
        self._reply_text_shown = False
        # Told about every model call's usage (the session's ledger); None: nobody.
        self.on_usage: Callable[[UsageRecorded], None] | None = None

    def render(self, event: AgentEvent) -> None:
        if isinstance(event, UsageRecorded) and self.on_usage is not None:
            self.on_usage(event)
        if self._as_json is not None:
            self._as_json(event)
            return
        surface = self._surface
        match event:
            case AssistantDelta(text=text):
                self._reply_text_shown = True
                surface.reply_text(text)
            case AssistantReasoning(text=text):
                if self._show_reasoning:
                    surface.reasoning(text)
            case ReplyFinished(reason=reason, cut=cut):
                surface.end_reply()
                # A reply cut at its size limit was announced by a status line of its own.
                if cut and reason != "reply_cap" and self._reply_text_shown:
                    surface.status("reply cut short")
                self._reply_text_shown = False
            case CommandProposed(command=command):
                surface.proposed(command)
            case Retrying(reason=reason, wait_s=wait_s):
                if wait_s >= self._announce_retries_from_s:
                    wait = f"{wait_s:.{self._retry_wait_digits}f}"
                    surface.status(f"{reason}; retrying in {wait}s")
            case RequestFailed(message=message):
                surface.failed(message)
            case Status(text=text):
                surface.status(text)
            case UsageRecorded():
                pass  # noted above, before any JSON
            case ToolCallProposed():
                pass  # the call is shown when it starts, after the gate let it
            case (
                NorrisStarted()
                | NorrisStep()
                | CommandStarted()
                | CommandFinished()
                | ToolCallStarted()
                | ToolCallFinished()
                | Halt()
                | NorrisEnded()
            ):
                surface.frame(event)
            case _:
                assert_never(event)
