"""Stand-ins for valid bash that tree-sitter-bash cannot parse.

Routing sends a line bash cannot parse to the model, and asks tree-sitter-bash whether it parses.
Tree-sitter's grammar misses a few constructs bash accepts, so those lines went to the model:
`exec 3<>file` (the read-write redirection), `case … ;;&` and `;&`, a `$` that starts no
expansion (`lsof -c /^..o.$/i`, `echo $%`), extended globs (`ls !(*.c)`, `ls ?(a|b)`) and
`[ a \\< b ]`. `bash -n -c '…'` accepts them all.

`stand_in` rewrites each such construct into one of the same shape that tree-sitter does parse
(`<>` becomes `<`, `;;&` becomes `;;`, the lone `$` is escaped, an extended glob becomes a plain
word), so the router sees the same commands, redirections and operators. The line that runs is
always the original; the stand-in is only looked at.
"""

from __future__ import annotations

import re

__all__ = ["stand_in"]

_REWRITES: tuple[tuple[re.Pattern[str], str], ...] = (
    # `3<>file`, `{fd}<>file`, `<>file`: read and write; `<` has the same shape.
    (re.compile(r"<>"), "<"),
    # `;;&` (test the next pattern too) and `;&` (fall through) end a case item like `;;`.
    (re.compile(r";;&|(?<!;);&"), ";;"),
    # A `$` followed by what cannot start an expansion is a literal dollar sign.
    (re.compile(r"\$(?=[/.,:;%^~+=\]}\\|&)<>\s]|$)"), r"\\$"),
    # Extended globs `?(…)`, `*(…)`, `+(…)`, `@(…)`, `!(…)` inside or after a word.
    (re.compile(r"(?<=[^\s;&|(])[?*+@!]\([^()]*\)|(?<=\s)[?*+@]\([^()]*\)"), "extglob"),
    (re.compile(r"(?<=\s)!\([^()]*\)(?=[\s;&|)]|$)"), "extglob"),
    # `\<` and `\>` are the string comparisons of `[`.
    (re.compile(r"\\[<>]"), "-lt"),
)


def stand_in(line: str) -> str | None:
    """The line with the constructs tree-sitter misreads rewritten, or None when it has none."""
    rewritten = line
    for pattern, replacement in _REWRITES:
        rewritten = pattern.sub(replacement, rewritten)
    return None if rewritten == line else rewritten
