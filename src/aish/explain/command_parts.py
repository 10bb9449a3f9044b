"""A line of bash as the programs it runs, each with its own words.

The line is read by the safety room's parser (the same reading the gate judges): every simple
command, in order, including those in pipelines, lists and `$(…)`; a wrapper and what it runs
are two parts (`sudo -u root tar -xf a.tgz` is `sudo -u root` and `tar -xf a.tgz`), and code a
wrapper hands to a shell (`watch 'df -h'`, `sudo sh -c '…'`) is read again.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from aish.safety.bash import Arg, is_wrapper, parse_bash, unwrap

__all__ = ["CommandPart", "command_parts"]

_SHELLS = frozenset(("sh", "bash", "dash", "zsh", "ksh", "mksh", "ash"))
# How deep code inside code is followed (`sudo sh -c "watch 'ls'"`).
_MAX_DEPTH = 3


@dataclass(frozen=True)
class CommandPart:
    """One program the line runs: its word as written, its name (None when only known at run
    time: `$tool -x`), and its argument words (None for a word only known at run time)."""

    written: str
    program: str | None
    words: tuple[str | None, ...]


def command_parts(line: str) -> tuple[list[CommandPart], str | None]:
    """The programs `line` runs, in order, and bash's objection to the line (None: it parses)."""
    parsed = parse_bash(line)
    return list(_parts_of(line, 0)), parsed.error


def _parts_of(line: str, depth: int) -> Iterator[CommandPart]:
    for command in parse_bash(line).commands:
        if command.name is None:
            continue
        # As code a wrapper hands to a shell, a quoted word is its value: `watch 'df -h'`
        # runs `df -h`.
        args = [
            Arg(w.text, w.value, w.text if w.value is None else w.value) for w in command.arguments
        ]
        yield from _unwrapped(command.name.text, command.name.value, args, depth)


def _unwrapped(
    written: str, program: str | None, args: Sequence[Arg], depth: int
) -> Iterator[CommandPart]:
    if program is None or not is_wrapper(program) or depth > _MAX_DEPTH:
        yield CommandPart(written, program, tuple(a.value for a in args))
        code = _shell_code(args) if program in _SHELLS and depth < _MAX_DEPTH else None
        if code is not None:
            yield from _parts_of(code, depth + 1)
        return
    inner = unwrap(program, args)
    own = args[: len(args) - len(inner.args)] if inner.args else args
    yield CommandPart(written, program, tuple(a.value for a in own))
    if inner.args:
        first, *rest = inner.args
        yield from _unwrapped(first.text, first.value, rest, depth + 1)
    elif inner.code is not None and depth < _MAX_DEPTH:
        yield from _parts_of(inner.code, depth + 1)


def _shell_code(args: Sequence[Arg]) -> str | None:
    """The code of `bash -c 'code'` (also `-ec`, `-lc`): the word after the option."""
    for index, arg in enumerate(args):
        value = arg.value or ""
        if not value.startswith("-") or value == "--":
            return None
        if not value.startswith("--") and value.endswith("c") and index + 1 < len(args):
            return args[index + 1].value
    return None
