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
    # A word that starts like an option but is computed at run time (`-$flags`).
    computed_option: bool = False

    def has(self, spec: str, *, abbreviated: bool = False) -> bool:
        """Whether `spec` is among the options. With `abbreviated`, a unique-prefix spelling
        (`--in` for `--in-place`, as getopt_long and git accept) counts too: the right reading
        where an option is an alarm, never where it is a proof."""
        if spec == "--":
            return self.double_dash
        if any(option_matches(token, spec, abbreviated=abbreviated) for token in self.options):
            return True
        return _is_word_option(spec) and any(
            word is not None and option_matches(word, spec) for word in self.words
        )

    def has_any(self, specs: Iterable[str], *, abbreviated: bool = False) -> bool:
        return any(self.has(spec, abbreviated=abbreviated) for spec in specs)


def split_args(args: Sequence[Arg], value_options: frozenset[str] = frozenset()) -> ArgView:
    """Options and operands; an option in `value_options` takes the next word as its value."""
    options: list[str] = []
    leading: list[str] = []
    operands: list[Arg] = []
    ended = False
    skip_next = False
    computed_option = False
    for arg in args:
        value = arg.value
        if skip_next:
            skip_next = False
            continue
        if ended or value is None or not value.startswith("-") or value == "-":
            computed_option = computed_option or (
                not ended and value is None and arg.text.startswith("-")
            )
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
    return ArgView(tuple(options), tuple(operands), words, ended, tuple(leading), computed_option)


def option_matches(token: str, spec: str, *, abbreviated: bool = False) -> bool:
    if spec.startswith("--"):
        base = spec.removesuffix("*")
        if spec.endswith("*") and token.startswith(base):
            return True
        if token == base or token.startswith(base + "="):
            return True
        name = token.split("=", 1)[0]
        return abbreviated and name.startswith("--") and len(name) > 2 and base.startswith(name)
    if _is_word_option(spec):
        return token.startswith(spec[:-1]) if spec.endswith("*") else token == spec
    # A short option: inside a bundle of single-dash letters.
    return not token.startswith("--") and spec[1] in token[1:]


def _is_word_option(spec: str) -> bool:
    return len(spec) > 2 and spec[0] == "-" and spec[1] != "-"
