"""Arithmetic text as bash evaluates it: the names it reads and what in it is never literal.

Bash evaluates arithmetic recursively: a name's value is itself evaluated as an expression, and
an array subscript inside that value runs any `$(…)` in it. So `$((n+1))` runs a command when
`n` holds `a[$(rm -rf ~)]`, and so do `$[n]`, `(( n > 3 ))`, `let n++`, `[[ n -eq 1 ]]`, an
array subscript `${a[n]}` and a substring offset `${x:n}`. `read_arithmetic` reads the text of
such an expression (before the shell expands it) and says which names it reads, which it only
assigns, and the first part whose value no reading of the line can know: a command's output, a
positional parameter, an array element, a quote or anything unfamiliar. Whether a read name
is literal depends on the rest of the line; `evaluated_data` decides that.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Arithmetic", "read_arithmetic"]


@dataclass(frozen=True)
class Arithmetic:
    """What an arithmetic expression reads. `opaque` is the first part that is never literal."""

    reads: tuple[str, ...]
    assigns: tuple[str, ...]
    opaque: str | None


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Numbers in any base bash accepts: 42, 0x2A, 052, 16#2a, 64#_@.
_NUMBER = re.compile(r"[0-9][0-9A-Za-z_@#]*")
_OPERATOR_CHARS = frozenset("+-*/%<>=!~&|^?:,()")
# `${#x}`, `${#}`, `${#a[@]}`: lengths and counts are numbers whatever the values are.
_LENGTH = re.compile(r"#(?:[A-Za-z_][A-Za-z0-9_]*(?:\[[@*]\])?|[@*#]?)")
# `$#`, `$?`, `$$`, `$!`: numbers (or empty, which evaluates to 0) by construction.
_NUMERIC_SPECIALS = frozenset("#?$!")


def read_arithmetic(text: str) -> Arithmetic:
    """The names `text` reads and assigns, and its first never-literal part (None if none)."""
    reads: list[str] = []
    assigns: list[str] = []
    i, end = 0, len(text)
    while i < end:
        char = text[i]
        if char.isspace() or char == '"':  # double quotes are removed before evaluation
            i += 1
        elif char.isdigit():
            number = _NUMBER.match(text, i)
            assert number is not None
            i = number.end()
        elif char.isalpha() or char == "_":
            name = _NAME.match(text, i)
            assert name is not None
            i = name.end()
            after = _skip_spaces(text, i)
            if text.startswith("[", after):
                return Arithmetic(tuple(reads), tuple(assigns), f"{name.group()}[…]")
            if text.startswith("=", after) and not text.startswith("==", after):
                assigns.append(name.group())  # a plain assignment does not read the old value
            else:
                reads.append(name.group())
        elif char == "$":
            i, read, opaque = _dollar(text, i)
            if opaque is not None:
                return Arithmetic(tuple(reads), tuple(assigns), opaque)
            reads += [read] if read else []
        elif char in _OPERATOR_CHARS:
            i += 1
        else:
            return Arithmetic(tuple(reads), tuple(assigns), _describe(text[i:]))
    return Arithmetic(tuple(reads), tuple(assigns), None)


def _dollar(text: str, i: int) -> tuple[int, str | None, str | None]:
    """After a `$` at `i`: where reading goes on, the name it reads, or why it is opaque."""
    rest = text[i + 1 : i + 2]
    if text.startswith("$((", i):
        return i + 3, None, None  # nested arithmetic: its parentheses read as parentheses
    if rest in ("(", "["):
        return i, None, _describe(text[i:])
    if rest in _NUMERIC_SPECIALS and rest:
        return i + 2, None, None
    name = _NAME.match(text, i + 1)
    if name is not None:
        return name.end(), name.group(), None
    if rest == "{":
        close = text.find("}", i)
        inner = text[i + 2 : close] if close > 0 else ""
        if close < 0:
            return i, None, _describe(text[i:])
        if _LENGTH.fullmatch(inner) or (len(inner) == 1 and inner in _NUMERIC_SPECIALS):
            return close + 1, None, None
        if _NAME.fullmatch(inner):
            return close + 1, inner, None
        return i, None, f"${{{inner}}}"
    return i, None, _describe(text[i:])  # `$1`, `$@`, `$-`: not numbers anyone can vouch for


def _skip_spaces(text: str, i: int) -> int:
    while i < len(text) and text[i] in " \t\n":
        i += 1
    return i


def _describe(text: str) -> str:
    """The part of `text` a reason names: a whole `$(…)`, else the first word."""
    first = text.split()[0] if text.split() else text
    if text.startswith(("$(", "$[")):
        closing = {"(": ")", "[": "]"}[text[1]]
        depth = 0
        for index, char in enumerate(text):
            depth += char == text[1]
            depth -= char == closing
            if depth == 0 and index > 1:
                first = text[: index + 1]
                break
    return first if len(first) <= 24 else first[:23] + "…"
