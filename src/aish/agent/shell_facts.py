"""The live shell's state, as the gate judges a command against it.

Right before judging, the shell that will run the command is asked how it resolves names (its
integration script writes aliases, functions, hashed paths, builtins, PATH, cwd and exported
variables; no history entry, $? kept). For a command that mentions git, git itself is asked
which configuration it would read there (`git config --list`, which runs nothing the config
names). The result is a `ShellFacts` snapshot; the same shell state gives the same snapshot
object, so the classifier's verdict cache keeps working between commands.

If the shell cannot answer (busy, dead, a binding the user took), there are no facts: the gate
then treats no command as `safe` where nobody is asked.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import shutil
import stat
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from aish.safety.bash.live_shell import ShellFacts
from aish.safety.rules.configured_code import (
    exec_concerns,
    git_concerns,
    git_env_concerns,
    pager_concerns,
    parse_git_config_list,
)

if TYPE_CHECKING:
    from aish.shell.state_report import ShellStateReport

__all__ = ["FactsSource", "ShellFactsSource"]

_log = logging.getLogger("aish.gate")

FactsSource = Callable[[str], Awaitable[ShellFacts | None]]
"""The facts to judge a given command against; None when the shell could not say."""

_MENTIONS_GIT = re.compile(r"(?<![\w-])git(?![\w-])")
_GIT_TIMEOUT_S = 3.0
# The git aish asks: a system one, never what the shell's PATH would find first.
_SYSTEM_PATH = "/usr/bin:/bin:/usr/local/bin"
# Hooks that git runs during commands that only read (git status refreshes and writes the index).
_READING_HOOKS = ("post-index-change",)
_LIST_CONFIG = ("config", "--list", "-z", "--show-scope", "--show-origin")
_MAX_SUBMODULES = 32


class ShellFactsSource:
    """Snapshots of one shell. `report` asks that shell for its state."""

    def __init__(self, report: Callable[[], Awaitable[ShellStateReport]]) -> None:
        self._report = report
        self._last: tuple[tuple[str, tuple[str, ...]], ShellFacts] | None = None

    async def __call__(self, command: str) -> ShellFacts | None:
        try:
            report = await self._report()
        except Exception as error:  # busy, dead, unanswered: judged without facts
            _log.info("the shell's state could not be read: %r", error)
            return None
        checked = _MENTIONS_GIT.search(command) is not None
        git = await _git_concerns(report) if checked else ()
        key = (report.digest, git if checked else ("unchecked",))
        if self._last is not None and self._last[0] == key:
            return self._last[1]
        facts = _facts(report, git, checked)
        self._last = (key, facts)
        return facts


def _facts(report: ShellStateReport, git: tuple[str, ...], checked: bool) -> ShellFacts:
    located: dict[str, str | None] = {}

    def locate(name: str) -> str | None:
        if name not in located:
            located[name] = _search_path(name, report.path, report.cwd)
        return located[name]

    return ShellFacts(
        aliases=report.aliases,
        global_aliases=report.global_aliases,
        functions=report.functions,
        hashed=report.hashed,
        builtins=report.builtins,
        locate=locate,
        git_concerns=git + git_env_concerns(report.env),
        git_checked=checked,
        pager_concerns=pager_concerns(report.env),
        exec_concerns=exec_concerns(report.env),
        cwd=report.cwd,
    )


def _search_path(name: str, path: str, cwd: str) -> str | None:
    """The file bash's PATH search finds for `name`: the first executable regular file. An
    empty or relative entry is relative to the shell's cwd (and reported as such)."""
    for entry in path.split(":"):
        directory = entry.rstrip("/") or "/"
        if not entry or not entry.startswith("/"):
            directory = os.path.join(cwd, entry) if entry else cwd
        candidate = os.path.join(directory, name)
        try:
            mode = os.stat(candidate).st_mode
        except OSError:
            continue
        if stat.S_ISREG(mode) and os.access(candidate, os.X_OK):
            return candidate
    return None


async def _git_concerns(report: ShellStateReport) -> tuple[str, ...]:
    git = shutil.which("git", path=_SYSTEM_PATH)
    if git is None:
        return ()  # no git to run anything
    env = {**report.env, "GIT_TERMINAL_PROMPT": "0"}
    env.pop("GIT_EXEC_PATH", None)
    listed = await _run(git, [*_LIST_CONFIG], report.cwd, env)
    if listed is None:
        return ("git's configuration could not be read",)
    reasons = git_concerns(parse_git_config_list(listed)) + await _submodule_concerns(
        git, report.cwd, env
    )
    for hook in _READING_HOOKS:
        where = await _run(git, ["rev-parse", "--git-path", f"hooks/{hook}"], report.cwd, env)
        if where is None:
            break  # not a repository: no hooks
        path = os.path.join(report.cwd, os.fsdecode(where.strip()))
        if os.access(path, os.X_OK) and os.path.isfile(path):
            reasons += (f"the repository has a {hook} hook ({path}), which git status runs",)
    return reasons


async def _submodule_concerns(git: str, cwd: str, env: dict[str, str]) -> tuple[str, ...]:
    """`git status` and `git diff` look into each submodule with a git of its own, which reads
    the submodule's config: judge those too."""
    top = await _run(git, ["rev-parse", "--show-toplevel"], cwd, env)
    if top is None:
        return ()
    root = os.fsdecode(top.strip())
    listed = await _run(
        git,
        ["config", "-z", "-f", ".gitmodules", "--get-regexp", r"^submodule\..*\.path$"],
        root,
        env,
    )
    if listed is None:
        return ()  # no submodules
    paths = [entry.partition("\n")[2] for entry in os.fsdecode(listed).split("\0") if entry]
    if len(paths) > _MAX_SUBMODULES:
        return (f"the repository has {len(paths)} submodules, too many to check",)
    reasons: tuple[str, ...] = ()
    for path in paths:
        where = os.path.join(root, path)
        if not os.path.exists(os.path.join(where, ".git")):
            continue  # not checked out: git has nothing to look into
        inner = await _run(git, [*_LIST_CONFIG], where, env)
        if inner is None:
            reasons += (f"the configuration of submodule {path} could not be read",)
            continue
        found = git_concerns(parse_git_config_list(inner))
        reasons += tuple(f"in submodule {path}: {reason}" for reason in found)
    return reasons


async def _run(git: str, args: list[str], cwd: str, env: dict[str, str]) -> bytes | None:
    """git's output, or None when it failed or took too long."""
    try:
        process = await asyncio.create_subprocess_exec(
            git,
            *args,
            cwd=cwd or None,
            env=env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
        )
    except OSError:
        return None
    try:
        output, _ = await asyncio.wait_for(process.communicate(), _GIT_TIMEOUT_S)
    except TimeoutError:
        with contextlib.suppress(ProcessLookupError):
            process.kill()
        await process.wait()
        return None
    return output if process.returncode == 0 else None
