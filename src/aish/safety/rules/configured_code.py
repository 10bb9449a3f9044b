"""Configuration that makes a reading program run another program.

`git status` only reads, unless the repository's config says `core.fsmonitor = ./hook`: then it
runs `./hook`. The same holds for `diff.external`, textconv and filter drivers, a pager on a
terminal, and signature checks; and for variables in the environment (`GIT_EXTERNAL_DIFF`,
`PAGER`, `LESSOPEN`, `LD_PRELOAD`). A cloned repository, or an earlier step of a run, can put
those there, so the gate reads what git will read (all scopes, includes followed, as `git config
--list` reports it) and the shell's environment, and these functions say what would run. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from aish.safety.bash.live_shell import SYSTEM_DIRS

__all__ = [
    "ConfigEntry",
    "exec_concerns",
    "git_concerns",
    "git_env_concerns",
    "pager_concerns",
    "parse_git_config_list",
]


@dataclass(frozen=True)
class ConfigEntry:
    scope: str  # system, global, local, worktree, command
    origin: str  # file:.git/config, command line:
    key: str  # as git prints it: section and name lower-case, subsection as written
    value: str | None  # None: a bare key (`[core] bare`), which means true


def parse_git_config_list(data: bytes) -> list[ConfigEntry]:
    """Entries of `git config --list -z --show-scope --show-origin`: each is scope NUL origin
    NUL key[LF value] NUL."""
    fields = data.decode("utf-8", "surrogateescape").split("\0")
    entries: list[ConfigEntry] = []
    for index in range(0, len(fields) - 2, 3):
        scope, origin, pair = fields[index : index + 3]
        key, newline, value = pair.partition("\n")
        entries.append(ConfigEntry(scope, origin, key, value if newline else None))
    return entries


_BOOLEANS = frozenset(("true", "false", "yes", "no", "on", "off", "1", "0", ""))

# Keys whose value is a program git runs while reading (status, diff, log, show, blame, grep).
# Each pattern is matched against the whole key; subsections are `.+`.
_RUNS = (
    (re.compile(r"core\.fsmonitor"), "runs it to list changed files"),
    (re.compile(r"diff\.external"), "runs it for every diff"),
    (re.compile(r"diff\..+\.(textconv|command)"), "runs it for diffs of matching files"),
    (re.compile(r"filter\..+\.(clean|smudge|process)"), "runs it on matching files"),
    (re.compile(r"gpg(\..+)?\.program"), "runs it to check signatures"),
    (re.compile(r"man\..+\.(cmd|path)"), "runs it for `git help`"),
    (re.compile(r"trace2\.(normal|perf|event)target"), "writes a trace to it"),
)
_PAGERS = (re.compile(r"core\.pager"), re.compile(r"pager\..+"))
_PLAIN_PAGERS = frozenset(("less", "more", "most", "cat", "pg"))
_SHELL_SYNTAX = re.compile(r"[|;&$`<>()\n\\]")


def git_concerns(entries: Iterable[ConfigEntry]) -> tuple[str, ...]:
    """Why git, reading this configuration, would run a program: one reason per key."""
    reasons: list[str] = []
    for entry in entries:
        value = entry.value if entry.value is not None else "true"
        where = f"{entry.key} = {value[:60]} ({entry.scope} config)"
        if entry.key == "core.fsmonitor" and value.lower() in _BOOLEANS:
            continue  # git's own daemon, or off
        runs = next((why for pattern, why in _RUNS if pattern.fullmatch(entry.key)), None)
        if runs is not None:
            reasons.append(f"git config sets {where}: git {runs}")
        elif (
            any(p.fullmatch(entry.key) for p in _PAGERS)
            and value.lower() not in _BOOLEANS  # `pager.log = false`: paging on or off
            and not _plain_pager(value)
        ):
            reasons.append(f"git config sets {where}: git runs it as the pager")
    return tuple(dict.fromkeys(reasons))


def git_env_concerns(env: Mapping[str, str]) -> tuple[str, ...]:
    """Variables in the shell's environment that make git run a program or write a file."""
    reasons = [
        f"{name} is set: git runs {env[name][:60]}"
        for name in ("GIT_EXTERNAL_DIFF", "GIT_EXEC_PATH")
        if env.get(name)
    ]
    if env.get("GIT_PAGER") and not _plain_pager(env["GIT_PAGER"]):
        reasons.append(f"GIT_PAGER is set: git runs {env['GIT_PAGER'][:60]} as the pager")
    reasons += [
        f"{name} is set: git writes a trace to {value[:60]}"
        for name, value in env.items()
        if name.startswith("GIT_TRACE") and value.startswith(("/", "."))
    ]
    return tuple(reasons)


def pager_concerns(env: Mapping[str, str]) -> tuple[str, ...]:
    """Variables that make a pager (or a program that starts one) run another program."""
    reasons = [
        f"{name} is set: pages through {env[name][:60]}"
        for name in ("PAGER", "MANPAGER", "SYSTEMD_PAGER")
        if env.get(name) and not _plain_pager(env[name])
    ]
    for name in ("LESSOPEN", "LESSCLOSE"):
        program = env.get(name, "").lstrip("|-").split(maxsplit=1)
        if program and not _system_path(program[0]):
            reasons.append(f"{name} is set: less runs {program[0][:60]} on every file")
    return tuple(reasons)


def exec_concerns(env: Mapping[str, str]) -> tuple[str, ...]:
    """Variables that make every program load code it was not asked to."""
    reasons = [
        f"{name} is set: every program loads {env[name][:60]}"
        for name in ("LD_PRELOAD", "LD_AUDIT")
        if env.get(name, "").strip()
    ]
    library_path = env.get("LD_LIBRARY_PATH")
    if library_path is not None and any(
        not entry.startswith("/") for entry in library_path.split(":")
    ):
        reasons.append("LD_LIBRARY_PATH names the current directory: programs load its libraries")
    return tuple(reasons)


def _plain_pager(value: str) -> bool:
    """A pager that only shows text: less/more/cat with options, no shell syntax."""
    words = value.split()
    if not words:
        return True
    if _SHELL_SYNTAX.search(value):
        return False
    program = words[0]
    name = program.rpartition("/")[2]
    return name in _PLAIN_PAGERS and ("/" not in program or _system_path(program))


def _system_path(program: str) -> bool:
    return program.rpartition("/")[0] in SYSTEM_DIRS
