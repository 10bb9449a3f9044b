"""Helpers for the shell tests (no tests here): a clean HOME so the developer's rc files never
interfere, a real shell session on a real PTY, and waiting for output without sleeping."""

from __future__ import annotations

import asyncio
import os
import shutil
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aish.shell.results import CommandResult
from aish.shell.session import ShellSession

TIMEOUT_S = 10.0  # a hang guard, never a speed assertion


def clean_env(home: Path, shell: str = "bash") -> dict[str, str]:
    """A minimal environment whose HOME is a fresh directory."""
    home.mkdir(parents=True, exist_ok=True)
    return {
        "HOME": str(home),
        "PATH": os.environ.get("PATH", os.defpath),
        "TERM": "xterm-256color",
        "LANG": "C.UTF-8",
        "SHELL": shutil.which(shell) or f"/bin/{shell}",
        "USER": "aish-test",
        "LOGNAME": "aish-test",
    }


class Recorder:
    """A callback that keeps every byte it is given and can wait for some text to appear."""

    def __init__(self) -> None:
        self.data = bytearray()
        self._changed = asyncio.Event()

    def __call__(self, data: bytes) -> None:
        self.data += data
        self._changed.set()

    async def wait_for(self, needle: bytes, timeout: float = TIMEOUT_S) -> None:
        async with asyncio.timeout(timeout):
            while needle not in self.data:
                self._changed.clear()
                await self._changed.wait()


@dataclass
class Harness:
    session: ShellSession
    home: Path
    background: Recorder
    notices: list[str] = field(default_factory=list)
    notice_event: asyncio.Event = field(default_factory=asyncio.Event)

    def on_notice(self, notice: str) -> None:
        self.notices.append(notice)
        self.notice_event.set()

    async def run(self, command: str, **kwargs: Any) -> CommandResult:
        return await asyncio.wait_for(self.session.run(command, **kwargs), TIMEOUT_S)

    async def run_typing(self, command: str, when: bytes, keys: bytes) -> CommandResult:
        """Run ``command``; as soon as its output shows ``when``, type ``keys`` into it."""
        output = Recorder()
        task = asyncio.ensure_future(self.session.run(command, on_output=output))
        try:
            await output.wait_for(when)
            await self.session.send(keys)
            return await asyncio.wait_for(task, TIMEOUT_S)
        finally:
            task.cancel()

    async def until_job_in_foreground(self) -> None:
        """Wait until a program (not the shell) owns the terminal: a job is really running.

        The terminal changes hands when bash forks the job, before the child has exec'd its
        program; a Ctrl-C in that gap meets bash's own handlers and is lost. So this also
        waits until the job's leader runs another executable than the shell."""

        def program_runs() -> bool:
            pgid, shell = self.session.foreground_pgid, self.session.pid
            if pgid is None or pgid == shell:
                return False
            try:
                return os.readlink(f"/proc/{pgid}/exe") != os.readlink(f"/proc/{shell}/exe")
            except OSError:  # gone already, or not readable: the job has moved on
                return True

        await wait_until(program_runs)


async def wait_until(predicate: Callable[[], bool], timeout: float = TIMEOUT_S) -> None:
    async with asyncio.timeout(timeout):
        while not predicate():
            await asyncio.sleep(0.005)


@asynccontextmanager
async def open_shell(
    tmp_path: Path, *, shell: str = "bash", home: Path | None = None, **kwargs: Any
) -> AsyncIterator[Harness]:
    home = home or tmp_path / "home"
    background = Recorder()
    notices: list[str] = []
    holder: list[Harness] = []

    def on_notice(notice: str) -> None:
        if holder:
            holder[0].on_notice(notice)
        else:
            notices.append(notice)

    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    session = await asyncio.wait_for(
        ShellSession.start(
            shell=shell,
            cwd=str(kwargs.pop("cwd", work)),
            env=kwargs.pop("env", None) or clean_env(home, shell),
            on_notice=on_notice,
            on_background_output=background,
            **kwargs,
        ),
        TIMEOUT_S,
    )
    harness = Harness(session, home, background, notices)
    holder.append(harness)
    try:
        yield harness
    finally:
        await session.close()
