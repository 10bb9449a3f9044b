"""Reading a command's arguments the way getopt-style programs do.

Rules in the tables name options as written in manuals: `-f` (a short option, also found
inside bundles like `-rf` and after operands, since GNU tools permute), `--force` (a long
option, also as `--force=…`; a trailing `*` matches any suffix, as in `--delete*`), and
`-delete` (a single-dash word, as `find` spells its actions). `--` ends the options.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from aish.safety.bash.command_walk import Arg


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
    # The program's short options that take the rest of their word (or the next word) as a
    # value: in `-mrelease` only `m` is an option. None: not known for this program.
    short_values: str | None = None
    # Whether the program spells all its options as single-dash words (`find -name`, `ip -br`).
    word_options: bool = False

    def has(self, spec: str, *, abbreviated: bool = False, certain: bool = False) -> bool:
        """Whether `spec` is among the options.

        `abbreviated`: a unique-prefix spelling (`--in` for `--in-place`, as getopt_long and git
        accept) counts too — the right reading where an option is an alarm. `certain`: a short
        option inside a bundle counts only where the program's value-taking letters are known,
        so a letter inside a value (`-enode_modules`) is never read as a dry-run flag — the
        right reading where an option is a proof."""
        if spec == "--":
            return self.double_dash
        return any(self._matches(token, spec, abbreviated, certain) for token in self.options)

    def has_any(
        self, specs: Iterable[str], *, abbreviated: bool = False, certain: bool = False
    ) -> bool:
        return any(self.has(s, abbreviated=abbreviated, certain=certain) for s in specs)

    def _matches(self, token: str, spec: str, abbreviated: bool, certain: bool) -> bool:
        if spec.startswith("--") or _is_word_option(spec):
            return option_matches(token, spec, abbreviated=abbreviated)
        if token == spec:
            return True
        if self.word_options or token.startswith("--") or len(token) < 2:
            return False
        letters = token[1:]
        if self.short_values is None:
            return not certain and spec[1] in letters
        for letter in letters:
            if letter == spec[1]:
                return True
            if letter in self.short_values:
                return False  # the rest of the word is this option's value
        return False


def split_args(
    args: Sequence[Arg],
    value_options: frozenset[str] = frozenset(),
    short_values: str | None = None,
    *,
    word_options: bool = False,
) -> ArgView:
    """Options and operands; an option in `value_options` (or a bundle ending in one of the
    `short_values` letters) takes the next word as its value."""
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
                not ended and value is None and (arg.text.startswith("-") or arg.maybe_option)
            )
            operands.append(arg)
            continue
        if value == "--":
            ended = True
            continue
        options.append(value)
        if not operands:
            leading.append(value)
        if value in value_options or _bundle_wants_value(value, short_values, word_options):
            skip_next = True
    words = tuple(a.value for a in args)
    return ArgView(
        tuple(options),
        tuple(operands),
        words,
        ended,
        tuple(leading),
        computed_option,
        short_values,
        word_options,
    )


def _bundle_wants_value(token: str, short_values: str | None, word_options: bool) -> bool:
    """`-nu root`: a bundle whose first value-taking letter ends it takes the next word."""
    if not short_values or word_options or token.startswith("--") or len(token) < 3:
        return False
    for index, letter in enumerate(token[1:], start=1):
        if letter in short_values:
            return index == len(token) - 1
    return False


def option_matches(token: str, spec: str, *, abbreviated: bool = False) -> bool:
    if spec.startswith("--"):
        base = spec.removesuffix("*")
        if spec.endswith("*") and token.startswith(base):
            return True
        if token == base or token.startswith(base + "="):
            return True
        if not abbreviated:
            return False
        name, _, value = token.partition("=")
        spec_name, has_value, spec_value = base.partition("=")
        if not (name.startswith("--") and len(name) > 2 and spec_name.startswith(name)):
            return False
        # `--request=DELETE` abbreviates only with the same value: `--req=GET` is no DELETE.
        return not has_value or value.upper() == spec_value.upper()
    if _is_word_option(spec):
        return token.startswith(spec[:-1]) if spec.endswith("*") else token == spec
    # A short option: inside a bundle of single-dash letters.
    return not token.startswith("--") and spec[1] in token[1:]


def _is_word_option(spec: str) -> bool:
    return len(spec) > 2 and spec[0] == "-" and spec[1] != "-"
