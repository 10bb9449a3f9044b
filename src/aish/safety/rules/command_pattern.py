"""Command patterns of the permission policy, matched on parsed commands, not on text.

A pattern is a command prefix written as words: `git push`, `npm run test*`, `kubectl delete
*`. It is matched against each simple command the classifier met after unwrapping (`sudo`,
`env`, `bash -c '…'`, `xargs`, `find -exec`, lists, pipelines, substitutions), word by word
after quote removal, so `cd x && sudo "git" push -f` contains `git push` and `make test && rm
-rf /` is not `make test` followed by anything. A glob inside a word stays inside that word; a
word that is only `*` stands for any number of words (none included). The command may go on
after the pattern ends.

Words computed at run time (`$x`, `$(cmd)`, the names `xargs` reads) are where the two
directions part. A rule that tightens (`ask`, `deny`, `destructive`) must not be dodged by
spelling the command through a variable, so there a computed word may be anything — any
number of words — and a command that *may* match is reported as such. A rule that loosens
(`allow`) vouches only for what it can read: a computed word matches nothing but a lone `*`.
"""

from __future__ import annotations

import posixpath
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from functools import cache, lru_cache
from typing import Literal

__all__ = ["Match", "SimpleCommand", "match_command", "path_operands", "pattern_words", "under"]

Word = str | None  # None: computed at run time
Match = Literal["yes", "maybe", "no"]


@dataclass(frozen=True)
class SimpleCommand:
    """One simple command as the classifier met it, after unwrapping.

    `words[0]` is the program's name as the tables know it (`/usr/bin/git` and `\\git` are
    `git`), or the name as written for a script (`./deploy.sh`), or None when computed.
    `spellings` are the same command read other ways (git's global options dropped: `git -C
    dir push` is also `git push`). `open_ended`: more words come from input at run time
    (`xargs git`). `via`: the wrappers it was found through, for messages. `moved`: it may run
    in another directory than the line starts in (a `cd` before it, `-C dir`), so its relative
    path words say nothing about where they point.
    """

    words: tuple[Word, ...]
    spellings: tuple[tuple[Word, ...], ...] = ()
    open_ended: bool = False
    via: tuple[str, ...] = ()
    moved: bool = False

    def text(self) -> str:
        return " ".join(w if w is not None else "…" for w in self.words)


@lru_cache(maxsize=1024)
def pattern_words(pattern: str) -> tuple[str, ...]:
    """A pattern's words: split as the shell would (quotes keep a space inside one word)."""
    try:
        return tuple(shlex.split(pattern))
    except ValueError:  # an unbalanced quote: the plain words, as the user wrote them
        return tuple(pattern.split())


def match_command(pattern: Sequence[str], command: SimpleCommand, *, tighten: bool) -> Match:
    """Whether `command` starts with `pattern`: `yes`, `no`, or `maybe` (only when
    `tighten`: a computed word could make it so)."""
    if not pattern:
        return "no"
    words = tuple(pattern)
    # Other spellings (git's global options dropped) only ever tighten: `allow = ["git log"]`
    # must not vouch for `git -c core.pager=… log`.
    spellings = (command.words, *command.spellings) if tighten else (command.words,)
    if any(_prefix(words, s, command.open_ended, loose=False) for s in spellings):
        return "yes"
    if tighten and any(_prefix(words, s, command.open_ended, loose=True) for s in spellings):
        return "maybe"
    return "no"


def _prefix(
    pattern: tuple[str, ...], words: tuple[Word, ...], open_ended: bool, loose: bool
) -> bool:
    @cache
    def at(i: int, j: int) -> bool:
        if i == len(pattern):
            return True  # the command may go on after the pattern
        word = pattern[i]
        if j == len(words):
            # Out of words: only "any number of words" is left, or input may supply the rest.
            return (loose and open_ended) or all(p == "*" for p in pattern[i:])
        given = words[j]
        if word == "*":
            return at(i + 1, j) or at(i, j + 1)
        if given is None:
            # A computed word may expand to any number of words, each anything.
            return loose and any(at(k, j + 1) for k in range(i, len(pattern) + 1))
        return fnmatchcase(given, word) and at(i + 1, j + 1)

    try:
        return at(0, 0)
    finally:
        at.cache_clear()


def path_operands(pattern: Sequence[str], command: SimpleCommand) -> tuple[Word, ...]:
    """The command's words that name paths for a rule's `paths`: the words after those the
    pattern spells out, without options. Approximate on purpose (an option's value counts as
    a path), which only ever makes a scoped `allow` apply less."""
    skip = sum(1 for p in pattern if p != "*")
    words = tuple(w for w in command.words[skip:] if w is None or not w.startswith("-"))
    if command.moved:
        # Relative to a directory the line changed to: as good as computed.
        return tuple(w if w is not None and w.startswith(("/", "~")) else None for w in words)
    return words


def under(path: Word, globs: Sequence[str], *, tighten: bool) -> bool:
    """Whether `path` falls under one of `globs` (`./build/**` holds `build` and everything
    below it). A computed path is under them when tightening, never when loosening."""
    if path is None:
        return tighten
    given = _normal(path)
    for glob in globs:
        wanted = _normal(glob)
        if fnmatchcase(given, wanted):
            return True
        if wanted.endswith("/**") and given == wanted[:-3]:
            return True
    return False


def _normal(path: str) -> str:
    """`./build/../x` as `x`: `..` is resolved in the text, so it cannot climb out of a
    scope unseen. (Symlinks are the file system's business, and this code reads none.)"""
    if not path or path.startswith("~"):
        return path
    return posixpath.normpath(path).removeprefix("./")
