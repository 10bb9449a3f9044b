"""Reading a command's arguments the way getopt-style programs do.

Rules in the tables name options as written in manuals: `-f` (a short option, also found
inside bundles like `-rf` and after operands, since GNU tools permute), `--force` (a long
option, also as `--force=…`; a trailing `*` matches any suffix, as in `--delete*`), and
`-delete` (a single-dash word, as `find` spells its actions). `--` ends the options.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from aish.safety.command_walk import Arg


@dataclass(frozen=True)
class ArgView:
    """A command's arguments split into option tokens and operands.

    `operands` keeps dynamic words (a variable is most often a file name); `options` holds
    the literal option tokens, `words` every word's value in order (None where dynamic).
    """

    options: tuple[str, ...]
    operands: tuple[Arg, ...]
    words: tuple[str | None, ...]
    # Whether a `--` ended the options (`git checkout HEAD -- file` names paths after it).
    double_dash: bool = False
    # Options before the first operand: a subcommand program's global options (`git -c …`).
    leading: tuple[str, ...] = ()

    def has(self, spec: str) -> bool:
        if spec == "--":
            return self.double_dash
        return any(option_matches(token, spec) for token in self.options) or (
            _is_word_option(spec) and spec in self.words
        )

    def has_any(self, specs: Iterable[str]) -> bool:
        return any(self.has(spec) for spec in specs)

    def operand_values(self) -> list[str | None]:
        return [a.value for a in self.operands]


def split_args(args: Sequence[Arg], value_options: frozenset[str] = frozenset()) -> ArgView:
    """Options and operands; an option in `value_options` takes the next word as its value."""
    options: list[str] = []
    leading: list[str] = []
    operands: list[Arg] = []
    ended = False
    skip_next = False
    for arg in args:
        value = arg.value
        if skip_next:
            skip_next = False
            continue
        if ended or value is None or not value.startswith("-") or value == "-":
            operands.append(arg)
            continue
        if value == "--":
            ended = True
            continue
        options.append(value)
        if not operands:
            leading.append(value)
        if value in value_options:
            skip_next = True
    words = tuple(a.value for a in args)
    return ArgView(tuple(options), tuple(operands), words, ended, tuple(leading))


def option_matches(token: str, spec: str) -> bool:
    if spec.startswith("--"):
        if spec.endswith("*"):
            return token.startswith(spec[:-1])
        return token == spec or token.startswith(spec + "=")
    if _is_word_option(spec):
        return token == spec
    # A short option: inside a bundle of single-dash letters.
    return not token.startswith("--") and spec[1] in token[1:]


def _is_word_option(spec: str) -> bool:
    return len(spec) > 2 and spec[0] == "-" and spec[1] != "-"
