"""A command's words read as its options, against what its documentation says about them.

`-xzf a.tgz` is `-x`, `-z` and `-f a.tgz` when `-f` takes a value; `--file=a.tgz` is
`--file`; `--ext` is `--extract` when no other long option starts so; `-name` is `-name` when
the documentation has that (find), and a bundle of letters otherwise. Words after `--` are
operands, as getopt reads them.
"""

from __future__ import annotations

from dataclasses import dataclass

from aish.explain.option_table import OptionEntry, OptionTable

__all__ = ["Flag", "FlagReading", "read_flags"]


@dataclass(frozen=True)
class Flag:
    """One option as written (`-f`, from the word `-xzf`), its value when it took one, and
    the documentation's entry (None: the documentation does not mention it)."""

    name: str
    word: str
    value: str | None
    entry: OptionEntry | None


@dataclass(frozen=True)
class FlagReading:
    """The options among the words, and the first operand (a subcommand, maybe), with the
    words after it."""

    flags: tuple[Flag, ...]
    first_operand: int | None


def read_flags(words: tuple[str | None, ...], table: OptionTable | None) -> FlagReading:
    """Each option word among `words` (None: a word only known at run time), split and looked
    up in `table` (None: no documentation; the options are still named)."""
    flags: list[Flag] = []
    first_operand: int | None = None
    index = 0
    while index < len(words):
        word = words[index]
        index += 1
        if word == "--":
            break
        if word is None or not _is_option(word):
            if first_operand is None:
                first_operand = index - 1
            continue
        read = _option_word(word, table)
        if read and read[-1].entry is not None and read[-1].entry.takes_value:
            last = read[-1]
            if last.value is None and index < len(words):
                read[-1] = Flag(last.name, last.word, words[index] or "…", last.entry)
                index += 1
        flags.extend(read)
    return FlagReading(tuple(flags), first_operand)


def _is_option(word: str) -> bool:
    return len(word) > 1 and word.startswith("-") and word != "--"


def _option_word(word: str, table: OptionTable | None) -> list[Flag]:
    if word.startswith("--"):
        name, equals, value = word.partition("=")
        entry = None if table is None else table.entry(name) or table.long_prefix(name)
        return [Flag(name, word, value if equals else None, entry)]
    exact = None if table is None else table.entry(word)
    if exact is not None or len(word) == 2 or word[1:].isdigit():
        return [Flag(word, word, None, exact)]
    flags: list[Flag] = []
    for offset, letter in enumerate(word[1:], start=2):
        name = f"-{letter}"
        entry = None if table is None else table.entry(name)
        if entry is not None and entry.takes_value and offset < len(word):
            # `-C/tmp`, `-ofile`: the rest of the bundle is the value.
            flags.append(Flag(name, word, word[offset:], entry))
            return flags
        flags.append(Flag(name, word, None, entry))
    return flags
