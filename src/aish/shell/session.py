"""ShellSession: the user's long-lived bash (or zsh) on a PTY, which aish types commands into.

aish is the only line editor: it injects whole commands into one persistent interactive shell,
so cd, exports, aliases, functions, activated virtualenvs and jobs persist from one command to
the next. The integration script reports the command's output region, exit status and cwd with
nonce-carrying markers (``protocol.py`` says how they are read). The PTY is read at all times
(``channel.py``), so background jobs never block; their output goes to ``on_background_output``.

When the shell dies — ``exit``, ``exec``, ``set -e``, a signal — the session notices, starts a
new one in the last cwd, and says that the old one's state is gone: in the ``notice`` of the
command that killed it, or through ``on_notice`` when it died between commands.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import os
import shutil
import signal
import tempfile
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from aish.shell.background import BackgroundOutput
from aish.shell.channel import PtyChannel
from aish.shell.environment import parse_environment, prepare_report, report_path
from aish.shell.launch import LaunchSpec, choose_shell
from aish.shell.process import ShellProcess, reap
from aish.shell.protocol import (
    REPORT_ENV,
    REPORT_STATE,
    EnvQuery,
    NameQuery,
    PendingCommand,
    Phase,
    ShellProtocol,
)
from aish.shell.results import (
    CommandResult,
    KnownNames,
    ShellBusyError,
    ShellClosedError,
    ShellError,
    ShellExit,
    ShellStartError,
    death_notice,
    respawn_failed_notice,
    start_failed_message,
)
from aish.shell.state_report import ShellStateReport, parse_state_report, state_report_path
from aish.shell.terminal_read import TerminalRead, terminal_read
from aish.shell.typeahead import typeahead_path

if TYPE_CHECKING:
    from aish.shell.terminal import Terminal

# The session's result and error types are re-exported: this module is the room's front door.
__all__ = [
    "CommandResult",
    "KnownNames",
    "ShellBusyError",
    "ShellClosedError",
    "ShellError",
    "ShellSession",
    "ShellStartError",
]

_log = logging.getLogger("aish.shell")
_CANCEL_ATTEMPTS = 5
_CANCEL_RETRY_S = 0.1


class ShellSession:
    """One persistent interactive shell; see the module docstring. Create with :meth:`start`."""

    def __init__(
        self,
        spec: LaunchSpec,
        *,
        rows: int,
        cols: int,
        owns_rcfile_dir: bool,
        on_notice: Callable[[str], None] | None,
        on_background_output: Callable[[bytes], None] | None,
        ready_timeout_s: float,
    ) -> None:
        self._spec, self._owns_rcfile_dir = spec, owns_rcfile_dir
        self._rows, self._cols = rows, cols
        self._on_notice = on_notice
        self._background = BackgroundOutput(on_background_output)
        self._ready_timeout_s = ready_timeout_s
        self._protocol = ShellProtocol(_Host(self))
        self._proc: ShellProcess | None = None
        self._channel: PtyChannel | None = None
        self._wakeup = asyncio.Event()
        self._death_task: asyncio.Task[None] | None = None
        self._lock = asyncio.Lock()  # one command or one query at a time
        self._running = False
        self._relay: Terminal | None = None  # relays the user's keys while a command runs
        self._closed = False
        self._may_end = False  # the line running may end the shell on purpose (`exit`)
        self.ended: ShellExit | None = None  # how it ended that way: it is not started again
        self.startup_s = 0.0  # how long the last shell took to reach its first prompt

    # ----------------------------------------------------------------------------- lifecycle

    @classmethod
    async def start(
        cls,
        *,
        shell: str | None = None,
        cwd: str | None = None,
        env: Mapping[str, str] | None = None,
        rows: int = 24,
        cols: int = 80,
        rcfile_dir: Path | None = None,
        on_notice: Callable[[str], None] | None = None,
        on_background_output: Callable[[bytes], None] | None = None,
        ready_timeout_s: float = 15.0,
        wrapper: tuple[str, ...] = (),
        pid_inside: int | None = None,
    ) -> ShellSession:
        """Spawn the shell and return once its first prompt is ready (``startup_s`` says when).

        ``shell`` defaults to ``$SHELL`` when that is bash or zsh, else bash. The generated rc
        files go to ``rcfile_dir`` (a private temporary directory by default). ``wrapper`` is a
        command line the shell is started through (a sandbox's launcher), its own arguments
        appended; ``pid_inside`` is the shell's pid as it sees it there (1 in a new PID
        namespace).
        """
        base_env = dict(os.environ if env is None else env)
        path, kind = choose_shell(shell, base_env)
        start_dir = os.path.abspath(cwd) if cwd else os.getcwd()
        if not os.path.isdir(start_dir):
            raise NotADirectoryError(f"not a directory: {start_dir}")
        # Absolute: the shell finds its private files next to its rc file after any `cd`.
        directory = Path(os.path.abspath(rcfile_dir or tempfile.mkdtemp(prefix="aish-shell-")))
        session = cls(
            LaunchSpec(path, kind, base_env, directory, wrapper, pid_inside),
            rows=rows,
            cols=cols,
            owns_rcfile_dir=rcfile_dir is None,
            on_notice=on_notice,
            on_background_output=on_background_output,
            ready_timeout_s=ready_timeout_s,
        )
        try:
            await session._spawn(start_dir)
        except BaseException:
            await session.close()
            raise
        return session

    async def __aenter__(self) -> ShellSession:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @property
    def cwd(self) -> str:
        """The shell's working directory as last reported."""
        return self._protocol.cwd

    @property
    def edit_keys(self) -> str | None:
        """`vi` or `emacs`: the keys the shell's own line editor uses (`set -o vi`), as last
        reported; None before the first prompt."""
        return self._protocol.edit_keys

    @property
    def alive(self) -> bool:
        return self._proc is not None and self._protocol.phase is not Phase.DEAD

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    @property
    def private_dir(self) -> Path:
        """The shell's private directory (its rc files; writable inside a sandbox too): where
        files the shell writes for aish go, at the same path on both sides."""
        return self._spec.rcfile_dir

    @property
    def pids_reachable(self) -> bool:
        """The pids this shell reports (``$!``) are aish's to signal: not in a PID namespace."""
        return self._spec.pid_inside is None

    @property
    def kind(self) -> str:
        """'bash' or 'zsh'."""
        return self._spec.kind

    @property
    def busy(self) -> bool:
        """A command started through :meth:`run` has not finished."""
        return self._running

    @property
    def foreground_pgid(self) -> int | None:
        """The PTY's foreground process group: the shell's pid at the prompt, a job's pgid
        while one runs in the foreground (a cheap "is a program running?")."""
        return self._proc.foreground_pgrp() if self._proc is not None and self.alive else None

    def terminal_read(self) -> TerminalRead | None:
        """Whether the running command waits for someone to type (``terminal_read``)."""
        proc = self._proc
        if proc is None or not self.alive or proc.master_fd < 0:
            return None
        return terminal_read(proc.master_fd, proc.slave_path)

    async def close(self) -> None:
        """End the shell (hang up its terminal, SIGKILL if it lingers) and free everything."""
        if self._closed:
            return
        self._closed = True
        if self._death_task is not None:
            self._death_task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._death_task
        proc = self._proc
        self._proc = None
        self._stop_channel()
        self._protocol.died()
        if proc is not None:
            proc.close_master()  # the kernel hangs up the shell, which hangs up its jobs
            with contextlib.suppress(Exception):
                await reap(proc)
        self._fail_pending(ShellClosedError("the shell session was closed"))
        if self._owns_rcfile_dir:
            shutil.rmtree(self._spec.rcfile_dir, ignore_errors=True)

    # ------------------------------------------------------------------------------ commands

    async def run(
        self,
        command: str,
        *,
        terminal: Terminal | None = None,
        on_output: Callable[[bytes], None] | None = None,
        max_lines: int = 200,
        max_bytes: int = 16384,
        private: bool = False,
        typeahead: bytes = b"",
    ) -> CommandResult:
        """Run ``command`` as if typed at the shell's prompt; return when it is done.

        ``terminal`` relays the user's keys, size and raw mode while the command runs (it is
        bound to this session and entered here unless it already is). ``typeahead`` is what the
        user typed after the line, typed after it, as bash would have it waiting; whatever of
        it and of the relayed keys the command did not read is the result's ``typeahead``.
        Output goes verbatim to
        ``on_output``, or to the terminal's stdout when no ``on_output`` is given, and bounded
        into the result's capture. Cancelling this call leaves the command running in the
        shell; its remaining output becomes background output. A ``private`` command (one the
        user did not type: the model's) is kept out of the shell's history.
        """
        if self._closed:
            raise ShellClosedError("the shell session was closed")
        if self._running:
            raise ShellBusyError("a command is already running in this shell")
        # Imported here: the terminal emulator is not needed to start the shell, and aish's
        # first prompt must not wait for it.
        from aish.shell.capture import OutputCapture

        self._running = True
        try:
            async with self._lock, contextlib.AsyncExitStack() as stack:
                await self._ensure_ready()
                if terminal is not None:
                    terminal.bind(self)
                    if not terminal.active:  # entered first: it sets the PTY's size
                        await stack.enter_async_context(terminal)
                    terminal.relay()
                sink = on_output or (terminal.write if terminal is not None else None)
                cmd = PendingCommand(
                    text=command,
                    capture=OutputCapture(
                        max_lines=max_lines, max_bytes=max_bytes, columns=self._cols
                    ),
                    sinks=(sink,) if sink is not None else (),
                    cwd_before=self.cwd,
                    done=asyncio.get_running_loop().create_future(),
                    private=private,
                    typeahead=typeahead,
                )
                self._relay = terminal
                self._forget_typeahead()  # a report nobody took must not pass for this one's
                self._protocol.inject(cmd)
                try:
                    return await asyncio.shield(cmd.done)
                except asyncio.CancelledError:
                    cmd.detached = True
                    raise
        finally:
            self._relay = None
            self._running = False

    async def run_exit(
        self,
        command: str,
        *,
        terminal: Terminal | None = None,
        private: bool = False,
    ) -> ShellExit | None:
        """Run a line that ends the shell (``exit 3``) and let the shell decide, as at its own
        prompt: bash leaves running jobs alone and refuses once while jobs are stopped ("There
        are stopped jobs."), zsh hangs its jobs up as configured. How the shell ended (it is not
        started again), or None when it stayed (it printed why).
        """
        self._may_end = True
        try:
            await self.run(command, terminal=terminal, private=private)
        except ShellClosedError:
            pass  # it ended
        finally:
            self._may_end = False
        return self.ended

    async def replace(self, shell: str, *, terminal: Terminal | None = None) -> ShellExit | None:
        """`exec bash`: a new `shell` takes this one's place, as exec would leave it: the
        exported variables and the directory carry over, the rc files are read again,
        variables, aliases and functions of the old one are gone. The old shell ends through
        `exit` (bash refuses once while jobs are stopped, and writes its history as it goes).
        How the old one ended, or None when it stayed."""
        env = await self.exported_environment()
        env.setdefault("SHELL", self._spec.env.get("SHELL", ""))
        path, kind = choose_shell(shell, env)
        cwd = self._respawn_dir()
        ended = await self.run_exit("exit", terminal=terminal, private=True)
        if ended is None:
            return None
        self.ended = None
        self._spec = dataclasses.replace(self._spec, shell_path=path, kind=kind, env=env)
        await self._spawn(cwd)
        return ended

    async def known_names(self, *, timeout_s: float = 5.0) -> KnownNames:
        """Builtins, keywords, aliases and functions of the live shell.

        Asked through a line-editor binding: no history entry, and $? is kept. Raises
        TimeoutError if the shell does not answer (a user binding that took aish's key, say);
        commands are not held up by an unanswered question.
        """
        if self._running:
            raise ShellBusyError("a command is running in this shell")
        async with self._lock:
            await self._ensure_ready()
            query = NameQuery(asyncio.get_running_loop().create_future())
            self._protocol.ask_names(query)
            try:
                return await asyncio.wait_for(asyncio.shield(query.done), timeout_s)
            except (TimeoutError, asyncio.CancelledError):
                self._protocol.forget_query(query)
                raise

    async def state_report(self, *, timeout_s: float = 5.0) -> ShellStateReport:
        """How this shell resolves command names right now (aliases, functions, hashed paths,
        builtins, PATH, cwd) and its exported variables: what the safety gate judges a
        command against. Asked like :meth:`exported_environment`, with the same errors."""
        data = await self._file_report(REPORT_STATE, state_report_path, timeout_s)
        return parse_state_report(data)

    async def exported_environment(self, *, timeout_s: float = 5.0) -> dict[str, str]:
        """The shell's exported variables as they are now (what a child process would get),
        for starting another shell in the user's environment: an activated virtualenv's PATH
        and VIRTUAL_ENV, a variable exported at the prompt.

        Variables that describe this shell rather than the user (PWD, SHLVL, aish's prompt
        and hooks…) are left out: see ``environment.DROPPED``. Asked like :meth:`known_names`:
        no history entry, $? is kept, TimeoutError if the shell does not answer, and
        ShellBusyError while a command runs; ShellError if it could not write them or died.
        """
        data = await self._file_report(REPORT_ENV, report_path, timeout_s)
        return parse_environment(data, rcfile_dir=self._spec.rcfile_dir)

    async def _file_report(
        self, key: bytes, where: Callable[[Path, int], Path], timeout_s: float
    ) -> bytes:
        """Ask for a report the shell writes to a private file (the key's binding writes it
        and prints one marker); its bytes."""
        if self._running:
            raise ShellBusyError("a command is running in this shell")
        async with self._lock:
            await self._ensure_ready()
            assert self._proc is not None
            path = where(self._spec.rcfile_dir, self._spec.pid_inside or self._proc.pid)
            prepare_report(path)
            try:
                query = EnvQuery(asyncio.get_running_loop().create_future(), key)
                self._protocol.ask_environment(query)
                try:
                    status = await asyncio.wait_for(asyncio.shield(query.done), timeout_s)
                except (TimeoutError, asyncio.CancelledError):
                    self._protocol.forget_query(query)
                    raise
                if status != 0:
                    raise ShellError(f"the shell could not write its report ({status})")
                return path.read_bytes()
            finally:
                # The values may be secrets: they do not outlive the question.
                with contextlib.suppress(OSError):
                    path.unlink()

    async def interrupt(self, *, kill_after_s: float | None = None) -> None:
        """SIGINT the terminal's foreground process group; SIGKILL it if still running later.

        The foreground group is the running job, or the shell itself while it runs a builtin
        loop (then a SIGKILL ends the shell, and a new one is started).
        """
        cmd, proc = self._protocol.command, self._proc
        if cmd is None or proc is None or not self.alive:
            return
        pgrp = proc.foreground_pgrp()
        if pgrp is None or pgrp <= 0:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgrp, signal.SIGINT)
        if kill_after_s is None:
            return
        try:
            await asyncio.wait_for(asyncio.shield(cmd.done), kill_after_s)
        except ShellError:
            return
        except TimeoutError:
            pgrp = proc.foreground_pgrp() if self._proc is proc else None
            if pgrp is not None and pgrp > 0 and self._protocol.command is cmd:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(pgrp, signal.SIGKILL)

    def resize(self, rows: int, cols: int) -> None:
        """Set the PTY size; the foreground program gets SIGWINCH from the kernel."""
        self._rows, self._cols = rows, cols
        if self._proc is not None and self.alive:
            with contextlib.suppress(OSError):
                self._proc.resize(rows, cols)

    def send_nowait(self, data: bytes) -> None:
        """Queue raw bytes for the PTY (keys for the running program); never blocks."""
        if self._channel is not None and self.alive:
            self._channel.write(data)

    async def send(self, data: bytes) -> None:
        """Write raw bytes to the PTY and wait until the kernel has taken them."""
        self.send_nowait(data)
        await self.drain_input()

    @property
    def input_backlog(self) -> int:
        """Bytes queued for the PTY that the kernel has not taken yet."""
        return self._channel.backlog if self._channel is not None else 0

    async def drain_input(self) -> None:
        if self._channel is not None:
            await self._channel.drained()

    def take_background_output(self) -> bytes:
        """Background output kept (bounded) because no ``on_background_output`` was given."""
        return self._background.take()

    # ------------------------------------------------------- effects asked by the protocol

    def _type(self, data: bytes) -> None:
        if self._channel is not None:
            self._channel.write(data)

    def _end_input(self) -> None:
        relay, self._relay = self._relay, None
        if relay is not None:
            relay.stop_relaying()

    def _take_typeahead(self) -> bytes:
        if self._proc is None:
            return b""
        path = typeahead_path(self._spec.rcfile_dir, self._proc.pid)
        try:
            data = path.read_bytes()
        except OSError:
            return b""  # nothing was left unread (the shell writes no empty file)
        with contextlib.suppress(OSError):
            path.unlink()
        return data

    def _forget_typeahead(self) -> None:
        if self._proc is not None:
            with contextlib.suppress(OSError):
                typeahead_path(self._spec.rcfile_dir, self._proc.pid).unlink()

    def _phase_changed(self) -> None:
        self._wakeup.set()
        self._wakeup = asyncio.Event()

    def _cancel_continuation(self, attempts: int = _CANCEL_ATTEMPTS) -> None:
        # Ctrl-C at the continuation prompt, again if the shell is still waiting: a SIGINT that
        # lands while bash is still drawing that prompt is noticed only with the next one.
        if attempts > 0 and self._protocol.awaiting_continuation:
            self._type(b"\x03")
            asyncio.get_running_loop().call_later(
                _CANCEL_RETRY_S, self._cancel_continuation, attempts - 1
            )

    # -------------------------------------------------------------------------- spawn, death

    async def _spawn(self, cwd: str) -> None:
        began = time.perf_counter()
        proc = ShellProcess.spawn(self._spec, cwd=cwd, rows=self._rows, cols=self._cols)
        self._proc = proc
        self._protocol.starting(proc.nonce)
        self._channel = PtyChannel(proc, on_data=self._protocol.feed, on_hangup=self._on_hangup)
        try:
            async with asyncio.timeout(self._ready_timeout_s):
                while self._protocol.phase is Phase.STARTING:
                    await self._wakeup.wait()
            if self._protocol.phase is Phase.DEAD:
                assert self._death_task is not None
                await asyncio.shield(self._death_task)  # it reaps and raises nothing
                how = ShellExit.from_wait_status(proc.wait_status or 0)
                raise ShellStartError(self._start_failure(how))
        except BaseException as exc:
            stuck = isinstance(exc, TimeoutError)
            if self._proc is proc:
                self._stop_channel()
                self._proc = None
                self._protocol.died()
                proc.close_master()
                proc.kill()
                await reap(proc)
            if stuck:
                raise ShellStartError(self._start_failure(None)) from None
            raise
        self.startup_s = time.perf_counter() - began

    def _start_failure(self, how: ShellExit | None) -> str:
        printed = bytes(self._protocol.startup_output[-400:]).decode("utf-8", "replace").strip()
        return start_failed_message(self.kind, how, self._ready_timeout_s, printed)

    async def _ensure_ready(self) -> None:
        while self._protocol.phase is not Phase.READY:
            if self._closed or self.ended is not None:
                raise ShellClosedError("the shell session was closed")
            dead = self._protocol.phase is Phase.DEAD
            if dead and (self._death_task is None or self._death_task.done()):
                await self._spawn(self._respawn_dir())  # an earlier respawn had failed
                continue
            await self._wakeup.wait()

    def _respawn_dir(self) -> str:
        """The last cwd, or its nearest ancestor that still exists."""
        path = Path(self.cwd or os.environ.get("HOME", "/"))
        for candidate in (path, *path.parents):
            if candidate.is_dir():
                return str(candidate)
        return "/"

    def _on_hangup(self) -> None:
        proc = self._proc
        if proc is None or self._protocol.phase is Phase.DEAD:
            return
        starting = self._protocol.phase is Phase.STARTING
        self._channel = None
        self._protocol.died()
        self._death_task = asyncio.get_running_loop().create_task(self._after_death(proc, starting))

    async def _after_death(self, proc: ShellProcess, starting: bool) -> None:
        how = await reap(proc)
        proc.close_master()
        if self._closed or starting:
            return  # a failed start is reported by _spawn
        cmd, self._protocol.command = self._protocol.command, None
        if self._may_end:  # the user's `exit`: the session ends with its shell
            self.ended = how
            if cmd is not None:
                cmd.result(how.status, self.cwd, None)
            self._fail_pending(ShellClosedError("the shell exited"))
            return
        query, self._protocol.query = self._protocol.query, None
        if query is not None and not query.done.done():
            query.done.set_exception(ShellError(how.describe()))
        directory = self._respawn_dir()
        try:
            await self._spawn(directory)
        except (ShellError, OSError, ValueError) as exc:
            notice = respawn_failed_notice(how, str(exc))
        else:
            notice = death_notice(how, self.cwd or directory)
        if cmd is not None and not cmd.detached:
            cmd.result(how.status, self.cwd, notice)
        elif self._on_notice is not None:
            try:
                self._on_notice(notice)
            except Exception:
                _log.exception("notice consumer failed")

    def _stop_channel(self) -> None:
        channel, self._channel = self._channel, None
        if channel is not None:
            channel.close()

    def _fail_pending(self, error: ShellError) -> None:
        cmd, self._protocol.command = self._protocol.command, None
        if cmd is not None and not cmd.done.done():
            cmd.done.set_exception(error)
        query, self._protocol.query = self._protocol.query, None
        if query is not None and not query.done.done():
            query.done.set_exception(error)


class _Host:
    """The session as the protocol's :class:`~aish.shell.protocol.ProtocolHost`."""

    def __init__(self, session: ShellSession) -> None:
        self._session = session

    def write(self, data: bytes) -> None:
        self._session._type(data)

    def end_input(self) -> None:
        self._session._end_input()

    def take_typeahead(self) -> bytes:
        return self._session._take_typeahead()

    def background(self, data: bytes) -> None:
        self._session._background.deliver(data)

    def phase_changed(self) -> None:
        self._session._phase_changed()

    def cancel_continuation(self) -> None:
        self._session._cancel_continuation()
