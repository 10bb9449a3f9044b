"""Reading an awk program: what it can write or run, with its literals out of the way.

An awk program is read as awk reads it, in one pass: string literals, regex literals and
comments are data, so a `>` or `system(` inside them means nothing, while a quote inside a
regex (`/"/`) or a comment must not start a string that hides real code. Whether a `/` starts
a regex or divides follows the grammar: a regex where an operand is expected (at the start,
after `(`, `,`, `{`, `;`, `!`, `~`, `&&`, `||`, an operator, a newline, `print`, or the `)`
that closes an `if`/`while`/`for` condition), a division after an operand. Where awks
disagree (a `/` inside a bracket expression, a `/` after `getline`) the program is not read.
"""

from __future__ import annotations

import re

from aish.safety.reasons import destructive, unknown
from aish.safety.verdict import Verdict

# String literals that name no file of the user's: output there writes nothing.
HARMLESS_TARGETS = ('"/dev/stderr"', '"/dev/stdout"', '"/dev/null"', '"/dev/tty"', '"-"')

_PRINT = re.compile(r"\bprintf?\b([^;{}\n]*)")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9.]+(?:[eE][+-]?[0-9]+)?")
# Words after which a `/` starts a regex: an expression is expected next.
_EXPRESSION_AFTER = frozenset(("print", "printf", "return", "case", "do", "else", "in", "exit"))
_CONDITION_OF = frozenset(("if", "while", "for"))
_REGEX, _DIVIDE, _UNSURE = 0, 1, 2


def awk_program_verdict(text: str | None) -> Verdict | None:
    """Why the awk program `text` could write a file or run a command, or None."""
    if text is None:
        return unknown("awk program is computed at run time")
    code = awk_code(text)
    if code is None:
        return unknown("awk program cannot be read reliably (a / awks read differently)")
    if "@" in code:
        return unknown("gawk @include/@load or an indirect call can run anything")
    if re.search(r"\bsystem\s*\(", code):
        return unknown("awk system() runs commands")
    if "|" in code.replace("||", ""):
        return unknown("awk pipes to or from a command")
    for match in _PRINT.finditer(code):
        statement = _without_parentheses(match.group(1))
        for harmless in HARMLESS_TARGETS:
            statement = statement.replace(f">> {harmless}", "").replace(f">{harmless}", "")
            statement = statement.replace(f"> {harmless}", "").replace(f">>{harmless}", "")
        if ">>" in statement:
            return unknown("awk print >> appends to a file")
        if ">" in statement:
            return destructive("awk print > writes over a file")
    return None


def awk_code(text: str) -> str | None:
    """The program with string literals blanked to `""` (but for harmless device names), regex
    literals to `//` and comments removed; None when awks could read it differently."""
    out: list[str] = []
    i, n = 0, len(text)
    slash = _REGEX
    word = ""
    # One entry per open `(`: whether it holds the condition of an if/while/for.
    conditions: list[bool] = []
    while i < n:
        c = text[i]
        if c == '"':
            end = _string_end(text, i)
            if end is None:
                return None
            literal = text[i:end]
            out.append(literal if literal in HARMLESS_TARGETS else '""')
            i, slash, word = end, _DIVIDE, ""
            continue
        if c == "/" and slash != _DIVIDE:
            end = _regex_end(text, i) if slash == _REGEX else None
            if end is None:
                return None
            out.append("//")
            i, slash, word = end, _DIVIDE, ""
            continue
        if c == "#":
            end = text.find("\n", i)
            i = n if end < 0 else end
            continue
        if c == "\\" and text.startswith("\n", i + 1):
            out.append(" ")  # a continued line
            i += 2
            continue
        match = _NAME.match(text, i)
        if match:
            word = match.group(0)
            out.append(word)
            i = match.end()
            if word == "getline":
                slash = _UNSURE
            else:
                slash = _REGEX if word in _EXPRESSION_AFTER else _DIVIDE
            continue
        out.append(c)
        i += 1
        if c in " \t\r":
            continue
        if c == "(":
            conditions.append(word in _CONDITION_OF)
            slash = _REGEX
        elif c == ")":
            slash = _REGEX if conditions and conditions.pop() else _DIVIDE
        elif c == "]":
            slash = _DIVIDE
        elif c in "+-" and text.startswith(c, i):
            out.append(c)  # `x++ / 2` divides
            i += 1
            slash = _DIVIDE
        else:
            slash = _REGEX
        word = ""
    return "".join(out)


def _string_end(text: str, start: int) -> int | None:
    i = start + 1
    while i < len(text):
        c = text[i]
        if c == "\\":
            i += 2
        elif c == '"':
            return i + 1
        elif c == "\n":
            return None
        else:
            i += 1
    return None


def _regex_end(text: str, start: int) -> int | None:
    """The index after the regex literal starting at `start`; None when it does not end on
    its line, or when a bracket expression holds a `/` (gawk reads `[/]` as a class, other
    awks end the regex there)."""
    i = start + 1
    while i < len(text):
        c = text[i]
        if c == "\n":
            return None
        if c == "\\":
            i += 2
        elif c == "/":
            return i + 1
        elif c == "[":
            end = _bracket_end(text, i)
            if end is None:
                return None
            i = end
        else:
            i += 1
    return None


def _bracket_end(text: str, start: int) -> int | None:
    i = start + 1
    if text.startswith("^", i):
        i += 1
    if text.startswith("]", i):
        i += 1  # a leading `]` is a member
    while i < len(text):
        c = text[i]
        if c in "/\n":
            return None
        if c == "\\":
            i += 2
        elif c == "[" and text[i + 1 : i + 2] in (":", ".", "="):
            close = text.find(text[i + 1] + "]", i + 2)
            if close < 0 or "/" in text[i:close] or "\n" in text[i:close]:
                return None
            i = close + 2
        elif c == "]":
            return i + 1
        else:
            i += 1
    return None


def _without_parentheses(text: str) -> str:
    """`print ($1 > 5)` compares; only a `>` outside parentheses redirects. Balanced groups
    are dropped in one pass; an unmatched `(` stays with what follows it."""
    out: list[str] = []
    opened: list[int] = []
    for c in text:
        if c == "(":
            opened.append(len(out))
            out.append(c)
        elif c == ")" and opened:
            del out[opened.pop() :]
        else:
            out.append(c)
    return "".join(out)
