"""File-name completion as bash does it, from the live shell's working directory.

A relative word is looked up in the shell's cwd (not aish's, which never moves); ``~`` and
``~/…`` are the home directory. The inserted text is quoted as bash quotes file names (a
backslash before each special character) unless the word is inside an open quote; a directory
gets a ``/`` and a file a space, as bash's Tab inserts them. Hidden files match like readline's
default (``match-hidden-files`` on).
"""

from __future__ import annotations

import os
from collections.abc import Iterator

from prompt_toolkit.completion import Completion

__all__ = ["escape_path", "path_completions", "unescape_word"]

# readline's rl_filename_quote_characters in bash (a `~` only matters first).
_SPECIAL = set(" \t\n\\\"'@<>=;|&()#$`?*[!:{")


def escape_path(text: str) -> str:
    """`text` with a backslash before each character bash would quote in a file name."""
    out = []
    for index, char in enumerate(text):
        if char in _SPECIAL or (char == "~" and index == 0):
            out.append("\\")
        out.append(char)
    return "".join(out)


def unescape_word(word: str) -> str:
    """A typed word with its backslash escapes removed (``my\\ dir`` is ``my dir``)."""
    out = []
    escaped = False
    for char in word:
        if escaped or char != "\\":
            out.append(char)
            escaped = False
        else:
            escaped = True
    return "".join(out)


def path_completions(
    word: str, cwd: str, *, quote: str = "", only_directories: bool = False
) -> Iterator[Completion]:
    """Completions of `word` (readline's word, inside `quote` if one is open) as a path
    relative to `cwd`; each replaces the whole word."""
    raw = word if quote else unescape_word(word)
    cut = raw.rfind("/") + 1
    directory, prefix = raw[:cut], raw[cut:]
    typed_directory = word[: word.rfind("/") + 1]
    look_in = os.path.join(cwd, os.path.expanduser(directory) if directory else ".")
    try:
        with os.scandir(look_in) as entries:
            found = [(entry.name, _is_dir(entry)) for entry in entries]
    except OSError:
        return
    for name, is_dir in sorted(found):
        if not name.startswith(prefix) or (only_directories and not is_dir):
            continue
        shown = name if quote else escape_path(name)
        # A file ends the word: bash closes an open quote and adds a space.
        ending = "/" if is_dir else quote + " "
        yield Completion(
            typed_directory + shown + ending,
            start_position=-len(word),
            display=name + ("/" if is_dir else ""),
        )


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()  # follows symlinks, as bash's mark-directories does
    except OSError:
        return False
