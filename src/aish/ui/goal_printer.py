"""How `aish goal` shows a headless Norris run: the terminal's look, or JSON lines.

Text: the model's streamed text and the run's banner, step lines, command frames, HALT banner
and summary (drawn by `norris_view`, as in the REPL) on stdout, coloured only on a terminal
without `NO_COLOR`; aish's own notices as `[aish] …` lines and failures as `aish: …` on
stderr. `--json`: one object per event and line on stdout, `{"type": "<name>", …fields}`,
ending with `norris_end` (which carries `pending_action`, and `snapshots`: what the run
snapshotted before its commands, for `:undo <id>`) — or, with `--sandbox`, with a `sandbox`
object after it whose `changes` list holds `{"path", "change", "bytes", "kind"}`; nothing else
goes to stdout.
The model's own text never drives a terminal: shown as `^[` on one, its control sequences
taken out in a pipe or file unless `--raw` asks for the bytes as sent (`visible_text`).

Either way, a run that halted ends with the action that needs a person on stderr, so a script
that only shows stderr still says what stopped it and why. Nobody is there to answer a HALT:
`halt_action` exists for the protocol and answers `abort` (the headless gate refuses instead
of asking, so it is never called).
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable, Sequence
from dataclasses import asdict
from typing import TYPE_CHECKING, TextIO

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
from aish.agent.gate import HaltAnswer, Verdict
from aish.ui.render.cmd_lines import CmdLineSplitter
from aish.ui.render.json_lines import json_line
from aish.ui.render.norris_frames import NorrisEvent, norris_pieces
from aish.ui.render.reply import ReplyPrinter
from aish.ui.render.visible_text import ShownText, visible

if TYPE_CHECKING:
    from rich.console import Console

    from aish.run.sandbox import ApplyResult, ChangeSet
    from aish.run.undo import Snapshot

# The names of `--json` events: those `aish ask` also prints share its names.
JSON_EVENTS: dict[type, str] = {
    AssistantDelta: "text",
    AssistantReasoning: "reasoning",
    ToolCallProposed: "tool_call",
    ToolCallStarted: "tool_start",
    ToolCallFinished: "tool_end",
    CommandProposed: "command",
    Retrying: "retrying",
    UsageRecorded: "usage",
    ReplyFinished: "finish",
    RequestFailed: "error",
    Status: "status",
    NorrisStarted: "norris_start",
    NorrisStep: "norris_step",
    CommandStarted: "command_start",
    CommandFinished: "command_end",
    Halt: "halt",
    NorrisEnded: "norris_end",
}


def json_name(event: AgentEvent) -> str:
    """The event's `--json` name; one added to the agent later gets its class name, snake_case,
    rather than stopping the run."""
    kind = type(event)
    return JSON_EVENTS.get(kind) or re.sub(r"(?<!^)(?=[A-Z])", "_", kind.__name__).lower()


# Backoffs pass quietly; a long wait, such as a server's Retry-After, is worth a line.
_ANNOUNCED_RETRY_S = 2.0


class GoalPrinter:
    """A `NorrisFrontend` without a person: prints the run, answers no questions."""

    def __init__(
        self,
        out: TextIO,
        err: TextIO,
        *,
        json_mode: bool = False,
        color: bool = False,
        err_color: bool = False,
        show_reasoning: bool = True,
        terminal: bool = False,
        err_terminal: bool = False,
        raw: bool = False,
        yes_safe: bool = False,
        width: int | None = None,
        sandboxed: bool = False,
    ) -> None:
        self._out = out
        self._err = err
        self._json = json_mode
        self._color = color and not json_mode
        self._err_color = err_color
        self._terminal = terminal or self._color
        self._out_text = ShownText(terminal=self._terminal, raw=raw)
        self._err_text = ShownText(terminal=err_terminal or err_color, raw=raw)
        self._yes_safe = yes_safe
        self._sandboxed = sandboxed
        self._width = width  # None: the terminal's, read for each frame
        self._splitter = CmdLineSplitter()
        self._ends_with_newline = True
        self._reasoning_open = False
        self._halt: Halt | None = None
        self._consoles: dict[int, Console] = {}
        self._printer = ReplyPrinter(
            self,
            show_reasoning=show_reasoning,
            announce_retries_from_s=_ANNOUNCED_RETRY_S,
            retry_wait_digits=0,
            as_json=self._render_json if json_mode else None,
        )
        # The snapshots the run took before its commands (for `norris_end`'s `snapshots`).
        self.snapshots: Sequence[Snapshot] = ()

    # ---- the frontend ------------------------------------------------------------------------

    def render(self, event: AgentEvent) -> None:
        if isinstance(event, Halt):
            self._halt = event
        self._printer.render(event)
        if isinstance(event, NorrisEnded) and event.status == "halted":
            self._report_halt(event)

    @property
    def on_usage(self) -> Callable[[UsageRecorded], None] | None:
        """Told about every model call's usage (the run's ledger); None: nobody."""
        return self._printer.on_usage

    @on_usage.setter
    def on_usage(self, note: Callable[[UsageRecorded], None] | None) -> None:
        self._printer.on_usage = note

    async def halt_action(self, action: str, verdict: Verdict) -> HaltAnswer:
        return "abort"  # nobody to ask: never run what needed a person

    def warn(self, text: str) -> None:
        """A problem of aish's own (the session log is unavailable, …): one line on stderr."""
        self.close()
        self._err.write(f"aish: {visible(text)}\n")
        self._err.flush()

    def note(self, text: str) -> None:
        """An aside for a person reading the run (`[aish] …` on stderr); not part of the
        JSON stream, which ends with `norris_end`."""
        if not self._json:
            self._status(text)

    def sandbox_changes(
        self, changes: ChangeSet, applied: ApplyResult | None, not_applied: str | None
    ) -> None:
        """The sandbox's change set at the end of the run, and what became of it."""
        if self._json:
            self._render_sandbox_json(changes, applied, not_applied)
            return
        from aish.ui.render.change_set import apply_lines, change_set_pieces

        self.close()
        if not changes:
            self._status("sandbox: no changes")
            return
        for text, style in change_set_pieces(changes):
            self._write(text, style=style)
        for line in apply_lines(applied) if applied is not None else [not_applied or ""]:
            if line:
                self._status(line)

    def _render_sandbox_json(
        self, changes: ChangeSet, applied: ApplyResult | None, not_applied: str | None
    ) -> None:
        payload: dict[str, object] = {
            "type": "sandbox",
            "tree": str(changes.tree),
            "changes": [change.as_json() for change in changes.changes],
            "applied": [c.path for c in applied.applied] if applied is not None else [],
            "refused": [{"path": c.path, "reason": reason} for c, reason in applied.refused]
            if applied is not None
            else [],
            "failed": [{"path": c.path, "reason": reason} for c, reason in applied.failed]
            if applied is not None
            else [],
            "snapshot": applied.snapshot.id if applied and applied.snapshot else None,
            "not_applied": not_applied,
        }
        self._out.write(json_line(payload) + "\n")
        self._out.flush()

    def close(self) -> None:
        """End the reply's last line and any open reasoning line."""
        self._close_reasoning()
        if not self._json:
            for piece in self._splitter.flush():
                self._write(piece.text, command=piece.is_command_line)
            if not self._ends_with_newline:
                self._write("\n")
        self._out.flush()

    # ---- text --------------------------------------------------------------------------------

    def reply_text(self, text: str) -> None:
        self._close_reasoning()
        for piece in self._splitter.feed(self._out_text.piece(text)):
            self._write(piece.text, command=piece.is_command_line)

    def end_reply(self) -> None:
        self._out_text.end()
        self._err_text.end()
        self.close()

    def proposed(self, command: str) -> None:
        pass  # in the step's frame

    def status(self, text: str) -> None:
        self._status(text)

    def failed(self, message: str) -> None:
        self.warn(message)

    def frame(self, event: NorrisEvent) -> None:
        self.close()  # a frame or banner never starts mid-line
        if isinstance(event, NorrisEnded) and event.status == "aborted" and self._terminal:
            self._write("\n")  # after the `^C` the terminal echoed
        width = self._width or shutil.get_terminal_size().columns
        for text, style in norris_pieces(event, width=width):
            self._write(text, style=style)

    def reasoning(self, text: str) -> None:
        # Reasoning goes to stderr so a piped transcript stays the run itself.
        self._reasoning_open = True
        if self._err_color:
            self._console(self._err).print(visible(text), style="dim", end="", markup=False)
        else:
            self._err.write(self._err_text.piece(text))
        self._err.flush()

    def _close_reasoning(self) -> None:
        if self._reasoning_open:
            self._reasoning_open = False
            self._err.write("\n")
            self._err.flush()

    def _status(self, text: str) -> None:
        self.close()
        self._err.write(f"[aish] {visible(text)}\n")
        self._err.flush()

    def _write(self, text: str, *, style: str = "", command: bool = False) -> None:
        if not text:
            return
        if self._color and (style or command):
            style = "bold cyan" if command else style
            self._console(self._out).print(text, style=style, end="", markup=False)
        else:
            self._out.write(text)
        self._out.flush()
        self._ends_with_newline = text.endswith("\n")

    def _console(self, stream: TextIO) -> Console:
        console = self._consoles.get(id(stream))
        if console is None:
            from rich.console import Console  # rich loads only when there is colour to show

            # The caller decided there is a terminal to colour (and no NO_COLOR).
            console = Console(file=stream, force_terminal=True, highlight=False, soft_wrap=True)
            self._consoles[id(stream)] = console
        return console

    # ---- JSON --------------------------------------------------------------------------------

    def _render_json(self, event: AgentEvent) -> None:
        payload = {"type": json_name(event), **asdict(event)}
        if isinstance(event, NorrisEnded):
            payload["snapshots"] = [snapshot_payload(snapshot) for snapshot in self.snapshots]
        self._out.write(json_line(payload) + "\n")
        self._out.flush()
        if isinstance(event, RequestFailed):
            self.warn(event.message)

    # ---- the end -----------------------------------------------------------------------------

    def _report_halt(self, ended: NorrisEnded) -> None:
        """The pending action, why it stopped and what the user can do, on stderr."""
        self.close()
        halt = self._halt
        action = ended.pending_action or (halt.action if halt else "")
        step = f"step {halt.step}/{halt.max_steps}" if halt else f"step {ended.steps}"
        first, *more = visible(action).split("\n")
        lines = [f"aish: HALT at {step}: {first}", *(f"  {line}" for line in more)]
        if halt is not None and halt.level == "input":  # the step waited for terminal input
            lines.append(f"  reason: {visible('; '.join(halt.reasons))}")
        elif halt is not None:
            reasons = visible("; ".join(halt.reasons))
            if halt.level == "safe" and not reasons:
                reasons = "read-only"  # as the confirm prompt says it
            lines.append(f"  reason: [{halt.level}] {reasons}".rstrip())
        lines.append(f"  {self._why_not_run(halt.level if halt else '')}")
        text = "\n".join(lines) + "\n"
        if self._err_color:
            self._console(self._err).print(text, style="bold red", end="", markup=False)
        else:
            self._err.write(text)
        self._err.flush()

    def _why_not_run(self, level: str) -> str:
        if level == "input":
            return (
                "stopped: it waited for terminal input and nobody is at this terminal "
                "(in aish's REPL, `[t]ake over` hands you its terminal)"
            )
        if self._sandboxed and level == "destructive":
            return "not run: destructive steps halt in the sandbox too (sandbox_destructive)"
        if not self._yes_safe and not self._sandboxed:
            return "not run: without --yes-safe nothing runs unattended"
        if level == "destructive":
            return "not run: nothing that may change or delete something runs unattended"
        return "not run: it needs a person's approval"


def snapshot_payload(snapshot: Snapshot) -> dict[str, object]:
    """One snapshot as `--json` lists it: `:undo <id>` in a REPL takes it back."""
    return {
        "id": snapshot.id,
        "command": snapshot.label,
        "cwd": snapshot.cwd,
        "bytes": snapshot.bytes,
        "paths": list(snapshot.paths),
    }
