"""The names bash knows without looking at PATH: its builtins and its reserved words.

Fixed lists (bash 5.2, `compgen -b` and `compgen -k`), so routing never has to ask a shell.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

__all__ = ["BASH_BUILTINS", "BASH_KEYWORDS", "executables_on_path"]

_BUILTIN_WORDS = """
    . : [ alias bg bind break builtin caller cd command compgen complete compopt continue
    declare dirs disown echo enable eval exec exit export false fc fg getopts hash help history
    jobs kill let local logout mapfile popd printf pushd pwd read readarray readonly return set
    shift shopt source suspend test times trap true type typeset ulimit umask unalias unset wait
"""
BASH_BUILTINS = frozenset(_BUILTIN_WORDS.split())

_KEYWORD_WORDS = """
    if then else elif fi case esac for select while until do done in function time { } ! [[ ]]
    coproc
"""
BASH_KEYWORDS = frozenset(_KEYWORD_WORDS.split())


def executables_on_path(path: str | None = None) -> frozenset[str]:
    """Names of the executable files in the directories of `path` (default: `$PATH`).

    Unreadable or missing directories and broken links are skipped silently.
    """
    search = os.environ.get("PATH", os.defpath) if path is None else path
    return frozenset(_scan(d for d in search.split(os.pathsep) if d))


def _scan(directories: Iterable[str]) -> set[str]:
    names: set[str] = set()
    for directory in directories:
        try:
            entries = list(os.scandir(directory))
        except OSError:
            continue
        for entry in entries:
            if entry.name in names:
                continue
            try:
                if entry.is_file() and os.access(entry.path, os.X_OK):
                    names.add(entry.name)
            except OSError:
                continue
    return names
