"""Running command lines in the user's shell, with the real terminal relayed to it.

`UserShell` is the REPL's only executor. It has two doors: the line the user typed (run as
theirs) and what the gate authorized (redeemed first, `aish.run.authorized.redeem`, so anything
the gate did not issue, did not allow, or already ran is refused before the shell is even asked
for). While a command runs the real terminal is relayed to the shell's PTY (`Terminal`); its
output goes to the frontend's `Output` as it comes, and its capture becomes context for the
model: every command that finished is recorded (`record`, the session's `record_run`), then the
frontend hears of it (`after`).

It also owns that shell's life: `start` starts it in the background (the prompt never waits for
it), `started` is the shell when it is up (completion never waits), `cwd` where it is, and the
names the user's rc files and commands defined (aliases, functions) are refreshed after each
command (`names`), so they complete and route to the shell. `close` ends it with aish.

What the frontend shows is its own: the status lines (`StatusLines`), the output and what it
leaves on the screen (`Output`), the keys typed ahead (`TypeAhead`); they are handed in.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal, Protocol

from aish.conversation.context import CommandRun
from aish.run.record import Record, as_command_run

if TYPE_CHECKING:
    from aish.config.schema import ContextConfig
    from aish.run.authorized import Authorization
    from aish.run.jobs import Job, JobTable
    from aish.run.undo import UndoRecorder
    from aish.shell.session import ShellSession
    from aish.shell.state_report import ShellStateReport

__all__ = ["Output", "StatusLines", "TypeAhead", "UserShell"]

AfterRun = Callable[[], None]
"""Told once a command is recorded (the frontend follows the shell's cwd)."""


class StatusLines(Protocol):
    """Where the executor's own lines go (an undo notice, the shell's notice)."""

    def end_line(self) -> None:
        """End whatever line is open, before a command's output starts."""
        ...

    def status(self, text: str) -> None: ...


class Output(Protocol):
    """Where a command's output goes, verbatim, and what is undone after it."""

    def write_output(self, data: bytes) -> None: ...

    def write_model_output(self, data: bytes) -> None:
        """Output of a command the model proposed: shown without what would make the terminal
        act beyond its screen (the clipboard, answers typed into the shell)."""
        ...

    def end_partial_output_line(self) -> None:
        """After a program's output, before aish writes: the terminal cleaned up."""
        ...


class TypeAhead(Protocol):
    """The keys the user typed before anything asked for them (`aish.ui.type_ahead`)."""

    def take_keys(self) -> bytes: ...

    def queue_keys(self, data: bytes) -> None: ...

    def queue_unread(self) -> None: ...


class UserShell:
    """Runs lines in the user's shell with the terminal relayed; the capture becomes context."""

    def __init__(
        self,
        view: StatusLines,
        output: Output,
        keys: TypeAhead,
        context: ContextConfig,
        record: Record,
        after: AfterRun,
        undo: UndoRecorder | None = None,
        *,
        terminal: tuple[int, int] | None = None,
    ) -> None:
        # The (stdin, stdout) descriptors a running command is relayed between: the process's
        # own unless the frontend's terminal is another (see `aish.ui.terminal_io`).
        self._terminal = terminal
        self._task: asyncio.Task[ShellSession] | None = None
        self._names_task: asyncio.Task[None] | None = None
        # Builtins, keywords, aliases and functions of the live shell (empty until it answers).
        self.names: frozenset[str] = frozenset()
        # Snapshots what an approved command will touch, for `:undo` (None: undo is off).
        self.undo = undo
        self._view = view
        self._output = output
        self._keys = keys
        self._context = context
        self._record = record
        self._after = after
        self.last_status = 0
        # The background jobs (`CMD&:`) started in this shell, once one was; `on_job_end` is
        # told when one ends (the frontend records it for the model and says so).
        self.jobs: JobTable | None = None
        self.on_job_end: Callable[[Job], None] | None = None

    # ---- the shell's life ----------------------------------------------------------------------

    def start(
        self,
        wanted: str | None,
        cwd: str | None,
        *,
        on_notice: Callable[[str], None],
        on_background_output: Callable[[bytes], None],
    ) -> None:
        """Start the user's shell in the background (commands wait for it, nothing else)."""

        async def start() -> ShellSession:
            shell = await start_user_shell(
                wanted, cwd, on_notice=on_notice, on_background_output=on_background_output
            )
            # The rc file's aliases and functions complete and route before any command ran.
            self._refresh_names(shell)
            return shell

        self._task = asyncio.create_task(start())

    @property
    def starting(self) -> bool:
        """`start` was called (the shell may not be up yet)."""
        return self._task is not None

    def started(self) -> ShellSession | None:
        """The shell if it is up; None while it starts, or when it could not."""
        task = self._task
        if task is not None and task.done() and not task.cancelled() and not task.exception():
            return task.result()
        return None

    @property
    def cwd(self) -> str:
        """The shell's directory; aish's own until the shell is up."""
        shell = self.started()
        return shell.cwd if shell is not None else os.getcwd()

    @property
    def edit_keys(self) -> str | None:
        """`vi` or `emacs`, as the shell's `set -o vi` / inputrc set its line editor; None
        until the shell is up."""
        shell = self.started()
        return shell.edit_keys if shell is not None else None

    async def state_report(self) -> ShellStateReport:
        """The live shell's aliases, functions, PATH … as the gate reads them."""
        return await (await self._shell()).state_report()

    async def exported_environment(self) -> dict[str, str]:
        """The variables the shell exports now (an activated virtualenv, an `export`)."""
        return await (await self._shell()).exported_environment()

    async def started_within(self, timeout_s: float) -> None:
        """Wait up to `timeout_s` for a shell that is still starting; never fails."""
        task = self._task
        if task is not None and not task.done():
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.shield(task), timeout_s)

    async def names_settled(self, timeout_s: float) -> None:
        """Wait a little for a names refresh under way (a function the last command defined
        should complete at once); never fails."""
        pending = self._names_task
        if pending is not None and not pending.done():
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.shield(pending), timeout_s)

    async def close(self) -> None:
        if self.jobs is not None:
            self.jobs.close()  # a job does not outlive the shell it was started in
        if self._task is None:
            return
        if not self._task.done():
            self._task.cancel()
        with contextlib.suppress(BaseException):
            shell = await self._task
            await shell.close()

    def _fds(self) -> tuple[int, int]:
        if self._terminal is not None:
            return self._terminal
        return sys.stdin.fileno(), sys.stdout.fileno()

    async def _shell(self) -> ShellSession:
        assert self._task is not None, "the user's shell was never started"
        return await self._task

    def _refresh_names(self, shell: ShellSession) -> None:
        async def refresh() -> None:
            # Aliases and functions defined by the user's commands route to the shell too.
            with contextlib.suppress(Exception):
                names = await shell.known_names()
                self.names = frozenset(
                    names.builtins | names.keywords | names.aliases | names.functions
                )

        self._names_task = asyncio.create_task(refresh())

    # ---- running -----------------------------------------------------------------------------

    def use_context(self, context: ContextConfig) -> None:
        """A reloaded config's output limits, for the commands that run from now on."""
        self._context = context

    async def run_users_line(self, command: str) -> CommandRun:
        """Run a line the user typed, as theirs."""
        from aish.run.shell_exec import replacement_shell

        shell_name = replacement_shell(command, os.environ.get("SHELL", ""))
        if shell_name is not None:
            return await self._replace_shell(command, shell_name)
        return await self._execute(command, "user")

    async def _replace_shell(self, command: str, shell_name: str) -> CommandRun:
        """`exec bash`: a fresh shell with aish's integration takes the old one's place (see
        `aish.run.shell_exec`); recorded as the line the user typed."""
        from aish.shell.capture import OutputCapture
        from aish.shell.results import CommandResult
        from aish.shell.terminal import Terminal

        shell = await self._shell()
        self._view.end_line()
        cwd_before = shell.cwd
        async with Terminal(*self._fds(), shell) as terminal:
            ended = await shell.replace(shell_name, terminal=terminal)
        self._output.end_partial_output_line()
        if ended is None:
            status, notice = 1, None  # it stayed: the shell said why (stopped jobs)
        else:
            status = 0
            notice = (
                f"a new {shell.kind} took the shell's place: its rc files were read again; "
                "exported variables and the directory are kept"
            )
        result = CommandResult(
            command, status, cwd_before, shell.cwd, 0.0, OutputCapture().result(), notice
        )
        return self._finished(shell, as_command_run(result, "user"))

    async def end_shell(self, line: str, *, typed: bool = True) -> int | None:
        """Hand the user's `exit` to their shell, which decides as at its own prompt (running
        jobs are left alone; stopped jobs are warned about once). The shell's exit status when
        it ended, None when it stayed. Ctrl-D is not `typed`: it stays out of the history."""
        from aish.shell.terminal import Terminal

        shell = await self._shell()
        self._view.end_line()
        async with Terminal(*self._fds(), shell) as terminal:
            ended = await shell.run_exit(line, terminal=terminal, private=not typed)
        if ended is None:
            self.last_status = 1  # bash's status for a refused exit
            return None
        return ended.status

    async def run_authorized(self, authorization: Authorization) -> CommandRun:
        """Run what the gate authorized; anything it did not issue, did not allow, or already
        ran is refused (`gate.Unauthorized`) before the shell sees it."""
        from aish.run.authorized import redeem  # the gate loads with the first proposal

        approved = redeem(authorization, "command")
        snapshot = None
        if self.undo is not None:
            snapshot, notice = self.undo.before(approved.radius, approved.command)
            if notice:
                self._view.status(notice)
        try:
            return await self._execute(
                approved.command_to_run,
                approved.source,
                asked=approved.outcome != "auto",
                shown=approved.command,
            )
        finally:
            if self.undo is not None and snapshot is not None:
                self._view.status(self.undo.after(snapshot))

    async def start_job(self, authorization: Authorization) -> Job:
        """Start what the gate authorized as a background job (`CMD&:`) of this shell; it
        does not hold the prompt. Anything the gate did not issue for the background is
        refused (`gate.Unauthorized`); `JobNotStarted` says why a job could not start."""
        from aish.run.authorized import redeem

        approved = redeem(authorization, "background command")
        from aish.run.jobs import launch_job

        shell = await self._shell()
        snapshot = None
        if self.undo is not None:
            snapshot, notice = self.undo.before(approved.radius, approved.command)
            if notice:
                self._view.status(notice)
        job = await launch_job(
            shell,
            self._job_table(shell),
            approved.command_to_run,
            shown=approved.command,
            asked=approved.outcome != "auto",
            source=approved.source,
        )
        undo = self.undo
        if undo is not None and snapshot is not None:
            job.finish = lambda: undo.after(snapshot)
        return job

    def _job_table(self, shell: ShellSession) -> JobTable:
        if self.jobs is None:
            from aish.run.jobs import JobTable

            self.jobs = JobTable(
                shell.private_dir / "jobs",
                max_lines=self._context.output_max_lines,
                max_bytes=self._context.output_max_bytes,
                on_end=self._job_ended,
                signals_reach=shell.pids_reachable,
            )
        return self.jobs

    def _job_ended(self, job: Job) -> None:
        if self.on_job_end is not None:
            self.on_job_end(job)

    async def _execute(
        self,
        command: str,
        source: Literal["user", "model"],
        *,
        asked: bool = True,
        shown: str | None = None,
    ) -> CommandRun:
        from aish.shell.terminal import Terminal

        shell = await self._shell()
        self._view.end_line()
        if source == "user":
            # Keys typed after the user's line wait for its command, as in bash.
            typeahead = self._keys.take_keys()
        else:
            # Keys typed while the reply streamed are for the prompt, not for the model's command.
            self._keys.queue_unread()
            typeahead = b""
        async with Terminal(*self._fds(), shell) as terminal:
            result = await shell.run(
                command,
                terminal=terminal,
                on_output=(
                    self._output.write_output
                    if source == "user"
                    else self._output.write_model_output
                ),
                max_lines=self._context.output_max_lines,
                max_bytes=self._context.output_max_bytes,
                # What the model proposed is not the user's history (bash's own file).
                private=source == "model",
                typeahead=typeahead,
            )
        self._keys.queue_keys(result.typeahead)  # what it did not read: the next prompt's
        self._output.end_partial_output_line()  # before the notice, the verdict or the prompt
        return self._finished(shell, as_command_run(result, source, asked=asked, shown=shown))

    def _finished(self, shell: ShellSession, run: CommandRun) -> CommandRun:
        """A line is over: its notice said, its run recorded, the names and cwd followed."""
        if run.notice:
            self._view.status(run.notice)
        self.last_status = run.exit_status
        self._record(run)
        self._refresh_names(shell)
        self._after()
        return run


async def start_user_shell(
    wanted: str | None,
    cwd: str | None,
    *,
    on_notice: Callable[[str], None],
    on_background_output: Callable[[bytes], None],
) -> ShellSession:
    """The user's persistent shell, sized like the terminal; bash when the configured shell
    cannot run (a configured shell aish cannot run must not leave the user without one)."""
    from aish.shell.session import ShellSession

    size = os.get_terminal_size() if sys.stdout.isatty() else os.terminal_size((80, 24))
    options: dict[str, Any] = {
        "rows": size.lines,
        "cols": size.columns,
        "on_notice": on_notice,
        "on_background_output": on_background_output,
    }
    if cwd is not None:
        options["cwd"] = cwd
    try:
        return await ShellSession.start(shell=wanted, **options)
    except (ValueError, OSError) as error:
        if wanted is None:
            raise
        on_notice(f"{error}; using bash")
        return await ShellSession.start(shell="bash", **options)
