"""How `aish ask` shows an answer: streamed text on stdout, proposed commands at the end.

Three forms: a terminal (markdown rendered as it streams, reasoning dimmed on stderr, commands
highlighted), plain text when output is piped or `NO_COLOR` is set, and `--json` (one JSON
object per event and line). Model text never drives a terminal: on one its control characters
are shown as `^[`; in a pipe or file the control sequences are taken out, unless `--raw` asks
for the bytes as sent (see `visible_text.ShownText`). Each of stdout and stderr is judged on
its own: `aish ask … | cat` still has stderr on the terminal.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict
from typing import TYPE_CHECKING, TextIO

from aish.agent.events import (
    AgentEvent,
    AssistantDelta,
    AssistantReasoning,
    CommandProposed,
    ReplyFinished,
    RequestFailed,
    Retrying,
    Status,
    ToolCallProposed,
    UsageRecorded,
)
from aish.ui.render.json_lines import json_line
from aish.ui.render.norris_frames import NorrisEvent
from aish.ui.render.reply import ReplyPrinter
from aish.ui.render.visible_text import ShownText, visible

if TYPE_CHECKING:
    from rich.console import Console

    from aish.ui.render.markdown_stream import MarkdownStream

# Backoffs (0.5 s, 1 s with the default two retries) pass quietly; a long wait, such as a
# server's Retry-After, is worth a line.
_ANNOUNCED_RETRY_S = 2.0

_JSON_TYPES: dict[type, str] = {
    AssistantDelta: "text",
    AssistantReasoning: "reasoning",
    ToolCallProposed: "tool_call",
    UsageRecorded: "usage",
    ReplyFinished: "finish",
    CommandProposed: "command",
    Retrying: "retrying",
    RequestFailed: "error",
    Status: "status",
}


class AskPrinter:
    """A `Frontend` for one question."""

    def __init__(
        self,
        out: TextIO,
        err: TextIO,
        *,
        json_mode: bool = False,
        color: bool = False,
        show_reasoning: bool = True,
        terminal: bool = False,
        err_terminal: bool = False,
        raw: bool = False,
    ) -> None:
        self._out = out
        self._err = err
        self._json = json_mode
        self._color = color
        self._terminal = terminal or color
        self._out_text = ShownText(terminal=self._terminal, raw=raw)
        self._err_text = ShownText(terminal=err_terminal, raw=raw)
        self._ends_with_newline = True
        self._reasoning_open = False
        self._commands_shown = 0
        self._err_console: Console | None = None
        self._markdown: MarkdownStream | None = None
        self._printer = ReplyPrinter(
            self,
            show_reasoning=show_reasoning,
            announce_retries_from_s=_ANNOUNCED_RETRY_S,
            retry_wait_digits=0,
            as_json=self._render_json if json_mode else None,
        )

    def render(self, event: AgentEvent) -> None:
        self._printer.render(event)

    @property
    def on_usage(self) -> Callable[[UsageRecorded], None] | None:
        """Told about every model call's usage (for the ledger); None: nobody."""
        return self._printer.on_usage

    @on_usage.setter
    def on_usage(self, note: Callable[[UsageRecorded], None] | None) -> None:
        self._printer.on_usage = note

    # ---- the reply printer's surface ---------------------------------------------------------

    def reply_text(self, text: str) -> None:
        self._close_reasoning()
        if self._color:
            if self._markdown is None:
                from aish.ui.render.markdown_stream import MarkdownStream  # imports rich

                self._markdown = MarkdownStream(self._out)
            self._markdown.feed(visible(text))
            self._ends_with_newline = self._markdown.ends_with_newline
            return
        shown = self._out_text.piece(text)
        self._out.write(shown)
        self._out.flush()
        if shown:
            self._ends_with_newline = shown.endswith("\n")

    def end_reply(self) -> None:
        self._out_text.end()
        self._err_text.end()
        self.close()

    def proposed(self, command: str) -> None:
        self._command(command)

    def status(self, text: str) -> None:
        self._status(text)

    def failed(self, message: str) -> None:
        self.close()
        self._err.write(f"aish: {visible(message)}\n")
        self._err.flush()

    def frame(self, event: NorrisEvent) -> None:
        pass  # a question runs no Norris: nothing of the kind arrives

    def close(self) -> None:
        """End the answer's last line and any open reasoning block."""
        self._finish_markdown()
        self._close_reasoning()
        if not self._json and not self._ends_with_newline:
            self._out.write("\n")
            self._ends_with_newline = True
        self._out.flush()

    def _finish_markdown(self) -> None:
        # The block in progress is redrawn in place: stderr must not write below it first.
        if self._markdown is not None and self._markdown.live:
            self._markdown.finish()
            self._ends_with_newline = True

    def reasoning(self, text: str) -> None:
        self._finish_markdown()
        # Reasoning goes to stderr so a piped answer stays clean.
        self._reasoning_open = True
        if self._color:
            self._console(self._err).print(visible(text), style="dim", end="", markup=False)
        else:
            self._err.write(self._err_text.piece(text))
        self._err.flush()

    def _close_reasoning(self) -> None:
        if self._reasoning_open:
            self._reasoning_open = False
            self._err.write("\n")
            self._err.flush()

    def _command(self, command: str) -> None:
        first = self._commands_shown == 0
        self._commands_shown += 1
        if not self._color:
            if first:
                self._out.write("\nProposed commands (not run):\n")
            self._out.write(f"CMD: {self._out_text.whole(command)}\n")
            self._out.flush()
            return
        from rich.syntax import Syntax

        console = self._console(self._out)
        if first:
            console.print("\n[bold]Proposed commands[/bold] [dim](not run)[/dim]")
        console.print("[bold cyan]CMD:[/bold cyan] ", end="")
        console.print(
            Syntax(visible(command), "bash", theme="ansi_dark", background_color="default")
        )

    def _status(self, text: str) -> None:
        self._finish_markdown()
        self._err.write(f"[aish] {visible(text)}\n")
        self._err.flush()

    def _console(self, stream: TextIO) -> Console:
        from rich.console import Console  # rich loads only when there is something to style

        if stream is self._err:
            if self._err_console is None:
                self._err_console = Console(file=stream, highlight=False)
            return self._err_console
        return Console(file=stream, highlight=False)

    def _render_json(self, event: AgentEvent) -> None:
        payload = {"type": _JSON_TYPES[type(event)], **asdict(event)}
        self._out.write(json_line(payload) + "\n")
        self._out.flush()
        if isinstance(event, RequestFailed):
            self._err.write(f"aish: {visible(event.message)}\n")
            self._err.flush()
