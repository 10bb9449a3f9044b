"""The filesystem evidence routing is given: does a word name something in the shell's cwd?

`route_line` never looks at the disk itself; the REPL (and `aish route`) hand it the test made
here, bound to the live shell's current directory, so `mv a b` runs when `a` and `b` exist.
Only words of prose are asked about, and only on Enter, so the test stays a `stat` per word; a
word with glob characters (`memory?`) is matched against the directory's names, scanning at most
`SCAN_LIMIT` entries so a huge directory cannot stall the prompt.
"""

from __future__ import annotations

import os
from fnmatch import fnmatchcase

from aish.agent.routing.english import NameTest

__all__ = ["SCAN_LIMIT", "paths_under"]

SCAN_LIMIT = 5000
_GLOB_CHARACTERS = frozenset("*?[")


def paths_under(cwd: str) -> NameTest:
    """A test of whether a word, relative to `cwd`, names an existing path or matches one."""

    def names_path(word: str) -> bool:
        if _GLOB_CHARACTERS & set(word) and "/" not in word:
            return _glob_matches(cwd, word)
        try:
            return os.path.lexists(os.path.join(cwd, word))
        except (OSError, ValueError):  # a NUL byte or a name too long for the OS
            return False

    return names_path


def _glob_matches(cwd: str, pattern: str) -> bool:
    hidden_ok = pattern.startswith(".")  # as bash: `*` does not match a leading dot
    try:
        with os.scandir(cwd) as entries:
            for count, entry in enumerate(entries):
                if count >= SCAN_LIMIT:
                    return False
                if (hidden_ok or not entry.name.startswith(".")) and fnmatchcase(
                    entry.name, pattern
                ):
                    return True
    except OSError:
        return False
    return False
