"""Where a program's documentation comes from: bash's `help` for a builtin, else the man
page, else (for a program the system installed) its `--help`."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from aish.explain.docs.builtin_help import read_builtin_help
from aish.explain.docs.help_text import SYSTEM_DIRS, read_help_text
from aish.explain.docs.man_page import has_man_page, read_man_page

__all__ = ["Documentation", "find_documentation", "find_subcommand_page"]

Source = Literal["man", "--help", "help"]
# What `man` and a system directory are asked about: a program's name, never a path or option.
_PLAIN_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._+-]{0,63}\Z")


@dataclass(frozen=True)
class Documentation:
    """A program's documentation as plain text, and where it came from (`man tar`,
    `tar --help`, `help cd`)."""

    program: str
    source: Source
    text: str

    @property
    def origin(self) -> str:
        if self.source == "man":
            return f"man {self.program}"
        if self.source == "help":
            return f"help {self.program}"
        return f"{self.program} --help"


def documented_name(word: str) -> str | None:
    """The name to look up for a command word: itself, or the program of a path into a system
    directory (`/usr/bin/tar` → tar); None for anything else (`./build.sh`, `$tool`)."""
    if "/" in word:
        directory, name = os.path.split(word)
        if os.path.normpath(directory) not in SYSTEM_DIRS:
            return None
        word = name
    return word if _PLAIN_NAME.match(word) else None


# In this order: bash runs its builtin, whatever man page has the name.
_READERS: tuple[tuple[Source, Callable[[str], str | None]], ...] = (
    ("help", read_builtin_help),
    ("man", read_man_page),
    ("--help", read_help_text),
)


@lru_cache(maxsize=64)
def find_documentation(word: str) -> Documentation | None:
    """The documentation of the program a command word names, or None when there is none
    (or the word is not a plain name: nothing is asked about a path or an expansion)."""
    name = documented_name(word)
    if name is None:
        return None
    for source, read in _READERS:
        text = read(name)
        if text is not None:
            return Documentation(name, source, text)
    return None


@lru_cache(maxsize=64)
def find_subcommand_page(program: str, subcommand: str) -> Documentation | None:
    """The man page of a subcommand (`git commit` → git-commit), when the system has one."""
    name = f"{program}-{subcommand}"
    if not _PLAIN_NAME.match(name) or not re.fullmatch(r"[a-z][a-z0-9-]*", subcommand):
        return None
    if not has_man_page(name):
        return None
    text = read_man_page(name)
    return None if text is None else Documentation(name, "man", text)
