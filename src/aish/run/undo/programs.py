"""Which paths a file program's words name, and what it does to each: `rm`, `mv`, `cp`, `ln`,
`install`, `sed -i`, `perl -pi`, `truncate`, `chmod`/`chown`/`chgrp`, `tee`, `touch`, `mkdir`,
`rmdir`, `unlink`, `shred`, `dd of=`.

Input is the program's words after the shell's own expansions (globs already expanded against
the cwd; None for a word computed at run time). Output is a list of `Touch`es, or
`Unpredictable` when a word that names a target is only known at run time. Options are read the
way GNU coreutils reads them (bundles, `--`, `-t DIR`, `--opt=value`). The only looks at the disk
(`Disk`) ask whether a path exists or is a directory: `mv a b` means `b/a` when `b` is one.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

__all__ = ["PROGRAMS", "Disk", "Effect", "Touch", "Unpredictable", "program_touches"]

# What happens at a path. `move`: moved away (gone from there); `times`: only its times change;
# `revert`: git puts back another version (reset --hard, checkout --, restore).
Effect = Literal[
    "delete", "move", "overwrite", "append", "edit", "mode", "owner", "create", "times", "revert"
]

Words = Sequence[str | None]


@dataclass(frozen=True)
class Disk:
    """Read-only questions about paths as the command names them, relative to its cwd."""

    cwd: str

    def at(self, path: str) -> str:
        return os.path.join(self.cwd, path)

    def is_dir(self, path: str) -> bool:
        """A directory, or a link to one (where `mv a b` puts `a` into `b`)."""
        return os.path.isdir(self.at(path))

    def is_real_dir(self, path: str) -> bool:
        """A directory that is not a link (what `rm` without -r refuses)."""
        return os.path.isdir(self.at(path)) and not os.path.islink(self.at(path))

    def exists(self, path: str) -> bool:
        return os.path.lexists(self.at(path))


@dataclass(frozen=True)
class Touch:
    """One path (as the command names it) and what the command does there. `recursive`: the
    whole tree under it is affected (`rm -r`, `chmod -R`), not just the entry itself."""

    path: str
    effect: Effect
    recursive: bool = True


class Unpredictable(Exception):
    """The targets are computed at run time; the message says why."""


@dataclass
class _Options:
    flags: set[str] = field(default_factory=set)
    values: dict[str, str] = field(default_factory=dict)
    operands: list[str] = field(default_factory=list)


def _parse(
    words: Words,
    *,
    short_values: str = "",
    long_values: frozenset[str] = frozenset(),
    attached: str = "",
) -> _Options:
    """GNU-style options. `short_values`: letters that take a value (the rest of the bundle or
    the next word); `attached`: letters whose value, if any, must be in the same bundle
    (`sed -i.bak`). Long options are kept by name, with `=value` when given."""
    parsed = _Options()
    i = 0
    operands_only = False
    while i < len(words):
        word = words[i]
        i += 1
        if word is None:
            raise Unpredictable("an argument is computed at run time")
        if operands_only or word == "-" or not word.startswith("-"):
            parsed.operands.append(word)
            continue
        if word == "--":
            operands_only = True
            continue
        if word.startswith("--"):
            name, equals, value = word[2:].partition("=")
            if not equals and name in long_values and i < len(words):
                value, i = words[i] or "", i + 1
                if words[i - 1] is None:
                    raise Unpredictable(f"the value of --{name} is computed at run time")
            parsed.flags.add(name)
            parsed.values[name] = value
            continue
        for position, letter in enumerate(word[1:], 1):
            rest = word[position + 1 :]
            if letter in attached:
                parsed.flags.add(letter)
                parsed.values[letter] = rest
                break
            if letter in short_values:
                if not rest and i < len(words):
                    if words[i] is None:
                        raise Unpredictable(f"the value of -{letter} is computed at run time")
                    rest, i = words[i] or "", i + 1
                parsed.flags.add(letter)
                parsed.values[letter] = rest
                break
            parsed.flags.add(letter)
    return parsed


def _rm(words: Words, disk: Disk) -> list[Touch]:
    options = _parse(words)
    recursive = bool(options.flags & {"r", "R", "recursive"})
    empty_dirs = bool(options.flags & {"d", "dir"})
    return [
        Touch(path, "delete")
        for path in options.operands
        # rm refuses a directory without -r (and a non-empty one with only -d).
        if recursive or empty_dirs or not disk.is_real_dir(path)
    ]


def _plain_delete(words: Words, disk: Disk) -> list[Touch]:
    return [Touch(path, "delete") for path in _parse(words).operands]


def _shred(words: Words, disk: Disk) -> list[Touch]:
    options = _parse(words, short_values="nsx", long_values=frozenset({"iterations", "size"}))
    effect: Effect = "delete" if options.flags & {"u", "remove"} else "overwrite"
    return [Touch(path, effect) for path in options.operands]


def _transfer(program: str) -> Callable[[Words, Disk], list[Touch]]:
    """`mv`, `cp`, `ln`, `install`: sources into a destination (a directory or one path)."""
    short = {"mv": "tS", "cp": "tS", "ln": "tS", "install": "tSmog"}[program]
    long_values = frozenset({"target-directory", "suffix", "mode", "owner", "group"})

    def touches(words: Words, disk: Disk) -> list[Touch]:
        options = _parse(words, short_values=short, long_values=long_values)
        operands = options.operands
        if program == "install" and options.flags & {"d", "directory"}:
            return [Touch(path, "create") for path in operands]
        into = options.values.get("t") or options.values.get("target-directory")
        single_file = bool(options.flags & {"T", "no-target-directory"})
        if into is None and program == "ln" and len(operands) == 1:
            into = "."  # `ln -s /x/y` makes ./y
        if into is None:
            if len(operands) < 2:
                return []  # the program refuses: nothing happens
            *sources, destination = operands
            if single_file or not disk.is_dir(destination):
                landing = [destination]
            else:
                landing = [os.path.join(destination, _base(s)) for s in sources]
        else:
            sources = operands
            landing = [os.path.join(into, _base(s)) for s in sources]
        found = [Touch(path, "overwrite") for path in landing]
        if program == "mv":
            found += [Touch(path, "move") for path in sources]
        return found

    return touches


def _base(path: str) -> str:
    return os.path.basename(path.rstrip("/")) or path


def _sed(words: Words, disk: Disk) -> list[Touch]:
    options = _parse(
        words,
        short_values="efl",
        long_values=frozenset({"expression", "file", "line-length"}),
        attached="i",
    )
    if not options.flags & {"i", "in-place"}:
        raise Unpredictable("sed's script writes files")
    files = options.operands
    if not options.flags & {"e", "f", "expression", "file"}:
        files = files[1:]  # the first operand is the script
    return [Touch(path, "edit", recursive=False) for path in files]


def _perl(words: Words, disk: Disk) -> list[Touch]:
    in_place = False
    has_code = False
    operands: list[str] = []
    i = 0
    while i < len(words):
        word = words[i]
        i += 1
        if word is None:
            if operands or not has_code:
                raise Unpredictable("an argument is computed at run time")
            continue
        if operands or not word.startswith("-") or word == "-":
            operands.append(word)
            continue
        if word == "--":
            operands.extend(w for w in words[i:] if w is not None)
            break
        # A cluster: `-pi`, `-i.bak`, `-pie` (which is -p with -i and the extension "e").
        for position, letter in enumerate(word[1:], 1):
            rest = word[position + 1 :]
            if letter == "i":
                in_place = True
                break
            if letter in "eE":
                has_code = True
                if not rest:
                    i += 1  # the code is the next word
                break
            if letter in "IMmxCdD0lF":
                break  # the rest of the cluster is this switch's argument
    if not in_place:
        raise Unpredictable("perl runs a program aish cannot predict")
    files = operands if has_code else operands[1:]
    return [Touch(path, "edit", recursive=False) for path in files]


def _truncate(words: Words, disk: Disk) -> list[Touch]:
    options = _parse(words, short_values="sr", long_values=frozenset({"size", "reference"}))
    no_create = bool(options.flags & {"c", "no-create"})
    return [
        Touch(path, "overwrite", recursive=False)
        for path in options.operands
        if not no_create or disk.exists(path)
    ]


def _owner_or_mode(effect: Effect) -> Callable[[Words, Disk], list[Touch]]:
    def touches(words: Words, disk: Disk) -> list[Touch]:
        # `chmod -w file`: a word that starts with `-` and is no option of chmod is its mode.
        known = set("RcfvhHLP")
        flags: list[str | None] = []
        rest: list[str | None] = []
        for word in words:
            is_option = (
                word is not None
                and word.startswith("-")
                and not rest
                and (word.startswith("--") or set(word[1:]) <= known)
            )
            (flags if is_option else rest).append(word)
        options = _parse([*flags, "--", *rest], long_values=frozenset({"reference", "from"}))
        operands = options.operands
        if "reference" not in options.flags:
            operands = operands[1:]  # the mode or the owner
        recursive = bool(options.flags & {"R", "recursive"})
        return [Touch(path, effect, recursive=recursive) for path in operands]

    return touches


def _tee(words: Words, disk: Disk) -> list[Touch]:
    options = _parse(words)
    effect: Effect = "append" if options.flags & {"a", "append"} else "overwrite"
    return [Touch(path, effect, recursive=False) for path in options.operands]


def _touch(words: Words, disk: Disk) -> list[Touch]:
    options = _parse(
        words, short_values="dtr", long_values=frozenset({"date", "reference", "time"})
    )
    no_create = bool(options.flags & {"c", "no-create"})
    return [
        Touch(path, "times" if disk.exists(path) else "create", recursive=False)
        for path in options.operands
        if not no_create or disk.exists(path)
    ]


def _mkdir(words: Words, disk: Disk) -> list[Touch]:
    options = _parse(words, short_values="m", long_values=frozenset({"mode", "context"}))
    parents = bool(options.flags & {"p", "parents"})
    made = []
    for path in options.operands:
        if disk.exists(path):
            continue
        # `mkdir -p a/b/c` creates the first missing ancestor and everything under it.
        while parents and not disk.exists(os.path.dirname(path.rstrip("/")) or "."):
            path = os.path.dirname(path.rstrip("/"))
        made.append(Touch(path, "create"))
    return made


def _dd(words: Words, disk: Disk) -> list[Touch]:
    for word in words:
        if word is None:
            raise Unpredictable("an argument is computed at run time")
    output = next((w[3:] for w in words if w is not None and w.startswith("of=")), None)
    if output is None:
        return []  # writes to stdout: a redirection, if anything
    keeps = any(w is not None and w.startswith("conv=") and "notrunc" in w for w in words)
    return [Touch(output, "edit" if keeps else "overwrite", recursive=False)]


PROGRAMS: dict[str, Callable[[Words, Disk], list[Touch]]] = {
    "rm": _rm,
    "rmdir": _plain_delete,
    "unlink": _plain_delete,
    "shred": _shred,
    "mv": _transfer("mv"),
    "cp": _transfer("cp"),
    "ln": _transfer("ln"),
    "install": _transfer("install"),
    "sed": _sed,
    "perl": _perl,
    "truncate": _truncate,
    "chmod": _owner_or_mode("mode"),
    "chown": _owner_or_mode("owner"),
    "chgrp": _owner_or_mode("owner"),
    "tee": _tee,
    "touch": _touch,
    "mkdir": _mkdir,
    "dd": _dd,
}


def program_touches(program: str, words: Words, disk: Disk) -> list[Touch]:
    """What `program words…` does to which paths (relative ones as written)."""
    return PROGRAMS[program](words, disk)
