"""The agent's own shell: where Norris runs what the gate authorized (the REPL's and
`aish goal`'s executor for autonomous runs; the agent itself runs nothing).

A second `ShellSession` of the same class as the user's, started in the user's cwd with aish's
environment, so an autonomous run can `cd`, export and fail without touching the shell the user
works in — nor the user's shell history file. Nobody types into its commands: a command that
waits for terminal input is noticed within a second (`input_wait`) and the run's
`InputWaitHandler` decides — the user takes the terminal over (`take_over`), the command is
stopped, or the run halts; without a handler it is stopped. `sudo` asks for its password
through the askpass bridge (`askpass`) on aish's own prompt. A command that simply runs too
long is stopped by the per-command timeout (the user's time at a question does not count):
interrupted (SIGINT to its process group), then killed if it lingers. The result, including a
stopped one, becomes a `CommandRun` for the model like any other, and is recorded on the way
out (`record`, the run's `record_run`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Literal

from aish.conversation.context import CommandRun
from aish.run.authorized import redeem
from aish.run.input_wait import (
    InputAnswer,
    InputWait,
    InputWaitHandler,
    NeedsInput,
    OutputTap,
    Secret,
    watch,
)
from aish.run.record import Record, as_command_run

if TYPE_CHECKING:
    from aish.run.askpass import AskpassBridge
    from aish.run.authorized import Authorization
    from aish.run.jobs import Job, JobTable
    from aish.run.sandbox import Sandbox
    from aish.run.undo import UndoRecorder
    from aish.shell.results import CommandResult
    from aish.shell.session import ShellSession

__all__ = ["AgentShell"]

_log = logging.getLogger("aish.norris")

# Wide enough that `ls -l` and tables are not wrapped in what the model reads.
_COLUMNS = 160
_ROWS = 50


@dataclass
class AgentShell:
    """Runs authorized commands with a timeout in a shell of the agent's own."""

    session: ShellSession
    max_lines: int = 200
    max_bytes: int = 16384
    # After the interrupt, how long a command may take to stop before it is killed.
    kill_grace_s: float = 2.0
    # Snapshots what an approved command will touch, for `:undo` (None: undo is off).
    undo: UndoRecorder | None = None
    # The sandbox it runs in, if any: what it refused is said with each command.
    sandbox: Sandbox | None = None
    # Where `sudo` asks for its password (None: it asks on the terminal, noticed as a wait).
    askpass: AskpassBridge | None = None
    # The user's terminal (stdin, stdout) for `[t]ake over`.
    user_terminal: tuple[int, int] = (0, 1)
    # The background jobs (`CMD&:`) started in it, once one was; `on_job_end` is told when one
    # ends (the Norris run records it for the model). They end with the shell (`close`).
    jobs: JobTable | None = None
    on_job_end: Callable[[Job], None] | None = None

    @classmethod
    async def start(
        cls,
        cwd: str,
        *,
        shell: str | None = None,
        env: Mapping[str, str] | None = None,
        max_lines: int = 200,
        max_bytes: int = 16384,
        on_notice: Callable[[str], None] | None = None,
        sandbox: Sandbox | None = None,
    ) -> AgentShell:
        """Started like the user's shell; bash when the configured shell cannot run (the
        user's own shell already said so). What it runs is never written to the user's history
        file (`~/.bash_history`, zsh's HISTFILE): those are the model's commands, not the user's.
        In `sandbox` when one is given: its launcher starts the shell as the first process of
        the sandbox's namespaces."""
        import os

        from aish.run.askpass import AskpassBridge
        from aish.shell.session import ShellSession

        # With a terminal, sudo reads the password there, and SUDO_ASKPASS only with -A: the
        # shell's rc makes `sudo` an alias of `sudo -A -k` (AISH_SUDO_ASKPASS; -k: no cached
        # credential, every sudo asks the user), not an edited command — the gate judges a
        # command with the shell's aliases, so what it judged is what runs, and a respawned
        # shell has it too. Not in the sandbox: sudo cannot ask anyone from inside (no new
        # privileges there).
        askpass = await AskpassBridge.start() if sandbox is None else None
        bridged = askpass.environment() if askpass is not None else {}
        options: dict[str, Any] = {
            "cwd": cwd,
            "env": {
                **(os.environ if env is None else env),
                "AISH_PRIVATE_HISTORY": "1",
                **bridged,
            },
            "rows": _ROWS,
            "cols": _COLUMNS,
            "on_notice": on_notice,
        }
        if sandbox is not None:
            inside = sandbox.environment(os.environ if env is None else env)
            options.update(
                env=inside,
                wrapper=tuple(sandbox.launch_prefix(cwd, inside)),
                rcfile_dir=sandbox.rc_dir,
                pid_inside=1,
            )
        try:
            try:
                session = await ShellSession.start(shell=shell, **options)
            except (ValueError, OSError):
                if shell is None:
                    raise
                session = await ShellSession.start(shell="bash", **options)
        except BaseException:
            if askpass is not None:
                await askpass.close()
            raise
        return cls(
            session, max_lines=max_lines, max_bytes=max_bytes, sandbox=sandbox, askpass=askpass
        )

    @property
    def cwd(self) -> str:
        return self.session.cwd

    async def close(self) -> None:
        try:
            if self.jobs is not None:
                self.jobs.close()
            await self.session.close()
        finally:
            if self.askpass is not None:
                await self.askpass.close()

    async def run_authorized(
        self,
        authorization: Authorization,
        timeout_s: float,
        *,
        record: Record | None = None,
        on_input: InputWaitHandler | None = None,
    ) -> CommandRun:
        """Run what the gate authorized (refusing anything else), at most `timeout_s`; the
        run is recorded with `record` (the Norris run's `record_run`) once it is over.
        `on_input` decides about a command that waits for input (None: it is stopped).

        Cancelling this (the user aborted the run) stops the command before re-raising;
        `NeedsInput` (the handler halted or aborted) is raised after it was stopped."""
        approved = redeem(authorization, "command")
        snapshot, notice = None, ""
        # In the sandbox nothing reaches the real tree until the review applies it: a snapshot
        # of the real targets would copy bytes the command cannot touch.
        undo = self.undo if self.sandbox is None else None
        if undo is not None:
            snapshot, notice = undo.before(approved.radius, approved.command)
        try:
            run = await self._execute(
                approved.command_to_run,
                approved.source,
                approved.outcome != "auto",
                timeout_s,
                shown=approved.command,
                on_input=on_input,
            )
        finally:
            if undo is not None:
                undo.after(snapshot)
        if notice:  # the user (and the model) learn it cannot be taken back
            run = replace(run, notice=f"{run.notice}; {notice}" if run.notice else notice)
        if record is not None:
            record(run)
        return run

    async def start_job(self, authorization: Authorization) -> Job:
        """Start what the gate authorized for the background (`CMD&:`) as a job of this shell;
        the run goes on meanwhile. Anything the gate did not issue for the background is
        refused (`gate.Unauthorized`); `JobNotStarted` says why a job could not start."""
        approved = redeem(authorization, "background command")
        from aish.run.jobs import JobTable, launch_job

        if self.jobs is None:
            self.jobs = JobTable(
                self.session.private_dir / "jobs",
                max_lines=self.max_lines,
                max_bytes=self.max_bytes,
                on_end=self._job_ended,
                signals_reach=self.session.pids_reachable,
            )
        return await launch_job(
            self.session,
            self.jobs,
            approved.command_to_run,
            shown=approved.command,
            asked=approved.outcome != "auto",
            source=approved.source,
        )

    def running_jobs(self) -> list[Job]:
        if self.jobs is None:
            return []
        self.jobs.poll()
        return self.jobs.running()

    async def wait_for_jobs(self, timeout_s: float) -> list[Job]:
        """Wait (at most `timeout_s`) for a running job to end; the jobs that ended."""
        return [] if self.jobs is None else await self.jobs.wait_any(timeout_s)

    def _job_ended(self, job: Job) -> None:
        if self.on_job_end is not None:
            self.on_job_end(job)

    async def _execute(
        self,
        command: str,
        source: Literal["user", "model"],
        asked: bool,
        timeout_s: float,
        *,
        shown: str | None = None,
        on_input: InputWaitHandler | None = None,
    ) -> CommandRun:
        shown = command if shown is None else shown
        started = time.monotonic()
        cwd_before = self.cwd
        tap = OutputTap()
        running = asyncio.ensure_future(
            self.session.run(
                command, max_lines=self.max_lines, max_bytes=self.max_bytes, on_output=tap
            )
        )
        # Whatever happens to this call, the command's own failure is read (never "never
        # retrieved" on the terminal).
        running.add_done_callback(_retrieve)
        waits = _Waits(shown, on_input)
        if self.askpass is not None:
            self.askpass.ask = waits.askpass
        try:
            notices = await self._supervise(running, tap, waits, timeout_s, started)
        except asyncio.CancelledError:
            await _unstoppable(self._stop(running))
            raise
        finally:
            if self.askpass is not None:
                self.askpass.ask = None
        notice = "; ".join(notices) or None
        try:
            result = running.result()
        except BaseException as error:  # the shell died, could not be reached, or hung
            _log.warning("agent shell failed running %r", shown, exc_info=True)
            return CommandRun(
                shown,
                -1,
                cwd_before,
                self.cwd,
                time.monotonic() - started,
                "",
                source,
                notice=notice or f"the agent's shell failed: {error}",
                asked=asked,
            )
        run = as_command_run(result, source, asked=asked, shown=shown)
        if self.sandbox is not None:
            notice = _with_refusals(notice, run.output, self.sandbox.network)
        if notice is not None:
            run = replace(run, notice=f"{notice}; {run.notice}" if run.notice else notice)
        return run

    async def _supervise(
        self,
        running: asyncio.Future[CommandResult],
        tap: OutputTap,
        waits: _Waits,
        timeout_s: float,
        started: float,
    ) -> list[str]:
        """Wait for the command; meanwhile answer its waits for input and keep its timeout
        (the user's time at a question not counted). The notices the model gets with it."""
        notices: list[str] = []
        while not running.done():
            left = timeout_s - (time.monotonic() - started - waits.user_s)
            watcher = asyncio.ensure_future(watch(self.session, tap))
            pending: set[asyncio.Future[Any]] = {running, watcher, waits.decided}
            try:
                done, _ = await asyncio.wait(
                    pending,
                    timeout=max(left, 0.0),
                    return_when=asyncio.FIRST_COMPLETED,
                )
            finally:
                watcher.cancel()
            if waits.decided.done():  # the askpass question was answered with a decision
                answer, wait = waits.decided.result()
            elif running in done:
                break
            elif watcher in done:
                wait = tap.wait(waits.command, watcher.result())
                answer = await waits.decide(wait)
            else:
                if timeout_s - (time.monotonic() - started - waits.user_s) > 0:
                    continue  # the user's time at the askpass question moved the deadline
                await _unstoppable(self._stop(running))
                notices.append(f"stopped: it ran past the {timeout_s:g}s per-command timeout")
                break
            if answer == "take_over":
                from aish.run.take_over import take_over

                began = time.monotonic()
                try:
                    taken = await take_over(self.session, tap, running, *self.user_terminal)
                finally:
                    waits.user_s += time.monotonic() - began
                    self.session.resize(_ROWS, _COLUMNS)
                notices.append(taken.notice())
                continue
            await _unstoppable(self._stop(running))
            if answer == "stop":
                notices.append(f"stopped: it waited for terminal input ({wait.describe()})")
                break
            raise NeedsInput(wait, answer)
        return notices

    async def _stop(self, running: asyncio.Future[CommandResult]) -> None:
        """Interrupt, then kill; wait for the shell to report the command over."""
        with contextlib.suppress(Exception):
            await self.session.interrupt(kill_after_s=self.kill_grace_s)
        with contextlib.suppress(BaseException):
            await asyncio.wait_for(asyncio.shield(running), self.kill_grace_s + 3.0)
        if not running.done():
            running.cancel()
            with contextlib.suppress(BaseException):
                await running


class _Waits:
    """One command's waits for input, and the handler deciding about them."""

    def __init__(self, command: str, handler: InputWaitHandler | None) -> None:
        self.command = command
        self.handler = handler
        self.user_s = 0.0  # spent by the user at the handler's questions
        # Set when the askpass question came back with a decision about the command.
        self.decided: asyncio.Future[tuple[InputAnswer, InputWait]] = (
            asyncio.get_running_loop().create_future()
        )

    async def decide(self, wait: InputWait) -> InputAnswer:
        if self.handler is None:
            return "stop"
        began = time.monotonic()
        try:
            return await self.handler.needs_input(wait)
        finally:
            self.user_s += time.monotonic() - began

    async def askpass(self, prompt: str) -> str | None:
        """The bridge's question: the password for the program, or None."""
        wait = InputWait(self.command, prompt, "password")
        if self.handler is None or self.decided.done():
            return None
        began = time.monotonic()
        try:
            answer = await self.handler.password(wait)
        finally:
            self.user_s += time.monotonic() - began
        if isinstance(answer, Secret):
            return answer.value
        # The terminal cannot answer what the helper asks: taking it over is no answer here.
        if answer not in (None, "take_over") and not self.decided.done():
            self.decided.set_result((answer, wait))
        return None


def _with_refusals(notice: str | None, output: str, network: bool) -> str | None:
    """The notice, plus what the sandbox refused (a write outside the tree, the network)."""
    from aish.run.sandbox.refusals import refusals

    said = refusals(output, network=network)
    if not said:
        return notice
    return "; ".join([notice, *said] if notice else said)


async def _unstoppable(stopping: Coroutine[Any, Any, None]) -> None:
    """Run a stop sequence to its end even when cancelled again (a second Ctrl-C must not
    leave the command running without its SIGKILL), then let the cancellation through."""
    task = asyncio.ensure_future(stopping)
    cancelled = False
    while not task.done():
        try:
            await asyncio.shield(task)
        except asyncio.CancelledError:
            cancelled = True
    if cancelled:
        raise asyncio.CancelledError


def _retrieve(future: asyncio.Future[CommandResult]) -> None:
    if not future.cancelled():
        future.exception()
