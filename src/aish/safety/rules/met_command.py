"""A simple command as the permission policy reads it, built while the classifier walks a line.

The classifier meets every simple command after unwrapping; this turns one into the words a
policy pattern is matched against (`command_pattern.SimpleCommand`): the program's name as the
tables know it, each word after quote removal or None where it is computed, and the other
spellings a tightening rule must also see (git's global options dropped, a program run by its
path as its name, a git subcommand that may be an alias).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from aish.safety.bash.command_walk import COMMAND_OUTPUT, DYNAMIC_VALUE, Arg
from aish.safety.bash.value_options import GLOBAL_FLAGS, VALUE_OPTIONS
from aish.safety.reasons import Via
from aish.safety.rules.command_pattern import SimpleCommand
from aish.safety.rules.git_builtins import GIT_BUILTINS

__all__ = ["in_directories", "simple_command"]

# Commands after which the rest of a line may run elsewhere, and options that run one command
# elsewhere (`git -C dir`, `make -C dir`, `env --chdir dir`, `tar --directory dir`).
_CHANGES_DIRECTORY = frozenset({"cd", "pushd", "popd"})
_ELSEWHERE_OPTIONS = ("-C", "--chdir", "--directory", "--git-dir", "--work-tree")
# The same with the value attached (`-Cbuild`, `--chdir=build`).
_ELSEWHERE_PREFIXES = ("-C", *(f"{option}=" for option in _ELSEWHERE_OPTIONS[1:]))


def simple_command(
    program: str | None, name: Arg, args: Sequence[Arg], via: Via, moved: bool = False
) -> SimpleCommand:
    """`program`: the name as the tables know it (None: a path or a computed name). Names a
    wrapper takes from input (`xargs`, `find -exec … {}`) count as computed. `moved`: the line
    changes directory somewhere (see `in_directories`)."""
    fed = bool(via) and via[-1].startswith(("xargs", "find -", "parallel"))
    words = (program or _literal(name), *(_literal(a, fed) for a in args))
    spellings: tuple[tuple[str | None, ...], ...] = ()
    if program in GLOBAL_FLAGS:
        own = _after_global_options(program, words[1:])
        if own is not None:
            spellings = ((program, *own),)
        if program == "git":
            spellings += _git_alias_spelling(own if own is not None else tuple(words[1:]))
    elif program is None and words[0] is not None and "/" in words[0]:
        # `~/bin/git push`, `./git push`: a deny on `git push` must not be dodged by a path.
        spellings = ((words[0].rpartition("/")[2], *words[1:]),)
    open_ended = bool(via) and via[-1].startswith(("xargs", "parallel"))
    command = SimpleCommand(words, spellings, open_ended, via)
    return replace(command, moved=True) if moved or _elsewhere(command) else command


def in_directories(commands: Sequence[SimpleCommand]) -> tuple[SimpleCommand, ...]:
    """`commands`, each marked `moved` when it may run in another directory than the line
    starts in. The commands are not met in the order they run, so a `cd`, `pushd` or `popd`
    anywhere in the line (or a command whose name is computed, which may be one) moves them
    all; an option that runs one command elsewhere moves that one."""
    everywhere = any(c.words[0] is None or c.words[0] in _CHANGES_DIRECTORY for c in commands)
    return tuple(
        replace(command, moved=True) if everywhere or _elsewhere(command) else command
        for command in commands
    )


def _elsewhere(command: SimpleCommand) -> bool:
    return any(
        w is not None and (w in _ELSEWHERE_OPTIONS or w.startswith(_ELSEWHERE_PREFIXES))
        for w in command.words[1:]
    )


def _literal(word: Arg, fed: bool = False) -> str | None:
    value = word.value
    if value is None or DYNAMIC_VALUE in value or COMMAND_OUTPUT in value:
        return None
    if fed and "{}" in value:
        return None  # replaced by the names read at run time
    return value


def _git_alias_spelling(rest: Sequence[str | None]) -> tuple[tuple[str | None, ...], ...]:
    """`git p origin` where `p` is not git's own command: `p` may be an alias (`alias.p =
    push`, from config the line does not show), so a tightening rule reads it as a computed
    subcommand — a deny on `git push` then asks instead of letting `git p` pass."""
    if rest and rest[0] is not None and rest[0] not in GIT_BUILTINS:
        return (("git", None, *rest[1:]),)
    return ()


def _after_global_options(
    program: str, words: Sequence[str | None]
) -> tuple[str | None, ...] | None:
    """`-C dir push -f` as `push -f`: the words from the subcommand on (git's, docker's
    global options dropped), or None when there were none to drop."""
    values = VALUE_OPTIONS.get(program, frozenset())
    index = 0
    while index < len(words) and (words[index] or "").startswith("-"):
        word = words[index] or ""
        index += 2 if word in values else 1
    return tuple(words[index:]) if index else None
