"""A helper bash that answers completion questions the way the user's live bash would.

Programmable completion (``complete -F _git git`` from bash-completion, the user's own specs)
runs shell functions, which may take their time and may change the state of the shell that runs
them. So they never run in the user's shell: a second bash, started on the first question with
the user's rc files (``completion_helper.bash``), has the same specs, and before each question is
brought to the live shell's cwd and exported variables. It talks over pipes, not a terminal,
with nonce-framed answers (see the script), and lives in a process group of its own: a question
not answered in time is given up and the whole group is killed, so a slow spec costs at most
that bound and never holds a later question; the next question starts a fresh helper.

Nothing of it reaches the user's session: its history is off and never written, it prints
nowhere the user sees, and it is killed with SIGKILL (no exit hooks, no history save).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import secrets
import shlex
import signal
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from aish.completion_words import CompletionLine
from aish.shell.environment import DROPPED

__all__ = ["CompletionHelper", "SpecAnswer"]

_HERE = Path(__file__).resolve().parent
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_CHUNK = 65536
_MAX_ANSWER = 8 * 1024 * 1024  # a runaway answer is given up rather than held in memory


@dataclass(frozen=True)
class SpecAnswer:
    """What the command's programmable completion said: whether a spec applied, the options
    in force at the end (``nospace``, ``filenames``, ``default`` …) and the matches."""

    found: bool
    options: frozenset[str] = frozenset()
    matches: tuple[str, ...] = ()


class CompletionHelper:
    """One helper bash for one user session; see the module docstring. Every question returns
    None when it could not be answered in time (or at all): completion then offers nothing
    from here, and typing goes on."""

    def __init__(self, bash_path: str, *, startup_timeout_s: float = 15.0) -> None:
        self._bash = bash_path
        self._startup_timeout_s = startup_timeout_s
        self._nonce = secrets.token_hex(8)
        self._directory = Path(tempfile.mkdtemp(prefix="aish-complete-"))
        self._proc: asyncio.subprocess.Process | None = None
        self._starting: asyncio.Task[bool] | None = None
        self._buffer = bytearray()
        self._sent_env: dict[str, str] = {}
        self._sent_cwd = ""
        self._next_id = 0
        self._lock = asyncio.Lock()
        self._closed = False
        self.starts = 0  # how many helpers were started (a slow spec costs one)

    # ------------------------------------------------------------------------------- questions

    async def spec(
        self, line: CompletionLine, *, cwd: str, env: Mapping[str, str], timeout_s: float
    ) -> SpecAnswer | None:
        """Run the programmable completion of `line`'s command, as bash would on Tab."""
        args = [
            "spec",
            str(line.cword),
            str(line.point),
            line.line,
            line.command,
            line.word,
            line.previous,
            *line.words,
        ]
        records = await self._ask(args, cwd=cwd, env=env, timeout_s=timeout_s)
        if not records or records[0] != "spec":
            return None if records is None else SpecAnswer(found=False)
        options = frozenset(records[1].split()) if len(records) > 1 else frozenset()
        return SpecAnswer(found=True, options=options, matches=tuple(records[2:]))

    async def variables(
        self, prefix: str, *, cwd: str, env: Mapping[str, str], timeout_s: float
    ) -> list[str] | None:
        """Names of the shell variables that start with `prefix` (``compgen -v``)."""
        return await self._ask(["vars", prefix], cwd=cwd, env=env, timeout_s=timeout_s)

    async def commands(
        self, prefix: str, *, cwd: str, env: Mapping[str, str], timeout_s: float
    ) -> list[str] | None:
        """Command names that start with `prefix` on the live PATH (``compgen -c``)."""
        return await self._ask(["commands", prefix], cwd=cwd, env=env, timeout_s=timeout_s)

    @property
    def pid(self) -> int | None:
        """The running helper's pid (its process group), None when none runs."""
        return self._proc.pid if self._proc is not None else None

    async def close(self) -> None:
        self._closed = True
        if self._starting is not None and not self._starting.done():
            self._starting.cancel()
            with contextlib.suppress(BaseException):
                await self._starting
        await self._kill()
        import shutil

        shutil.rmtree(self._directory, ignore_errors=True)

    # ------------------------------------------------------------------------------- exchange

    async def _ask(
        self, args: Sequence[str], *, cwd: str, env: Mapping[str, str], timeout_s: float
    ) -> list[str] | None:
        if self._closed:
            return None
        try:
            async with asyncio.timeout(timeout_s):
                await self._lock.acquire()
        except TimeoutError:
            return None
        try:
            if not await self._ready(cwd, env):
                return None
            try:
                async with asyncio.timeout(timeout_s):
                    return await self._exchange(args, cwd, env)
            except (TimeoutError, asyncio.CancelledError):
                # The helper is inside a slow function: it is of no more use.
                await self._kill()
                raise
        except TimeoutError:
            return None
        except (OSError, EOFError, ValueError):
            await self._kill()
            return None
        finally:
            self._lock.release()

    async def _ready(self, cwd: str, env: Mapping[str, str]) -> bool:
        """A helper that has read its rc files. Starting one is not cut short by the question's
        own bound (the next Tab would only start it again): it has a bound of its own."""
        starting = self._starting
        if starting is not None and not starting.done():
            return await asyncio.shield(starting)
        if self._proc is not None and self._proc.returncode is None:
            return True
        self._proc = None
        self._starting = asyncio.create_task(self._start(cwd, dict(env)))
        return await asyncio.shield(self._starting)

    async def _start(self, cwd: str, env: dict[str, str]) -> bool:
        rcfile = self._directory / "aish-completion.bash"
        text = (_HERE / "completion_helper.bash").read_text(encoding="utf-8")
        rcfile.write_text(text, encoding="utf-8")
        child_env = _helper_environment(env)
        self._sent_env = dict(child_env)
        child_env.update(AISH="1", AISH_COMPLETION_NONCE=self._nonce, AISH_CWD=cwd)
        self._buffer.clear()
        self.starts += 1
        proc = await asyncio.create_subprocess_exec(
            self._bash,
            "--noprofile",
            "--noediting",
            "--rcfile",
            str(rcfile),
            "-i",
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            env=child_env,
            cwd=cwd if os.path.isdir(cwd) else "/",
            start_new_session=True,  # its own group, killed whole; and no controlling terminal
        )
        self._proc = proc
        self._sent_cwd = cwd
        try:
            async with asyncio.timeout(self._startup_timeout_s):
                await self._exchange(["ready"], cwd, env)
        except (TimeoutError, OSError, EOFError, ValueError):
            await self._kill()
            return False
        except asyncio.CancelledError:
            await self._kill()
            raise
        return True

    async def _exchange(self, args: Sequence[str], cwd: str, env: Mapping[str, str]) -> list[str]:
        proc = self._proc
        if proc is None or proc.stdin is None or proc.stdout is None:
            raise EOFError("no completion helper")
        self._next_id += 1
        request_id = str(self._next_id)
        script = self._sync(cwd, env) + shlex.join(["__aish_request", request_id, *args]) + "\n"
        proc.stdin.write(script.encode("utf-8", "surrogateescape"))
        await proc.stdin.drain()
        begin = f"{self._nonce}:{request_id}:<\0".encode()
        end = f"{self._nonce}:{request_id}:>\0".encode()
        while True:
            start = self._buffer.find(begin)
            if start >= 0:
                stop = self._buffer.find(end, start + len(begin))
                if stop >= 0:
                    body = bytes(self._buffer[start + len(begin) : stop])
                    del self._buffer[: stop + len(end)]
                    return [os.fsdecode(record) for record in body.split(b"\0")[:-1]]
            if len(self._buffer) > _MAX_ANSWER:
                raise ValueError("the completion helper's answer is too long")
            data = await proc.stdout.read(_CHUNK)
            if not data:
                raise EOFError("the completion helper exited")
            self._buffer += data

    def _sync(self, cwd: str, env: Mapping[str, str]) -> str:
        """Statements that bring the helper to the live shell's cwd and exported variables
        (only what changed since the last question)."""
        wanted = _helper_environment(env)
        lines = [
            f"builtin export {name}={shlex.quote(value)} 2>/dev/null"
            for name, value in wanted.items()
            if self._sent_env.get(name) != value
        ]
        lines += [f"builtin unset -v {name}" for name in self._sent_env if name not in wanted]
        self._sent_env = wanted
        if cwd != self._sent_cwd:
            lines.append(f"builtin cd -- {shlex.quote(cwd)} >/dev/null 2>&1")
            self._sent_cwd = cwd
        return "".join(line + "\n" for line in lines)

    async def _kill(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        if proc.stdin is not None:
            proc.stdin.close()
        with contextlib.suppress(Exception):
            await proc.wait()


def _helper_environment(env: Mapping[str, str]) -> dict[str, str]:
    """The live shell's variables the helper takes: not those that describe that shell (see
    ``environment.DROPPED``), nor its history settings (the helper keeps none)."""
    return {
        name: value
        for name, value in env.items()
        if _NAME.fullmatch(name)
        and name not in DROPPED
        and not name.startswith(("HIST", "__aish"))
        and "\0" not in value
    }
