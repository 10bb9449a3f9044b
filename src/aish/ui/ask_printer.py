"""How `aish ask` shows an answer: streamed text on stdout, proposed commands at the end.

Three forms: a terminal (reasoning dimmed on stderr, commands highlighted), plain text when
output is piped or `NO_COLOR` is set, and `--json` (one JSON object per event and line).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, TextIO

from aish.llm.errors import LLMError
from aish.llm.types import (
    Finish,
    ReasoningDelta,
    StreamEvent,
    TextDelta,
    ToolCallReady,
    Usage,
)

if TYPE_CHECKING:
    from rich.console import Console


class AskPrinter:
    def __init__(
        self,
        out: TextIO,
        err: TextIO,
        *,
        json_mode: bool = False,
        color: bool = False,
        show_reasoning: bool = True,
    ) -> None:
        self._out = out
        self._err = err
        self._json = json_mode
        self._color = color
        self._show_reasoning = show_reasoning
        self._ends_with_newline = True
        self._wrote_text = False
        self._reasoning_open = False
        self._err_console: Console | None = None

    def event(self, event: StreamEvent) -> None:
        if self._json:
            self._emit_json(_event_json(event))
        elif isinstance(event, TextDelta):
            self._close_reasoning()
            self._out.write(event.text)
            self._out.flush()
            self._wrote_text = True
            self._ends_with_newline = event.text.endswith("\n")
        elif isinstance(event, ReasoningDelta) and self._show_reasoning:
            # Reasoning goes to stderr so a piped answer stays clean.
            self._reasoning_open = True
            if self._color:
                self._rich_err().print(event.text, style="dim", end="", markup=False)
            else:
                self._err.write(event.text)
            self._err.flush()

    def retrying(self, error: LLMError, wait_s: float, attempt: int) -> None:
        self.status(f"{error}; retrying in {wait_s:.1f}s (attempt {attempt + 1})")

    def status(self, line: str) -> None:
        if self._json:
            self._emit_json({"type": "status", "message": line})
        else:
            self._err.write(f"[aish] {line}\n")
            self._err.flush()

    def finish(self, commands: list[str], *, cut: bool) -> None:
        self._close_reasoning()
        if self._json:
            for command in commands:
                self._emit_json({"type": "command", "command": command})
            return
        if not self._ends_with_newline:
            self._out.write("\n")
        if cut and self._wrote_text:
            self._err.write("[aish] reply cut short\n")
        if commands:
            self._print_commands(commands)
        self._out.flush()

    def error(self, error: LLMError | str) -> None:
        if self._json:
            kind = type(error).__name__ if isinstance(error, LLMError) else "error"
            self._emit_json({"type": "error", "kind": kind, "message": str(error)})
        self._err.write(f"aish: {error}\n")
        self._err.flush()

    def _print_commands(self, commands: list[str]) -> None:
        if not self._color:
            self._out.write("\nProposed commands (not run):\n")
            for command in commands:
                self._out.write(f"CMD: {command}\n")
            return
        from rich.console import Console
        from rich.syntax import Syntax

        console = Console(file=self._out, highlight=False)
        console.print("\n[bold]Proposed commands[/bold] [dim](not run)[/dim]")
        for command in commands:
            console.print("[bold cyan]CMD:[/bold cyan] ", end="")
            console.print(Syntax(command, "bash", theme="ansi_dark", background_color="default"))

    def _close_reasoning(self) -> None:
        if self._reasoning_open:
            self._reasoning_open = False
            self._err.write("\n")
            self._err.flush()

    def _rich_err(self) -> Console:
        from rich.console import Console  # rich loads only when there is something to style

        if self._err_console is None:
            self._err_console = Console(file=self._err, highlight=False)
        return self._err_console

    def _emit_json(self, payload: dict[str, object]) -> None:
        self._out.write(json.dumps(payload, ensure_ascii=False) + "\n")
        self._out.flush()


def _event_json(event: StreamEvent) -> dict[str, object]:
    if isinstance(event, TextDelta):
        return {"type": "text", "text": event.text}
    if isinstance(event, ReasoningDelta):
        return {"type": "reasoning", "text": event.text}
    if isinstance(event, ToolCallReady):
        c = event.call
        return {"type": "tool_call", "id": c.id, "name": c.name, "arguments": c.arguments}
    if isinstance(event, Usage):
        return {
            "type": "usage",
            "prompt_tokens": event.prompt_tokens,
            "completion_tokens": event.completion_tokens,
            "cached_tokens": event.cached_tokens,
            "cost_usd": event.provider_cost_usd,
            "estimated": event.estimated,
        }
    assert isinstance(event, Finish)
    return {"type": "finish", "reason": event.reason, "raw_reason": event.raw_reason}
