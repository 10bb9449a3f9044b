"""The user's live shell as completion sees it (`ui.repl.completion.LiveShell`): its cwd, the
names it runs, its variables and its programmable completion, each asked within a bound.

Variables and programmable completion come from a helper bash (`shell.completion_helper`) that
is started on the first Tab that needs it and brought to the live shell's cwd and exported
variables before each question; the live shell itself only reports its exported variables
(a line-editor binding: no history entry, `$?` kept), and not while a command runs. For zsh
there is no helper: variables are the exported ones, and zsh's own completion system is not
asked.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Awaitable, Callable, Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from aish.completion_words import CompletionLine
    from aish.shell.completion_helper import CompletionHelper, SpecAnswer
    from aish.shell.session import ShellSession

# `SpecAnswer` is named here for completion, which types what the helper answers.
__all__ = ["ReplLiveShell", "SpecAnswer"]


class ReplLiveShell:
    """`completion.LiveShell` for the REPL's shell session."""

    def __init__(
        self,
        shell: Callable[[], ShellSession | None],
        starting: Callable[[float], Awaitable[None]],
        cwd: Callable[[], str],
        names: Callable[[], Awaitable[Iterable[str]]],
        *,
        shell_choice: str | None,
        timeout_s: float,
    ) -> None:
        self._session = shell
        # Waits (a bounded time) for a shell that is still starting: a Tab pressed at the first
        # prompt completes from the live shell, as bash would, not from aish's environment.
        self._starting = starting
        self._cwd = cwd
        self._names = names
        self._shell_choice = shell_choice
        self.timeout_s = timeout_s
        self._helper: CompletionHelper | None = None
        self._env: dict[str, str] = dict(os.environ)

    def cwd(self) -> str:
        return self._cwd()

    async def command_names(self, prefix: str) -> Iterable[str]:
        await self._starting(self.timeout_s)
        names = set(await self._names())
        helper = self._bash_helper()
        if helper is not None:  # what the live PATH holds now (an activated virtualenv's bin)
            env = await self._environment()
            found = await helper.commands(prefix, cwd=self.cwd(), env=env, timeout_s=self.timeout_s)
            names.update(found or ())
        return names

    async def variable_names(self, prefix: str) -> Iterable[str]:
        await self._starting(self.timeout_s)
        env = await self._environment()
        helper = self._bash_helper()
        if helper is not None:
            found = await helper.variables(
                prefix, cwd=self.cwd(), env=env, timeout_s=self.timeout_s
            )
            if found is not None:
                return found
        return env.keys()

    async def programmable(self, line: CompletionLine) -> SpecAnswer | None:
        await self._starting(self.timeout_s)
        helper = self._bash_helper()
        if helper is None:
            return None
        env = await self._environment()
        return await helper.spec(line, cwd=self.cwd(), env=env, timeout_s=self.timeout_s)

    async def close(self) -> None:
        if self._helper is not None:
            await self._helper.close()

    def _bash_helper(self) -> CompletionHelper | None:
        """The helper, made on first use, when the live shell is bash."""
        session = self._session()
        if session is None or session.kind != "bash":
            return None
        if self._helper is None:
            from aish.shell.completion_helper import CompletionHelper
            from aish.shell.launch import choose_shell

            try:
                path, kind = choose_shell(self._shell_choice, os.environ)
            except (ValueError, FileNotFoundError):
                return None
            if kind != "bash":
                return None
            self._helper = CompletionHelper(path)
        return self._helper

    async def _environment(self) -> dict[str, str]:
        """The live shell's exported variables now; the last known ones while it is busy or
        does not answer in time."""
        session = self._session()
        if session is not None and not session.busy:
            with contextlib.suppress(Exception):
                self._env = await session.exported_environment(timeout_s=self.timeout_s)
        return self._env
