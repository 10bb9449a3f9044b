"""What `find … -delete` (or `find … -exec rm …`) would delete: find itself, asked to print.

The same roots and tests run with every deleting action replaced by `-print0` (and `-depth`,
which `-delete` implies and which makes `-prune` do nothing), so the list is exactly what find
would hand to the deletion. An expression with any other action that runs or writes
(`-exec other`, `-ok`, `-fprint`) cannot be listed this way: unpredictable.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence

from aish.run.undo.probes import probe
from aish.run.undo.programs import Touch, Unpredictable

__all__ = ["find_touches"]

_EXECS = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
_WRITERS = frozenset({"-fprint", "-fprint0", "-fprintf", "-fls"})
# Global options before the roots; -D and -O take an argument.
_LEADING = frozenset({"-H", "-L", "-P"})


def find_touches(words: Sequence[str | None], cwd: str, deadline: float) -> list[Touch]:
    if any(word is None for word in words):
        raise Unpredictable("an argument of find is computed at run time")
    args = [word for word in words if word is not None]
    leading: list[str] = []
    i = 0
    while i < len(args) and (args[i] in _LEADING or args[i][:2] in ("-D", "-O")):
        takes = args[i] in ("-D",) and i + 1 < len(args)
        leading += args[i : i + 1 + takes]
        i += 1 + takes
    roots: list[str] = []
    while i < len(args) and not (args[i].startswith("-") or args[i] in ("(", "!", ")", ",")):
        roots.append(args[i])
        i += 1
    listing, recursive = _listing(args[i:])
    if listing is None:
        return []  # no action deletes anything
    output = probe("find", [*leading, *roots, "-depth", *listing], cwd, deadline - time.monotonic())
    found = [os.fsdecode(name) for name in output.split(b"\0") if name]
    return [Touch(path, "delete", recursive=recursive) for path in found]


def _listing(expression: Sequence[str]) -> tuple[list[str] | None, bool]:
    """The expression with its deleting actions printing instead (None: nothing deletes), and
    whether what is deleted goes with its whole tree (`-exec rm -r`)."""
    out: list[str] = []
    deletes = recursive = False
    i = 0
    while i < len(expression):
        word = expression[i]
        if word in _WRITERS:
            raise Unpredictable(f"find {word} writes a file")
        if word == "-delete":
            out.append("-print0")
            deletes = True
            i += 1
            continue
        if word in _EXECS:
            end = next(
                (j for j in range(i + 1, len(expression)) if expression[j] in (";", "+")),
                len(expression),
            )
            command = expression[i + 1 : end]
            if not command or os.path.basename(command[0]) != "rm":
                name = command[0] if command else "a command"
                raise Unpredictable(f"find runs {name} on what it finds")
            recursive = (
                recursive
                or any(
                    w.startswith("-") and not w.startswith("--") and ("r" in w or "R" in w)
                    for w in command[1:]
                )
                or "--recursive" in command
            )
            out.append("-print0")
            deletes = True
            i = end + 1
            continue
        out.append(word)
        i += 1
    return (out if deletes else None), recursive
