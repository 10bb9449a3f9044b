"""The REPL's frontend: streamed replies, highlighted `CMD:` lines, the confirm prompt.

Text streams to the terminal as it arrives; `CMD:` lines are held until complete and printed
highlighted. Each proposed command then shows the gate's verdict (`[safe]`, `[unknown]`,
`[destructive]` in red, with its reasons) and asks `[y]es / [e]dit / [n]o / [d]escribe` with a
single key; edit pre-fills the line editor with the command. Ctrl-C (or Ctrl-D) at either
question cancels: this command and the rest of the reply's proposals are not run.

What a reply holds is decided by the one `ReplyPrinter`; this view is its surface on the
terminal. A Norris run's events are drawn by `render.norris_frames` (banner, step lines, framed
commands, the red HALT banner, the summary); its HALT question is `halt_action`.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Literal, TextIO, TypeVar, cast

from aish.ui import type_ahead
from aish.ui.render.cmd_lines import CmdLineSplitter
from aish.ui.render.visible_text import visible

if TYPE_CHECKING:
    from prompt_toolkit import PromptSession
    from rich.console import Console

    from aish.agent.diffs import ProposedDiff
    from aish.agent.events import AgentEvent, UsageRecorded
    from aish.agent.gate import Answer, HaltAnswer, Verdict
    from aish.agent.norris import TakeOverAnswer
    from aish.agent.outbound import Outbound
    from aish.run.input_wait import InputWait
    from aish.ui.render.markdown_stream import MarkdownStream
    from aish.ui.render.norris_frames import NorrisEvent
    from aish.ui.render.reply import ReplyPrinter

_A = TypeVar("_A", bound=str)

_ANSWER_KEYS: dict[str, Answer] = {"y": "yes", "e": "edit", "n": "no", "d": "describe"}
_APPLY_KEYS = {"a": "apply", "n": "no"}

_CONFIRM = "  {command}\nRun it? [y]es / [e]dit / [n]o / [d]escribe{view}{always} "
# What `[a]lways` would allow is said before it is chosen: only that prefix, only this session.
_ALWAYS = " / [a]lways: allow `{prefix}` for this session / [p]roject: always here"
# With secret placeholders in the command: [v]iew shows it with the values it would run with.
_VIEW = " / [v]iew"

_LEVEL_STYLES = {"safe": "green", "unknown": "yellow", "destructive": "bold red"}


class ChatView:
    """Implements the agent's `ChatFrontend` for a terminal."""

    def __init__(
        self,
        out: TextIO,
        *,
        color: bool,
        show_reasoning: bool = True,
        outbound: Outbound | None = None,
    ) -> None:
        self._out = out
        # The session's door: its vault shows a command's placeholders as their values (`v`).
        self.outbound = outbound
        self._color = color
        self._splitter = CmdLineSplitter()
        self._markdown_cache: MarkdownStream | None = None  # the reply rendered, in colour
        self._ends_with_newline = True
        self._reasoning_open = False
        # Lines that told the user something (statuses, Norris frames): a Ctrl-C is reported
        # once, by whoever stopped first (see `Repl._handle_guarded`).
        self.notices = 0
        self._console_cache: Console | None = None
        self._editor: PromptSession[str] | None = None
        self._show_reasoning = show_reasoning
        self._printer_made: ReplyPrinter | None = None
        self._on_usage: Callable[[UsageRecorded], None] | None = None

    # ---- rendering -------------------------------------------------------------------------

    @property
    def _printer(self) -> ReplyPrinter:
        """Made at the first reply: the agent's event types need not load before the first
        prompt (they are a tenth of aish's start-up)."""
        if self._printer_made is None:
            from aish.ui.render.reply import ReplyPrinter

            self._printer_made = ReplyPrinter(self, show_reasoning=self._show_reasoning)
            self._printer_made.on_usage = self._on_usage
        return self._printer_made

    def render(self, event: AgentEvent) -> None:
        self._printer.render(event)

    @property
    def on_usage(self) -> Callable[[UsageRecorded], None] | None:
        """Told about every model call's usage (the session's ledger); None: nobody."""
        return self._on_usage

    @on_usage.setter
    def on_usage(self, note: Callable[[UsageRecorded], None] | None) -> None:
        self._on_usage = note
        if self._printer_made is not None:
            self._printer_made.on_usage = note

    # ---- the reply printer's surface ---------------------------------------------------------

    def reply_text(self, text: str) -> None:
        self._close_reasoning()
        if self._color:
            markdown = self._markdown()
            markdown.feed(visible(text))
            self._ends_with_newline = markdown.ends_with_newline
        else:
            for piece in self._splitter.feed(visible(text)):
                self._write(piece.text, command=piece.is_command_line)

    def reasoning(self, text: str) -> None:
        self._reasoning_open = True
        self._write(visible(text), style="dim")

    def end_reply(self) -> None:
        self._finish_markdown(reply_ended=True)
        for piece in self._splitter.flush():
            self._write(piece.text, command=piece.is_command_line)
        self.end_line()

    def proposed(self, command: str) -> None:
        pass  # shown highlighted as it streamed; the confirm prompt follows

    def failed(self, message: str) -> None:
        self.end_line()
        self._write(f"aish: {visible(message)}\n", style="red")

    def frame(self, event: NorrisEvent) -> None:
        from aish.ui.render.norris_frames import norris_pieces

        self.end_line()  # a frame or banner never starts mid-line
        width = shutil.get_terminal_size().columns
        self.notices += 1
        for text, style in norris_pieces(event, width=width):
            self._write(text, style=style)

    def status(self, text: str) -> None:
        self.notices += 1
        self.end_line()
        self._write(f"[aish] {visible(text)}\n", style="dim")

    def show(self, pieces: list[tuple[str, str]]) -> None:
        """Styled pieces of text (a sandbox's change set), each as given."""
        self.end_line()
        for text, style in pieces:
            self._write(text, style=style)

    async def ask_line(self, question: str) -> str | None:
        """A line typed in answer; None on Ctrl-C or Ctrl-D."""
        from prompt_toolkit import PromptSession

        session: PromptSession[str] = PromptSession()
        self.end_line()
        try:
            with type_ahead.set_aside():  # a key pressed before the question is no answer
                return await session.prompt_async(visible(question), handle_sigint=False)
        except (EOFError, KeyboardInterrupt):
            return None

    def end_line(self) -> None:
        self._close_reasoning()
        if not self._ends_with_newline:
            self._write("\n")

    def _close_reasoning(self) -> None:
        if self._reasoning_open:
            self._reasoning_open = False
            if not self._ends_with_newline:
                self._write("\n")

    def _markdown(self) -> MarkdownStream:
        if self._markdown_cache is None:
            from aish.ui.render.markdown_stream import MarkdownStream  # imports rich

            self._markdown_cache = MarkdownStream(self._out)
        return self._markdown_cache

    def _finish_markdown(self, *, reply_ended: bool = False) -> None:
        """Render what the reply left in progress: it ended, or other output comes first."""
        markdown = self._markdown_cache
        if markdown is not None and (reply_ended or markdown.live):
            markdown.finish()
            self._ends_with_newline = True

    def _write(self, text: str, *, style: str = "", command: bool = False) -> None:
        if not text:
            return
        self._finish_markdown()  # the block in progress is redrawn: nothing may follow it
        if not self._color:
            self._out.write(text)
        elif command:
            self._console().print(text, style="bold cyan", end="", markup=False, highlight=False)
        elif style:
            self._console().print(text, style=style, end="", markup=False, highlight=False)
        else:
            self._out.write(text)
        self._out.flush()
        self._ends_with_newline = text.endswith("\n")

    def _console(self) -> Console:
        if self._console_cache is None:
            from rich.console import Console

            self._console_cache = Console(file=self._out, highlight=False, soft_wrap=True)
        return self._console_cache

    # ---- the gate's questions --------------------------------------------------------------

    async def confirm_command(self, command: str, verdict: Verdict) -> Answer:
        self.show_verdict(verdict)
        revealed = _with_secret_values(command, self.outbound)
        keys: dict[str, Answer | Literal["view"]] = dict(_ANSWER_KEYS)
        if revealed != command:
            keys["v"] = "view"
        if verdict.always:
            keys["a"] = "always"
            keys["p"] = "project"
        question = _CONFIRM.format(
            command=visible(command),
            always=_ALWAYS.format(prefix=visible(verdict.always)) if verdict.always else "",
            view=_VIEW if "v" in keys else "",
        )
        while True:
            answer = await self.ask_key(question, keys)
            if answer != "view":
                return answer or "cancel"
            # Shown on the terminal only: never logged, never told to a model.
            self._write(f"  {visible(revealed)}\n", style="bold")

    async def ask_key(self, question: str, keys: Mapping[str, _A]) -> _A | Literal["no"] | None:
        """One key among `keys` answers; Enter alone is "no"; Ctrl-C or Ctrl-D cancel (None).
        Text typed and entered counts by its first letter ("no" when it names no answer)."""
        from prompt_toolkit import PromptSession
        from prompt_toolkit.key_binding import KeyBindings

        cancel = "\0cancel"  # no key's answer can be this
        bindings = KeyBindings()
        for key, answer in keys.items():
            bindings.add(key)(lambda event, answer=answer: event.app.exit(result=answer))
        bindings.add("enter")(lambda event: event.app.exit(result="no"))
        bindings.add("c-c")(lambda event: event.app.exit(result=cancel))
        bindings.add("c-d")(lambda event: event.app.exit(result=cancel))
        session: PromptSession[Any] = PromptSession(key_bindings=bindings)
        self.end_line()
        try:
            # A question may quote what it asks about (a command, a file's settings).
            with type_ahead.set_aside():  # a key pressed before the question is no answer
                typed = await session.prompt_async(visible(question), handle_sigint=False)
        except (EOFError, KeyboardInterrupt):
            return None
        if typed == cancel:
            return None
        if typed in keys.values() or typed == "no":
            return cast("_A | Literal['no']", typed)  # a key binding answered
        return keys.get(str(typed).strip()[:1].lower(), "no") if typed else "no"

    async def review_diff(self, diff: ProposedDiff, cwd: str) -> str | None:
        """Show the diff coloured with its per-file summary and ask `[a]pply / [n]o`; on apply,
        check it applies and return the command that applies it (the gate judges that)."""
        from aish.agent.diffs import summary_line
        from aish.run.diff_apply import apply_command, check_diff
        from aish.ui.render.diff_text import reason_line, render_diff

        self.end_line()
        width = shutil.get_terminal_size().columns
        self._out.write(render_diff(diff, color=self._color, width=width))
        answer = await self.ask_key(
            f"  {visible(summary_line(diff))}\nApply this diff? [a]pply / [n]o ", _APPLY_KEYS
        )
        if answer is None:
            return "cancel"
        if answer != "apply":
            self.status("diff not applied")
            return None
        ok, reason = await check_diff(diff, cwd)
        if not ok:
            self.status(f"diff not applied: it does not apply ({reason_line(reason)})")
            return None
        return apply_command(diff, cwd)

    async def halt_action(self, action: str, verdict: Verdict) -> HaltAnswer:
        """Proceed, skip or abort the action the `Halt` banner (already drawn) showed.

        One key answers: `p`, `s` or `a`. Ctrl-C, Ctrl-D and Ctrl-X Ctrl-C abort. A bare Enter
        answers nothing and the question stays: the action halted because it may be
        destructive, and a reflex Enter must neither run it nor let the run go on. Text typed
        and entered counts by its first letter; text that starts with no answer is cleared and
        the question stays too.
        """
        from prompt_toolkit import PromptSession
        from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent

        from aish.ui.render.norris_frames import HALT_KEYS, HALT_QUESTION

        keys = KeyBindings()
        for key, answer in HALT_KEYS.items():
            keys.add(key)(lambda event, answer=answer: event.app.exit(result=answer))
        for stop in (("c-c",), ("c-d",), ("c-x", "c-c")):
            keys.add(*stop)(lambda event: event.app.exit(result="abort"))

        @keys.add("enter")
        def _enter(event: KeyPressEvent) -> None:
            answer = HALT_KEYS.get(event.current_buffer.text.strip()[:1].lower())
            if answer is None:
                event.current_buffer.reset()
            else:
                event.app.exit(result=answer)

        session: PromptSession[str] = PromptSession(key_bindings=keys)
        self.end_line()
        try:
            with type_ahead.set_aside():  # a key pressed before the question is no answer
                typed = await session.prompt_async(HALT_QUESTION, handle_sigint=False)
        except (EOFError, KeyboardInterrupt):
            return "abort"
        # Every binding answers with a whole HaltAnswer; anything else is no answer to run on.
        return next((answer for answer in HALT_KEYS.values() if answer == typed), "abort")

    async def input_action(self, action: str, wait: InputWait) -> TakeOverAnswer:
        """`[t]ake over / [s]top it / [a]bort` for a step that waits for terminal input (the
        `Halt` banner, already drawn, showed its prompt). Ctrl-C and Ctrl-D abort; a bare
        Enter answers nothing (the question stays)."""
        from aish.ui.render.norris_frames import INPUT_KEYS, INPUT_QUESTION

        while True:
            answer = await self.ask_key(INPUT_QUESTION, INPUT_KEYS)
            if answer is None:
                return "abort"
            if answer != "no":
                return answer

    async def ask_password(self, prompt: str, command: str) -> str | None:
        """A password for a step, typed with echo off on aish's own prompt (what the program
        asked, quoted), below the step's command (which step asks); None on Ctrl-C or Ctrl-D.
        Never shown, kept or logged here."""
        from prompt_toolkit import PromptSession

        session: PromptSession[str] = PromptSession(is_password=True)
        self.end_line()
        self._write(f"  asked by the step: {visible(command)}\n", style="bold")
        try:
            with type_ahead.set_aside():  # keys typed before the question are not the password
                return await session.prompt_async(
                    f"{visible(prompt)} ", handle_sigint=False, is_password=True
                )
        except (EOFError, KeyboardInterrupt):
            return None

    def show_verdict(self, verdict: Verdict) -> None:
        """The gate's verdict above the question; destructive in red."""
        self.end_line()
        self._write(verdict_line(verdict) + "\n", style=_LEVEL_STYLES.get(verdict.level, "dim"))
        # What it will touch and whether :undo can take it back (the gate's blast radius).
        for line in verdict.touches:
            self._write(f"    {visible(line)}\n", style="dim")

    async def edit_command(self, command: str) -> str | None:
        from prompt_toolkit import PromptSession

        from aish.agent.gate import EditCancelled

        editor: PromptSession[str] = PromptSession()
        try:
            with type_ahead.set_aside():
                return await editor.prompt_async("edit> ", default=command, handle_sigint=False)
        except (EOFError, KeyboardInterrupt) as stop:
            # As at the question itself: Ctrl-C is "cancel", not "no".
            raise EditCancelled from stop

    async def show_description(self, command: str, description: str) -> None:
        self._write(visible(description).rstrip("\n") + "\n")


def verdict_line(verdict: Verdict) -> str:
    """`  [level] reason; reason` — what the gate concluded, as the confirm prompt shows it."""
    reasons = visible("; ".join(verdict.reasons))
    if verdict.level == "safe" and not reasons:
        reasons = "read-only"
    return f"  [{verdict.level}] {reasons}".rstrip()


def _with_secret_values(command: str, outbound: Outbound | None) -> str:
    """The command as it would run: the session's secret placeholders back to their values
    (none known without the session's door)."""
    from aish.agent import placeholders

    if outbound is None or placeholders.MARK not in command:
        return command
    return placeholders.command_with_values(command, outbound.vault)
