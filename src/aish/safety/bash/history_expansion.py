"""Bash history expansion in a line typed at an interactive prompt.

aish types commands into the user's interactive bash, where `!` starts a history expansion
before the line is even parsed: `echo !-2` runs with the words of an earlier line, `ls !!`
re-runs the last one. The parser never sees that text, so a line that uses it cannot be judged
from what is written. This finds such a `!` the way bash's history expander does: not inside
single quotes, not after a backslash, not before a blank, `=` or `(`, and not in `$!`, `${!`
or a `[!…]` bracket. A line that begins with `^` is bash's quick substitution: `^old^new`
re-runs the previous command with `old` replaced, whatever follows (bash expands every line it
reads at the prompt, so the start of each line of a multi-line text counts).
"""

from __future__ import annotations

_NOT_AFTER = frozenset(" \t\r\n=(")


def history_expansion(line: str) -> str | None:
    """The first `!…` or quick substitution (`^old^new`) that bash would expand in `line`, or
    None."""
    quick = _quick_substitution(line)
    if quick is not None:
        return quick
    if "!" not in line:
        return None
    quote = ""
    i = 0
    while i < len(line):
        ch = line[i]
        if ch == "\\" and quote != "'":
            i += 2
            continue
        if ch == "'" and quote != '"':
            quote = "" if quote == "'" else "'"
        elif ch == '"' and quote != "'":
            quote = "" if quote == '"' else '"'
        elif ch == "!" and quote != "'" and _expands(line, i, quote):
            end = i + 1
            while end < len(line) and not line[end].isspace() and end - i < 24:
                end += 1
            return line[i:end]
        i += 1
    return None


def _quick_substitution(text: str) -> str | None:
    for line in text.splitlines():
        if line.startswith("^") and len(line) > 1:
            return line.split(maxsplit=1)[0][:24]
    return None


def _expands(line: str, i: int, quote: str) -> bool:
    after = line[i + 1] if i + 1 < len(line) else ""
    if not after or after in _NOT_AFTER:
        return False
    if quote == '"' and after == '"':
        return False  # bash leaves a `!` just before the closing double quote alone
    before = line[max(0, i - 2) : i]
    return not (before.endswith("$") or before.endswith("${") or before.endswith("["))
