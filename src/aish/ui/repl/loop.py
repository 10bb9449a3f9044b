"""The interactive shell: read a line, route it, run it or ask about it, repeat.

Start-up order is chosen for a fast first prompt: the persistent shell starts in the
background and the prompt appears at once; the first command waits for the shell if it is not
ready yet. Everything that happens is written to the session log as it happens. Running a
command (the user's line, or what the gate authorized) lives in `aish.run.user_shell`; its
output on the terminal in `shell_output`.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Literal

from aish.agent.routing import KnownCommands, paths_under, route_line
from aish.agent.session_approvals import SessionApprovals
from aish.conversation.context import CommandRun, Conversation
from aish.run.record import record_run
from aish.run.undo import UndoRecorder
from aish.run.user_shell import UserShell
from aish.ui import type_ahead
from aish.ui.chat_view import ChatView
from aish.ui.render.visible_text import visible
from aish.ui.repl.agent_runs import AgentRuns
from aish.ui.repl.continuation import InputAbandoned
from aish.ui.repl.edit_keys import editing_mode, follow_shell_keys, follow_when_the_shell_starts
from aish.ui.repl.fix_key import fix_key_bindings, is_fix_line
from aish.ui.repl.mcp_servers import ReplMcp
from aish.ui.repl.meta.commands import COMMANDS, norris_mode_line, run_meta
from aish.ui.repl.prompt_line import prompt_text
from aish.ui.repl.shell_output import ShellOutput, ignoring, no_echo
from aish.ui.terminal_io import TerminalIO

if TYPE_CHECKING:
    from pathlib import Path

    from prompt_toolkit import PromptSession
    from prompt_toolkit.auto_suggest import AutoSuggest
    from prompt_toolkit.history import History

    from aish.agent import gate
    from aish.agent.memory_summary import Candidate
    from aish.agent.shell_facts import ShellFactsSource
    from aish.config import LoadedConfig
    from aish.mcp import McpTool, ServerStatus
    from aish.run.completion_helper import ReplLiveShell
    from aish.run.jobs import Job
    from aish.run.undo import SnapshotStore
    from aish.safety.bash.continuation import Unfinished
    from aish.safety.rules.user import UserRules
    from aish.session import Session
    from aish.session.models import ModelChoice
    from aish.session.records import SessionInfo, Store, UsageTotals

_EXIT = re.compile(r"\s*(exit|logout)(\s+\d+)?\s*")


class Repl:
    """One interactive session's terminal frontend. Implements the `ReplContext` that meta
    commands use; what the session is (conversation, policies, log, ledger, memory, model
    choice) is the `Session`'s, built by `aish` and handed in."""

    def __init__(self, session: Session, terminal: TerminalIO | None = None) -> None:
        self.session = session
        # Where it reads and writes: the real terminal unless it is given another (tests run
        # REPL flows in-process with a pipe; prompts follow prompt_toolkit's app session).
        self._io = terminal if terminal is not None else TerminalIO.real()
        loaded = session.loaded
        session.conversation  # noqa: B018  (its system prompt is decided as the REPL starts)
        # `[a]lways` answers: this session's only, in memory (never in a file); only a person
        # at this prompt is offered them.
        session.approvals = SessionApprovals()
        # Norris mode: while on, each line for the model is a goal (see `norris_mode`).
        self._norris_on = False
        # What the gate judges chat commands against: the user's shell as it is at that moment.
        self._view = ChatView(
            self._io.text,
            color=_color(self._io),
            show_reasoning=_reasoning(loaded),
            outbound=session.outbound,
        )
        # Looked up through the view at call time (tests may wrap the view's render).
        session.attach(
            self._view,
            say=lambda text: self._view.status(text),
            render=lambda event: self._view.render(event),
        )
        self._output = ShellOutput(self._io.write_raw)
        self._commands = UserShell(
            self._view,
            self._output,
            type_ahead,
            loaded.config.context,
            self._record_run,
            self._after_command,
            UndoRecorder.from_config(loaded.config.undo),
            terminal=(self._io.stdin_fd, self._io.stdout_fd),
        )
        self._commands.on_job_end = self._job_ended
        self._shell_facts: ShellFactsSource | None = None
        self._known: KnownCommands | None = None
        self._quit = False
        self._current: asyncio.Task[None] | None = None
        self._notices_at_interrupt: int | None = None  # the view's count when Ctrl-C came
        self._start_cwd: str | None = None
        self._known_task: asyncio.Future[KnownCommands] | None = None
        self._live_completion: ReplLiveShell | None = None
        self._prompt: PromptSession[str] | None = None
        self._listing: list[str] | None = None  # what `say` collects for the pager
        # What the next prompt starts with (a `??` proposal), taken by that prompt.
        self._next_line = ""
        self._mcp = ReplMcp(loaded.config.mcp, notice=self._show_notice, status=self._view.status)
        self._agent_runs = AgentRuns(
            session,
            self._view,
            self._commands,
            self._mcp,
            stdin_fd=self._io.stdin_fd,
            shell_cwd=self.shell_cwd,
            log=self._log,
        )

    # ---- the loop ----------------------------------------------------------------------------

    async def run(self) -> int:
        loop = asyncio.get_running_loop()
        # One handler for the whole session (prompts run with handle_sigint=False): Ctrl-C
        # outside the line editor stops what is in flight — a reply, a wait for the shell —
        # and never ends aish.
        loop.add_signal_handler(signal.SIGINT, self._interrupt)
        if self._io.stand_in:  # keys typed ahead are kept on the stand-in as on a terminal
            from prompt_toolkit.application.current import get_app_session

            type_ahead.stand_in_for_terminal(get_app_session().input)
        self._commands.start(
            self.session.loaded.config.ui.shell,
            self._start_cwd,
            on_notice=self._show_notice,
            on_background_output=self._show_background,
        )
        self.session.memory.prune()
        known_task = asyncio.ensure_future(asyncio.to_thread(KnownCommands.from_system))
        self._known_task = known_task
        prompt = self._prompt_session()
        self._mcp.start_after_first_prompt(prompt)
        edit_mode = self.session.loaded.config.ui.edit_mode
        keys_task = asyncio.ensure_future(
            follow_when_the_shell_starts(
                prompt,
                edit_mode,
                self._commands.started_within,
                lambda: self._commands.edit_keys,
            )
        )
        exit_status = 0
        try:
            while not self._quit:
                self._output.end_partial_output_line()
                try:
                    default, self._next_line = self._next_line, ""
                    follow_shell_keys(prompt, edit_mode, self._commands.edit_keys)
                    # A prompt that opens with the model's proposal must not take keys typed
                    # before it appeared: an Enter typed ahead would run a line nobody saw.
                    # They come back in front of the next prompt.
                    with type_ahead.set_aside() if default else contextlib.nullcontext():
                        line = await prompt.prompt_async(
                            self._prompt_message, handle_sigint=False, default=default
                        )
                except KeyboardInterrupt:
                    continue
                except InputAbandoned as abandoned:  # Ctrl-D on an empty continuation line
                    self._view.status(str(abandoned))
                    continue
                except EOFError:
                    line, typed = "exit", False  # Ctrl-D: bash's `exit`, not in the history
                else:
                    typed = True
                if not line.strip():
                    continue
                if _EXIT.fullmatch(line):
                    ended = await self._end_shell(line, typed=typed)
                    if ended is None:
                        continue  # the shell stayed (stopped jobs): it said why
                    exit_status = ended
                    break
                if self._known is None:
                    self._known = await known_task
                await self._handle_guarded(line)
        finally:
            keys_task.cancel()
            loop.remove_signal_handler(signal.SIGINT)
            if self._io.stand_in:
                type_ahead.stand_in_for_terminal(None)
            self._agent_runs.review.at_exit()
            await self._mcp.close()
            await self.session.outbound.aclose()
            if self._live_completion is not None:
                await self._live_completion.close()
            await self._commands.close()
        return exit_status

    async def _end_shell(self, line: str, *, typed: bool) -> int | None:
        """The user's `exit` (or Ctrl-D), decided by their shell; the status aish exits with,
        or None when the shell stays. A shell that is gone or never started cannot object."""
        words = line.split()
        if words[0] == "logout":  # a non-login bash would refuse `logout`: aish is the login
            line = " ".join(["exit", *words[1:]])
        try:
            return await self._commands.end_shell(line, typed=typed)
        except Exception:
            import logging

            logging.getLogger("aish.repl").warning("no shell to hand %r to", line, exc_info=True)
            return int(words[1]) if len(words) > 1 else 0

    async def _handle_guarded(self, line: str) -> None:
        """Handle one line in a task Ctrl-C can cancel; a failure costs the line, not aish."""
        self._current = asyncio.create_task(self._handle(line))
        try:
            await self._current
        except asyncio.CancelledError:
            if not self._current.cancelled():
                raise
            # One line per Ctrl-C: a reply says it was cut short, a Norris run that it was
            # aborted; only work that stopped without a word is reported here.
            if self._view.notices == self._notices_at_interrupt:
                self._view.status("interrupted")
        except Exception as error:
            import logging

            logging.getLogger("aish.repl").exception("failed handling %r", line)
            self._view.status(f"failed: {error} (details in the log)")
        finally:
            self._current = None
            self._notices_at_interrupt = None

    def _interrupt(self) -> None:
        if self._current is not None:
            if self._notices_at_interrupt is None:  # a second Ctrl-C changes nothing here
                self._notices_at_interrupt = self._view.notices
            self._current.cancel()

    async def _handle(self, line: str) -> None:
        assert self._known is not None
        if is_fix_line(line):
            await self._fix()
            return
        route = route_line(line, self._known_with_shell(), paths_under(self.shell_cwd()))
        if route.target == "meta":
            self._log("meta", {"text": route.text})
            self.session.memory.refresh(
                self.conversation
            )  # `:history` shows the block the next turn would tell
            await run_meta(self, route.text)
        elif route.target == "shell":
            await self.run_command(route.text)  # the config follows its `cd` afterwards
        else:
            self._follow_project()  # the shell may have started or respawned elsewhere
            if self._norris_on:
                await self.run_goal(route.text)
            else:
                await self._ask(route.text)

    # ---- asking ------------------------------------------------------------------------------

    async def _ask(self, question: str) -> None:
        self._mcp.at_turn_boundary()
        target = self.session.resolve()
        if isinstance(target, str):
            self._log("user", {"text": question})
            self._log("status", {"text": target})
            self._view.status(target)
            return
        self.session.memory.refresh(self.conversation)
        target = self.models.route(question, target)  # fixed for the whole tool sub-loop
        turn = self.session.chat_turn(
            target,
            self._view,
            self.run_authorized,
            self.shell_cwd,
            shell_facts=self._user_shell_facts(),
            tools=self._mcp.tool_options(),
            start_job=self._commands.start_job,
            delegator=self.session.delegator(self._agent_runs.delegated),
        )
        # While the reply streams, typed keys are not echoed over it, and Ctrl-\ / Ctrl-Z
        # are not for aish (the confirm prompt and commands run in raw mode and get them).
        with no_echo(self._io.stdin_fd), ignoring(signal.SIGQUIT, signal.SIGTSTP):
            await turn.ask(question, cwd=self.shell_cwd())
        await self._offer_project_rules()

    async def _fix(self) -> None:
        """`??`: the model's fix of the last failed command, put in the line editor with the
        gate's verdict; it runs only as the user's own line."""
        from aish.agent.fix import NO_FAILURE, last_failure

        if last_failure(self.conversation) is None:
            self._log("status", {"text": NO_FAILURE})
            self._view.status(NO_FAILURE)
            return
        self._mcp.at_turn_boundary()
        active = self.session.resolve()
        if isinstance(active, str):
            self._log("status", {"text": active})
            self._view.status(active)
            return
        self.session.memory.refresh(self.conversation)
        turn = self.session.fix_turn(
            active,
            self._view,
            self.shell_cwd,
            shell_facts=self._user_shell_facts(),
            tools=self._mcp.tool_options(),
        )
        with no_echo(self._io.stdin_fd), ignoring(signal.SIGQUIT, signal.SIGTSTP):
            proposal = await turn.propose(self.shell_cwd())
        if proposal is None:
            return  # the failed request was said
        if isinstance(proposal, str):
            self._log("status", {"text": proposal})
            self._view.status(proposal)
            return
        self._view.show_verdict(proposal.assessment.verdict)
        if proposal.assessment.decision == "deny":
            # Your policy refuses it on the model's behalf; it is not put in your hands either.
            said = "not put in the line editor: your policy denies it"
            self._log("status", {"text": said})
            self._view.status(said)
            return
        self._view.status("in the line editor: Enter runs it, Ctrl-C drops it")
        self._next_line = proposal.command

    async def _offer_project_rules(self) -> None:
        """`[p]roject` answers of this turn: each rule shown, written on a second yes."""
        approvals = self.session.approvals
        patterns = approvals.take_for_project() if approvals is not None else []
        if not patterns:
            return
        from aish.config.paths import home_directory
        from aish.ui.repl.project_rule_offer import offer_project_rules

        home = home_directory(os.environ)
        if await offer_project_rules(
            patterns, self.shell_cwd(), home, self._store, self.ask_key, self.say
        ):
            self._follow_project()

    # ---- Norris ------------------------------------------------------------------------------

    async def run_goal(self, goal: str) -> None:
        """Pursue `goal` autonomously in a shell of the agent's own (started in this shell's
        cwd); HALTs ask here; Ctrl-C aborts. The run joins this conversation."""
        await self._agent_runs.run_goal(goal)

    async def norris_review(self) -> None:
        """`:norris review`: the last sandboxed run's change set, to apply or discard."""
        await self._agent_runs.review.review()

    def norris_mode(self, on: bool) -> None:
        """Norris mode on: lines for the model are goals (the prompt shows ⚡)."""
        self._norris_on = on
        self._log("status", {"text": f"norris mode {'on' if on else 'off'}"})

    @property
    def norris_on(self) -> bool:
        return self._norris_on

    # ---- memory ------------------------------------------------------------------------------

    def memory_store(self) -> Store:
        return self._store

    def memory_block(self, *, force: bool = False) -> str:
        return self.session.memory.block(self.conversation, force=force)

    async def ask_key(self, question: str, keys: dict[str, str]) -> str | None:
        return await self._view.ask_key(question, keys)

    async def edit_line(self, text: str) -> str | None:
        from aish.agent.gate import EditCancelled

        try:
            return await self._view.edit_command(text)
        except EditCancelled:
            return None

    async def summarize_memory(self) -> list[Candidate]:
        return await self.session.memory.summarize(self._info.id, self.session.model)

    def session_source(self) -> str:
        return f"session {self._info.id}"

    # ---- running commands --------------------------------------------------------------------

    async def run_command(self, command: str) -> CommandRun:
        """Run a line the user typed, as theirs."""
        return await self._commands.run_users_line(command)

    async def run_authorized(self, authorization: gate.Authorization) -> CommandRun:
        """Run what the gate authorized; anything else is refused (`gate.Unauthorized`)."""
        return await self._commands.run_authorized(authorization)

    def undo_store(self) -> SnapshotStore | None:
        """Where `:undo` finds the snapshots (None: undo is off)."""
        undo = self._commands.undo
        return None if undo is None else undo.store

    def safety_rules(self) -> UserRules:
        """The user's own safety rules, for `:safety check` and `:safety rules`."""
        return self.session.policy.user_rules

    def _record_run(self, run: CommandRun) -> None:
        """Every command the user's shell ran, for the model and the session log."""
        record_run(run, self.conversation, self._log)

    def background_jobs(self) -> list[Job]:
        """`:jobs`: the background jobs started in the user's shell, oldest first."""
        table = self._commands.jobs
        if table is None:
            return []
        table.poll()
        return list(table.jobs)

    def _job_ended(self, job: Job) -> None:
        """A background job ended: the model is told with the next question, the user now."""
        from aish.ui.repl.meta.jobs import job_end_notice

        record_run(job.as_command_run(), self.conversation, self._log, background_job=job.number)
        self._show_notice(job_end_notice(job))

    def _after_command(self) -> None:
        self._follow_project()

    def _follow_project(self) -> None:
        """When the project file governing the user's shell's directory is another one now (or
        the same one, trusted or edited since), the config follows it; said in one line."""
        said = set(self.session.loaded.warnings)
        try:
            followed = self.session.follow(self.shell_cwd())
        except Exception as error:  # a failing load keeps the config in use, and says so
            import logging

            logging.getLogger("aish.repl").exception("cannot load the config here")
            self._view.status(f"config not reloaded for this directory: {error}")
            return
        if followed is None:
            return
        from aish.config.paths import home_directory
        from aish.ui.project_review import change_lines

        before, loaded = followed
        notes = self.session.use_config(loaded)
        self._after_config()
        home = home_directory(os.environ)
        state = self.session.project
        for line in [*change_lines(state, before, loaded.warnings, said, home), *notes]:
            self._view.status(line)

    async def _completion_names(self) -> frozenset[str]:
        """Every command name for completion: PATH's and the shell's aliases and functions
        (waiting a little for a refresh under way, so a function defined by the last command
        completes at once)."""
        pending = self._known_task
        if pending is not None and not pending.done():
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.shield(pending), 2.0)
        await self._commands.names_settled(2.0)
        known = self._known_task
        names = (
            known.result() if known is not None and known.done() and not known.exception() else None
        )
        return (names.names if names is not None else frozenset()) | self._commands.names

    def _user_shell_facts(self) -> ShellFactsSource:
        """What the gate judges chat commands against: the user's shell as it is when asked
        (made at the first question: the first prompt does not need the gate's parts)."""
        if self._shell_facts is None:
            from aish.agent.shell_facts import ShellFactsSource

            self._shell_facts = ShellFactsSource(self._commands.state_report)
        return self._shell_facts

    def _known_with_shell(self) -> KnownCommands:
        assert self._known is not None
        names = self._commands.names
        if not names <= self._known.names:
            self._known = KnownCommands(self._known.names | names)
        return self._known

    # ---- MCP servers (`:mcp`) ---------------------------------------------------------------

    def mcp_statuses(self) -> list[ServerStatus]:
        return self._mcp.statuses()

    def mcp_tools(self) -> list[McpTool]:
        return self._mcp.tools()

    async def mcp_restart(self, name: str) -> str:
        return await self._mcp.restart(name)

    # ---- output around the prompt -----------------------------------------------------------

    def _above_prompt(self, show: Callable[[], None]) -> None:
        """Print while the line editor may be active without scribbling over it."""
        app = self._prompt.app if self._prompt is not None else None
        if app is not None and app.is_running:
            from prompt_toolkit.application import run_in_terminal

            run_in_terminal(show)
        else:
            show()

    def _show_background(self, data: bytes) -> None:
        def show() -> None:
            self._output.write_output(data)
            self._output.end_partial_output_line()  # the prompt is drawn again below it

        self._above_prompt(show)

    def _show_notice(self, text: str) -> None:
        self._above_prompt(lambda: self._view.status(text))

    # ---- the prompt --------------------------------------------------------------------------

    def _prompt_message(self) -> str:
        return prompt_text(
            self.session.model, self.shell_cwd(), self._commands.last_status, norris=self._norris_on
        )

    def _prompt_session(self) -> PromptSession[str]:
        from prompt_toolkit import PromptSession
        from prompt_toolkit.key_binding import merge_key_bindings

        from aish.config.paths import state_dir
        from aish.run.completion_helper import ReplLiveShell
        from aish.ui.repl.completion import AishCompleter
        from aish.ui.repl.continuation import (
            continuation_bindings,
            continuation_prompt,
            tab_display,
        )
        from aish.ui.repl.prompt_keys import prompt_keys
        from aish.ui.repl.suggest.keys import accept_bindings

        keys = prompt_keys(self._toggle_norris)
        live = ReplLiveShell(
            self._commands.started,
            self._commands.started_within,
            self.shell_cwd,
            self._completion_names,
            shell_choice=self.session.loaded.config.ui.shell,
            timeout_s=self.session.loaded.config.ui.completion_timeout_s,
        )
        self._live_completion = live
        fix_key = fix_key_bindings(self.session.loaded.config.ui.fix_key, self._show_notice)
        self._prompt = PromptSession(
            history=self._line_history(state_dir() / "history"),
            completer=AishCompleter(COMMANDS, live),
            complete_while_typing=False,
            auto_suggest=self._suggester(),
            key_bindings=merge_key_bindings(
                [
                    keys,
                    accept_bindings(),
                    continuation_bindings(self._needs_another_line),
                    *([fix_key] if fix_key is not None else []),
                ]
            ),
            prompt_continuation=continuation_prompt,
            input_processors=[tab_display()],
            editing_mode=editing_mode(
                self.session.loaded.config.ui.edit_mode, self._commands.edit_keys
            ),
        )
        return self._prompt

    def _toggle_norris(self) -> None:
        """C-n on an empty line: Norris mode on or off, said above the prompt."""
        from prompt_toolkit.application import run_in_terminal

        self.norris_mode(not self._norris_on)
        run_in_terminal(lambda: self._view.status(norris_mode_line(self._norris_on)))

    def _needs_another_line(self, text: str) -> Unfinished | None:
        """Enter continues unfinished shell syntax (see `aish.agent.routing.continuation`)."""
        from aish.agent.routing import needs_another_line

        known = self._known_with_shell() if self._known else KnownCommands(frozenset())
        return needs_another_line(text, known)

    def _line_history(self, path: Path) -> History:
        """The typed lines' history file (private, see `history`)."""
        from aish.ui.repl.history import open_line_history

        return open_line_history(path, self._show_notice, self.shell_cwd)

    def _suggester(self) -> AutoSuggest | None:
        """The ghost text `ui.suggest` asks for: none, the history's, or the history's and
        then a model's (history only, said once, when no preset may suggest)."""
        mode = self.session.config.ui.suggest
        if mode == "off":
            return None
        from aish.ui.repl.suggest.history import HistorySuggest

        if mode == "history":
            return HistorySuggest(self.shell_cwd)
        completer = self.session.line_completer()
        if isinstance(completer, str):
            self._show_notice(completer)
            return HistorySuggest(self.shell_cwd)
        from aish.ui.repl.suggest.model import ModelSuggest

        return ModelSuggest(completer.complete, self.shell_cwd, warm_up=completer.warm_up)

    # ---- ReplContext (used by meta commands) -----------------------------------------------

    @property
    def model_name(self) -> str:
        return self.session.model

    def model_names(self) -> list[str]:
        return list(self.session.config.models)

    def model_line(self, name: str) -> str:
        return self.session.model_line(name)

    def switch_model(self, name: str) -> str | None:
        return self.session.switch_model(name)

    def reset_conversation(self) -> None:
        self.conversation.reset()
        self._log("reset", {})

    def save_session(self, name: str) -> str:
        """A snapshot of the conversation as it is now, under `name`; this session goes on
        (a `:reset` after it does not reach the snapshot)."""
        self._store.copy_session(self._info.id, name=name)
        return f"session saved as '{name}' ({_turns(self.conversation.exchange_count())})"

    def load_session(self, name: str) -> str:
        """Continue a copy of the snapshot `name`: what follows is logged to the copy, so the
        snapshot can be loaded again as it was saved."""
        found = self._store.find_session(name)
        if found is None:
            return f"no session named '{name}' (:sessions lists them)"
        self.session.use_session(self._store.copy_session(found.id))
        return self.resume(label=f"'{name}'")

    def resume(self, *, model_given: bool = False, label: str | None = None) -> str:
        """Take up the current session's logged conversation, its model and its last cwd
        (for a shell not started yet; shell state itself — variables, aliases — is gone)."""
        turns = [(t.kind, t.payload) for t in self._store.turns(self._info.id)]
        self.conversation = Conversation.replay(self.conversation.system_prompt, turns)
        if not model_given and self._info.model in self.session.config.models:
            self.session.model = self._info.model
        # The user's shell resumes where the user's own commands left it, not the agent's.
        cwds = [
            str(p.get("cwd_after", ""))
            for k, p in turns
            if k == "command" and p.get("shell") != "agent"
        ]
        last_cwd = next((c for c in reversed(cwds) if c), self._info.cwd)
        if not self._commands.starting and last_cwd and os.path.isdir(last_cwd):
            self._start_cwd = last_cwd
        label = label or self._info.name or f"#{self._info.id}"
        told = _turns(self.conversation.exchange_count())
        return f"[aish] continuing session {label}: {told} with {self.session.model}"

    def export_session(self, fmt: Literal["md", "html"], file: str | None) -> str:
        """`:export`: this session to a file, relative to the shell's cwd."""
        from aish.ui.export import export_running_session

        return export_running_session(self.session, fmt, file, self.shell_cwd())

    def session_lines(self) -> list[str]:
        import time

        lines = []
        for summary in self._store.list_sessions():
            info = summary.info
            when = time.strftime("%Y-%m-%d %H:%M", time.localtime(summary.last_at))
            mark = "*" if info.id == self._info.id else " "
            label = info.name or f"#{info.id}"
            # Counted as the resume line and `:tokens` count: questions in the conversation.
            if info.id == self._info.id:
                count = self.conversation.exchange_count()
            else:
                logged = [(t.kind, t.payload) for t in self._store.turns(info.id)]
                count = Conversation.replay("", logged).exchange_count()
            lines.append(f"{mark} {label:<16} {when}  {count:>4} turns  {summary.first_text[:40]}")
        return lines

    def explain_route(self, text: str) -> str:
        known = self._known_with_shell() if self._known else KnownCommands.from_system()
        route = route_line(text, known, paths_under(self.shell_cwd()))
        return f"{route.target}: {route.reason}"

    # ---- project awareness (`:context`, `:trust`, `:config`) ---------------------------------

    async def attach_project_context(self) -> str:
        """The project summary, told with the next question (and logged, so a resumed
        session still has it pending)."""
        from aish.agent.project import SummaryLimits, project_summary

        context = self.session.loaded.config.context
        limits = SummaryLimits(
            max_files=context.project_max_files, max_depth=context.project_max_depth
        )
        block = await project_summary(self.shell_cwd(), limits)
        # Asked again before the next question: the newer summary replaces the older one.
        self.conversation.notes[:] = [
            n for n in self.conversation.notes if not n.startswith("[project]")
        ]
        self.conversation.note(block)
        self._log("note", {"text": block})
        root = block.splitlines()[1] if block.count("\n") else block
        return f"attached to your next question: {root} ({len(block):,} characters)"

    def trust_store(self) -> Store:
        return self._store

    def loaded_config(self) -> LoadedConfig:
        return self.session.loaded

    def reload_config(self) -> str:
        """Load the config again (a project file just trusted or revoked applies now) and
        rebuild what was made from it; the new notices, one per line."""
        reloaded = self.session.reload(self.shell_cwd())
        if reloaded is None:
            return "aish: the config cannot be reloaded here"
        loaded, notes = reloaded
        self._after_config()
        return "\n".join(f"aish: {line}" for line in [*loaded.warnings, *notes])

    def _after_config(self) -> None:
        """What the terminal side made from the config follows the session's new one."""
        config = self.session.config
        self._commands.use_context(config.context)
        if self._live_completion is not None:
            self._live_completion.timeout_s = config.ui.completion_timeout_s
        if self._prompt is not None:
            self._prompt.auto_suggest = self._suggester()

    def cost_totals(self, *, by: tuple[str, ...]) -> list[UsageTotals]:
        return self._store.usage_totals(self._info.id, by=by)

    def set_cost_limit(self, dollars: float | None) -> None:
        self.session.set_cost_limit(dollars)

    def secrets_in_use(self) -> Mapping[str, int]:
        return self.session.outbound.vault.placeholders()

    @property
    def models(self) -> ModelChoice:
        return self.session.models

    @property
    def conversation(self) -> Conversation:
        return self.session.conversation

    @conversation.setter
    def conversation(self, conversation: Conversation) -> None:
        self.session.conversation = conversation

    @property
    def _store(self) -> Store:
        store = self.session.store
        assert store is not None, "the REPL's session has a store"
        return store

    @property
    def _info(self) -> SessionInfo:
        info = self.session.info
        assert info is not None, "the REPL's session is logged"
        return info

    async def tokens_line(self) -> str:
        return await self.session.models.tokens_line(
            self.conversation, self.session.model, self.shell_cwd(), self._mcp.servers
        )

    def shell_cwd(self) -> str:
        return self._commands.cwd

    def say(self, text: str) -> None:
        # Meta commands quote what files, servers and the store hold: escaped here as well,
        # whatever a command forgot (escaping twice changes nothing).
        if self._listing is not None:
            self._listing.append(visible(text))
            return
        self._view.end_line()
        self._io.text.write(visible(text) + "\n")
        self._io.text.flush()

    @contextlib.contextmanager
    def paged(self) -> Iterator[None]:
        """What is said inside goes through the pager when taller than the screen."""
        from aish.ui.pager import page

        self._listing = []
        try:
            yield
        finally:
            text, self._listing = "\n".join(self._listing), None
            if text:
                self._view.end_line()
                if not page(text + "\n", self._io.text):
                    self.say(text)

    def quit(self) -> None:
        self._quit = True

    # ---- the session log ---------------------------------------------------------------------

    def _log(self, kind: str, payload: Mapping[str, Any]) -> None:
        self.session.log(kind, payload)


def _color(terminal: TerminalIO) -> bool:
    return terminal.is_terminal() and not os.environ.get("NO_COLOR")


def _reasoning(loaded: LoadedConfig) -> bool:
    return loaded.config.ui.show_reasoning != "hide"


def _turns(count: int) -> str:
    """As `:tokens` and `:sessions` say it: one turn is a question and what answered it."""
    return f"{count} turn" + ("" if count == 1 else "s")
