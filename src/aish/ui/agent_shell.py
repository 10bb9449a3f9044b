"""The agent's own shell: where Norris runs what the gate authorized (the REPL's and
`aish goal`'s executor for autonomous runs; the agent itself runs nothing).

A second `ShellSession` of the same class as the user's, started in the user's cwd with aish's
environment, so an autonomous run can `cd`, export and fail without touching the shell the user
works in — nor the user's shell history file. It has no terminal: nobody types into its
commands, so a command that waits for input — or simply runs too long — is stopped by the
per-command timeout: interrupted (SIGINT to its process group), then killed if it lingers. The
result, including a timed-out one, becomes a `CommandRun` for the model like any other.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Literal

from aish.agent import gate
from aish.agent.shell_facts import ShellFactsSource
from aish.conversation.context import CommandRun

if TYPE_CHECKING:
    from aish.run.sandbox import Sandbox
    from aish.run.undo import UndoRecorder
    from aish.shell.results import CommandResult
    from aish.shell.session import ShellSession

__all__ = ["AgentShell", "as_command_run"]

_log = logging.getLogger("aish.norris")

# Wide enough that `ls -l` and tables are not wrapped in what the model reads.
_COLUMNS = 160
_ROWS = 50


def as_command_run(
    result: CommandResult,
    source: Literal["user", "model"],
    *,
    asked: bool = True,
    shown: str | None = None,
) -> CommandRun:
    """A shell result as the model is told about it: the command as `shown` (with secret
    placeholders, not the values that ran) when given."""
    return CommandRun(
        command=result.command if shown is None else shown,
        exit_status=result.exit_status,
        cwd_before=result.cwd_before,
        cwd_after=result.cwd_after,
        duration_s=result.duration_s,
        output=result.output.text,
        source=source,
        notice=result.notice,
        asked=asked,
    )


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

    def __post_init__(self) -> None:
        # What the gate judges each step against: this shell's live state.
        self.facts = ShellFactsSource(self.session.state_report)

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

        from aish.shell.session import ShellSession

        options: dict[str, Any] = {
            "cwd": cwd,
            "env": {**(os.environ if env is None else env), "AISH_PRIVATE_HISTORY": "1"},
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
            session = await ShellSession.start(shell=shell, **options)
        except (ValueError, OSError):
            if shell is None:
                raise
            session = await ShellSession.start(shell="bash", **options)
        return cls(session, max_lines=max_lines, max_bytes=max_bytes, sandbox=sandbox)

    @property
    def cwd(self) -> str:
        return self.session.cwd

    async def close(self) -> None:
        await self.session.close()

    async def run_authorized(
        self, authorization: gate.Authorization, timeout_s: float
    ) -> CommandRun:
        """Run what the gate authorized (refusing anything else), at most `timeout_s`.

        Cancelling this (the user aborted the run) stops the command before re-raising."""
        approved = gate.redeem(authorization)
        if not isinstance(approved.action, gate.ProposedCommand):
            raise gate.Unauthorized(f"not a shell command: {approved.action.text}")
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
            )
        finally:
            if undo is not None:
                undo.after(snapshot)
        if notice:  # the user (and the model) learn it cannot be taken back
            run = replace(run, notice=f"{run.notice}; {notice}" if run.notice else notice)
        return run

    async def _execute(
        self,
        command: str,
        source: Literal["user", "model"],
        asked: bool,
        timeout_s: float,
        *,
        shown: str | None = None,
    ) -> CommandRun:
        shown = command if shown is None else shown
        started = time.monotonic()
        cwd_before = self.cwd
        running = asyncio.ensure_future(
            self.session.run(command, max_lines=self.max_lines, max_bytes=self.max_bytes)
        )
        # Whatever happens to this call, the command's own failure is read (never "never
        # retrieved" on the terminal).
        running.add_done_callback(_retrieve)
        try:
            done, _ = await asyncio.wait({running}, timeout=timeout_s)
        except asyncio.CancelledError:
            await _unstoppable(self._stop(running))
            raise
        notice = None
        if not done:
            await _unstoppable(self._stop(running))
            notice = f"stopped: it ran past the {timeout_s:g}s per-command timeout"
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
