"""The interactive shell: read a line, route it, run it or ask about it, repeat.

Start-up order is chosen for a fast first prompt: the persistent shell starts in the
background and the prompt appears at once; the first command waits for the shell if it is not
ready yet. Everything that happens is written to the session log as it happens.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import sys
import termios
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from aish.agent.chat import ChatTurn
from aish.agent.routing import KnownCommands, route_line
from aish.conversation.context import CommandRun, Conversation, run_payload
from aish.conversation.system_prompt import PromptFacts, render_system_prompt
from aish.ui.chat_view import ChatView
from aish.ui.meta import COMMANDS, run_meta
from aish.ui.prompt_text import prompt_text

if TYPE_CHECKING:
    from prompt_toolkit import PromptSession

    from aish.config import LoadedConfig
    from aish.shell.session import CommandResult, ShellSession
    from aish.store import SessionInfo, Store

_EXIT = re.compile(r"\s*(exit|logout)(\s+\d+)?\s*")


class Repl:
    """One interactive session. Implements the `ReplContext` that meta commands use."""

    def __init__(
        self, loaded: LoadedConfig, store: Store, session: SessionInfo, model: str
    ) -> None:
        self._loaded = loaded
        self._store = store
        self._session = session
        self._model = model
        self._facts = _prompt_facts(loaded)
        self.conversation = Conversation(render_system_prompt(self._facts))
        self._view = ChatView(sys.stdout, color=_color(), show_reasoning=_reasoning(loaded))
        self._shell_task: asyncio.Task[ShellSession] | None = None
        self._known: KnownCommands | None = None
        self._extra_names: frozenset[str] = frozenset()
        self._last_status = 0
        self._quit = False
        self._reply_task: asyncio.Task[Any] | None = None
        self._names_task: asyncio.Task[None] | None = None
        self._log_failed = False
        self._prompt: PromptSession[str] | None = None

    # ---- the loop ----------------------------------------------------------------------------

    async def run(self) -> int:
        self._shell_task = asyncio.create_task(self._start_shell())
        known_task = asyncio.create_task(asyncio.to_thread(KnownCommands.from_system))
        prompt = self._prompt_session()
        try:
            while not self._quit:
                try:
                    line = await prompt.prompt_async(self._prompt_message, handle_sigint=False)
                except KeyboardInterrupt:
                    continue
                except EOFError:
                    break
                if not line.strip():
                    continue
                if _EXIT.fullmatch(line):
                    break
                if self._known is None:
                    self._known = await known_task
                await self._handle(line)
        finally:
            await self._close_shell()
        return 0

    async def _handle(self, line: str) -> None:
        assert self._known is not None
        route = route_line(line, self._known_with_shell())
        if route.target == "meta":
            self._log("meta", {"text": route.text})
            await run_meta(self, route.text)
        elif route.target == "shell":
            await self.run_command(route.text, "user")
        else:
            await self._ask(route.text)

    # ---- asking ------------------------------------------------------------------------------

    async def _ask(self, question: str) -> None:
        from aish.config import resolve_target
        from aish.llm.errors import ConfigError

        try:
            target = resolve_target(self._loaded.config, self._model, os.environ)
        except ConfigError as error:
            self._view.status(str(error))
            return
        turn = ChatTurn(self.conversation, target, self._view, self.run_command, self._log)
        cwd = self.shell_cwd()
        self._reply_task = asyncio.create_task(turn.ask(question, cwd=cwd))
        loop = asyncio.get_running_loop()
        # Ctrl-C (and C-x C-c, whose C-c arrives the same way) while the reply streams stops
        # the reply and nothing else. Installed per reply: prompt_toolkit removes SIGINT
        # handlers when a prompt ends.
        loop.add_signal_handler(signal.SIGINT, self._interrupt_reply)
        try:
            with _no_echo():
                await self._reply_task
        except asyncio.CancelledError:
            if not self._reply_task.cancelled():
                raise
        finally:
            loop.remove_signal_handler(signal.SIGINT)
            self._reply_task = None

    def _interrupt_reply(self) -> None:
        if self._reply_task is not None:
            self._reply_task.cancel()

    # ---- running commands --------------------------------------------------------------------

    async def run_command(self, command: str, source: str) -> CommandRun:
        """Run in the user's shell with the terminal relayed; the capture becomes context."""
        from aish.shell.terminal import Terminal

        shell = await self._shell()
        self._view.end_line()
        context = self._loaded.config.context
        async with Terminal(sys.stdin.fileno(), sys.stdout.fileno(), shell) as terminal:
            result = await shell.run(
                command,
                terminal=terminal,
                on_output=_write_raw,
                max_lines=context.output_max_lines,
                max_bytes=context.output_max_bytes,
            )
        run = _command_run(result, "model" if source == "model" else "user")
        if result.notice:
            self._view.status(result.notice)
        self._last_status = result.exit_status
        self.conversation.note_command(run)
        self._log("command", run_payload(run))
        self._names_task = asyncio.create_task(self._refresh_names(shell))
        return run

    async def _start_shell(self) -> ShellSession:
        from aish.shell.session import ShellSession

        size = os.get_terminal_size() if sys.stdout.isatty() else os.terminal_size((80, 24))
        return await ShellSession.start(
            shell=self._loaded.config.ui.shell,
            rows=size.lines,
            cols=size.columns,
            on_notice=self._view.status,
            on_background_output=_write_raw,
        )

    async def _shell(self) -> ShellSession:
        assert self._shell_task is not None
        return await self._shell_task

    async def _refresh_names(self, shell: ShellSession) -> None:
        # Aliases and functions defined by the user's commands route to the shell too.
        with contextlib.suppress(Exception):
            names = await shell.known_names()
            self._extra_names = frozenset(
                names.builtins | names.keywords | names.aliases | names.functions
            )

    def _known_with_shell(self) -> KnownCommands:
        assert self._known is not None
        if not self._extra_names <= self._known.names:
            self._known = KnownCommands(self._known.names | self._extra_names)
        return self._known

    async def _close_shell(self) -> None:
        if self._shell_task is None:
            return
        if not self._shell_task.done():
            self._shell_task.cancel()
        with contextlib.suppress(BaseException):
            shell = await self._shell_task
            await shell.close()

    # ---- the prompt --------------------------------------------------------------------------

    def _prompt_message(self) -> str:
        return prompt_text(self._model, self.shell_cwd(), self._last_status)

    def _prompt_session(self) -> PromptSession[str]:
        from prompt_toolkit import PromptSession
        from prompt_toolkit.enums import EditingMode
        from prompt_toolkit.history import FileHistory
        from prompt_toolkit.key_binding import KeyBindings

        from aish.config.paths import state_dir
        from aish.ui.completion import AishCompleter

        keys = KeyBindings()

        @keys.add("c-n")
        def _norris(event: Any) -> None:
            from prompt_toolkit.application import run_in_terminal

            run_in_terminal(lambda: self._view.status("Norris mode is not available yet"))

        @keys.add("c-x", "c-c")
        def _abort(event: Any) -> None:
            event.current_buffer.reset()  # nothing runs at the prompt: just drop the line

        history_file = state_dir() / "history"
        history_file.parent.mkdir(parents=True, exist_ok=True)
        vi = self._loaded.config.ui.edit_mode == "vi"
        self._prompt = PromptSession(
            history=FileHistory(str(history_file)),
            completer=AishCompleter(COMMANDS, lambda: self._known.names if self._known else ()),
            complete_while_typing=False,
            key_bindings=keys,
            editing_mode=EditingMode.VI if vi else EditingMode.EMACS,
        )
        return self._prompt

    # ---- ReplContext (used by meta commands) -----------------------------------------------

    @property
    def model_name(self) -> str:
        return self._model

    def model_names(self) -> list[str]:
        return list(self._loaded.config.models)

    def model_line(self, name: str) -> str:
        preset = self._loaded.config.models.get(name)
        if preset is None:
            return f"{name}: (unknown)"
        return f"{name}: {preset.model} via {preset.api} at {preset.endpoint}"

    def switch_model(self, name: str) -> str | None:
        if name not in self._loaded.config.models:
            return f"unknown model preset '{name}' (known: {', '.join(self._loaded.config.models)})"
        self._model = name
        self._log("status", {"text": f"model switched to {name}"})
        return None

    def reset_conversation(self) -> None:
        self.conversation.reset()
        self._log("reset", {})

    def save_session(self, name: str) -> str:
        self._store.name_session(self._session.id, name)
        return f"session saved as '{name}'"

    def load_session(self, name: str) -> str:
        found = self._store.find_session(name)
        if found is None:
            return f"no session named '{name}' (:sessions lists them)"
        self._session = found
        return self.resume()

    def resume(self) -> str:
        """Take up the current session's logged conversation."""
        turns = [(t.kind, t.payload) for t in self._store.turns(self._session.id)]
        self.conversation = Conversation.replay(self.conversation.system_prompt, turns)
        exchanges = len(self.conversation.history) // 2
        label = self._session.name or f"#{self._session.id}"
        return f"[aish] continuing session {label}: {exchanges} exchanges"

    def session_lines(self) -> list[str]:
        import time

        lines = []
        for summary in self._store.list_sessions():
            info = summary.info
            when = time.strftime("%Y-%m-%d %H:%M", time.localtime(summary.last_at))
            mark = "*" if info.id == self._session.id else " "
            label = info.name or f"#{info.id}"
            lines.append(
                f"{mark} {label:<16} {when}  {summary.turns:>4} turns  {summary.first_text[:40]}"
            )
        return lines

    def explain_route(self, text: str) -> str:
        known = self._known_with_shell() if self._known else KnownCommands.from_system()
        route = route_line(text, known)
        return f"{route.target}: {route.reason}"

    def shell_cwd(self) -> str:
        task = self._shell_task
        if task is not None and task.done() and not task.cancelled() and not task.exception():
            return task.result().cwd
        return os.getcwd()

    def say(self, text: str) -> None:
        self._view.end_line()
        sys.stdout.write(text + "\n")
        sys.stdout.flush()

    def quit(self) -> None:
        self._quit = True

    # ---- the session log ---------------------------------------------------------------------

    def _log(self, kind: str, payload: Mapping[str, Any]) -> None:
        from aish.store import StoreError

        try:
            self._store.append_turn(self._session.id, kind, payload)
        except StoreError as error:
            if not self._log_failed:  # say it once; aish keeps working without its log
                self._log_failed = True
                self._view.status(f"session log unavailable: {error}")


def _command_run(result: CommandResult, source: str) -> CommandRun:
    return CommandRun(
        command=result.command,
        exit_status=result.exit_status,
        cwd_before=result.cwd_before,
        cwd_after=result.cwd_after,
        duration_s=result.duration_s,
        output=result.output.text,
        source="model" if source == "model" else "user",
        notice=result.notice,
    )


def _write_raw(data: bytes) -> None:
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()


@contextlib.contextmanager
def _no_echo() -> Iterator[None]:
    """Keys typed while a reply streams must not scribble over it (Ctrl-C still works)."""
    with _termios_flags(clear=termios.ECHO):
        yield


@contextlib.contextmanager
def _termios_flags(*, clear: int) -> Iterator[None]:
    fd = sys.stdin.fileno()
    if not os.isatty(fd):
        yield
        return
    before = termios.tcgetattr(fd)
    changed = list(before)
    changed[3] = changed[3] & ~clear
    termios.tcsetattr(fd, termios.TCSANOW, changed)
    try:
        yield
    finally:
        termios.tcsetattr(fd, termios.TCSANOW, before)


def _prompt_facts(loaded: LoadedConfig) -> PromptFacts:
    import platform

    shell = loaded.config.ui.shell or os.environ.get("SHELL") or "bash"
    return PromptFacts(os_name=platform.system() or "Unix", shell=os.path.basename(shell))


def _color() -> bool:
    return sys.stdout.isatty() and not os.environ.get("NO_COLOR")


def _reasoning(loaded: LoadedConfig) -> bool:
    return loaded.config.ui.show_reasoning != "hide"
