"""What a command name runs in the shell that will run it.

The tables describe programs (`ls` lists files), but a live shell can make `ls` mean anything:
an alias (`alias ls='rm -rf'`), a function (`ls() { rm -rf "$@"; }`), a hashed path
(`BASH_CMDS[ls]=/bin/rm`, `hash -p /bin/rm ls`), a disabled builtin, or a PATH that finds
another `ls` first. So a `safe` verdict is taken against a snapshot of that shell's tables,
`ShellFacts`, and a name resolves the way bash resolves it: alias (only where the shell reads
the word), function, builtin, hashed path, PATH search. An alias or function is judged by its
body; a file is the program the tables describe only when it sits in a system directory under
its own name.

`ShellFacts` also carries what the gate learned about the configuration programs will read
(git's config for the shell's cwd, pager variables): concerns that keep an otherwise read-only
command from being `safe`. Pure: the snapshot and its `locate` come from the caller.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Literal

__all__ = [
    "SYSTEM_DIRS",
    "Lookup",
    "Resolution",
    "ShellFacts",
    "is_system_program",
    "resolve",
]

# Only these directories hold the programs the tables describe; root alone can write them.
SYSTEM_DIRS = frozenset(
    {"/bin", "/usr/bin", "/sbin", "/usr/sbin", "/usr/local/bin", "/usr/local/sbin"}
    | {"/opt/homebrew/bin"}
)

# Where a name is looked up: by the shell itself (aliases, functions, builtins, hash, PATH), by
# a program that executes it (`env`, `sudo`, `xargs`, `find -exec`: PATH, and the hash table to be
# safe), or somewhere else (`docker exec`, `ssh host`: not this machine's tables).
Lookup = Literal["shell", "exec", "none"]


@dataclass(frozen=True, eq=False)
class ShellFacts:
    """One snapshot of the live shell. Compared by identity: the gate makes a new one when the
    shell's state changed, so verdicts cached against the old one are not reused."""

    aliases: Mapping[str, str] = field(default_factory=dict)
    global_aliases: Mapping[str, str] = field(default_factory=dict)
    functions: Mapping[str, str] = field(default_factory=dict)
    hashed: Mapping[str, str] = field(default_factory=dict)
    builtins: frozenset[str] = frozenset()
    # The file a PATH search finds for a name, or None.
    locate: Callable[[str], str | None] = lambda name: None
    # Why git, run in the shell's cwd, would run a program the working tree or a config file
    # names (core.fsmonitor, diff.external …); checked: whether anyone looked.
    git_concerns: tuple[str, ...] = ()
    git_checked: bool = False
    # Why a program that pages (`less`, `man`, `git log` on a terminal) would run another one.
    pager_concerns: tuple[str, ...] = ()
    # Why every program the shell starts would run code it was not asked to (LD_PRELOAD …).
    exec_concerns: tuple[str, ...] = ()
    # The shell's working directory: where a command's relative paths and globs land.
    cwd: str = ""


@dataclass(frozen=True)
class Resolution:
    """What a name turned out to be: `code` to judge instead (an alias's text with the rest of
    the words, a function's body), or a `concern` that keeps it from being `safe`."""

    kind: Literal["alias", "function", "concern"]
    text: str


def is_system_program(path: str, name: str) -> bool:
    directory, _, base = path.rpartition("/")
    return directory in SYSTEM_DIRS and base == name


def resolve(
    facts: ShellFacts, name: str, lookup: Lookup, expanding: frozenset[str] = frozenset()
) -> Resolution | None:
    """What running `name` does in that shell beyond running the program of that name, or None
    when it runs that program (or a builtin) as the tables assume. `expanding` holds the
    aliases being expanded (bash does not expand an alias inside its own expansion)."""
    if lookup == "none" or "/" in name:
        return None
    if lookup == "shell":
        if name in facts.aliases and name not in expanding:
            return Resolution("alias", facts.aliases[name])
        if name in facts.functions:
            return Resolution("function", facts.functions[name])
        if name in facts.builtins:
            return None
    hashed = facts.hashed.get(name)
    if hashed is not None:
        if is_system_program(hashed, name):
            return None
        return Resolution("concern", f"{name} is remembered (hashed) as {hashed}")
    found = facts.locate(name)
    if found is None:
        handler = facts.functions.get("command_not_found_handle")
        if lookup == "shell" and handler is not None:
            return Resolution("function", handler)
        return None
    if is_system_program(found, name):
        return None
    return Resolution("concern", f"{name} runs {found}, not a system program")
