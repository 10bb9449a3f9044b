"""Whether Enter ends the typed input or asks for another line (SPEC §1, multi-line input).

Bash shows its continuation prompt when the text is unfinished shell syntax (see
`safety.bash.continuation`); so does aish, and the router then decides once, on the whole input.
Two kinds of input are never continued, because they are not shell syntax at all:

- the prefixes that decide by themselves: `:word …` (a meta command, `:ask`) and `?…`;
- one line that is open only because of an apostrophe in a word and reads as English:
  `what's wrong`, `don't do that`, `it's broken`, `why doesn't this work`. Every word must be a
  word of prose (letters and digits, inner apostrophes or hyphens, sentence punctuation), and
  either the first word is no command at all, or the line reads as an English sentence by the
  router's own rule (`english`). So `echo don't` or `grep -r don't .` still continue, as
  in bash; once a second line has begun the input is shell syntax and stays so.
"""

from __future__ import annotations

import re

from aish.agent.routing.english import read_as_sentence
from aish.agent.routing.router import KnownCommands
from aish.safety.bash.continuation import Unfinished, unfinished

__all__ = ["needs_another_line"]

# A word of prose: letters or digits, apostrophes or hyphens inside (or one closing a plural
# possessive, `users'`), then optional sentence punctuation.
_PROSE_WORD = re.compile(r"[^\W_](?:[\w'’-]*[^\W_])?['’]?[.,!?:]*")
_APOSTROPHES = "'’"


def needs_another_line(text: str, known: KnownCommands) -> Unfinished | None:
    """What keeps `text` open, so Enter should continue it; None when Enter ends the input."""
    stripped = text.strip()
    if not stripped or _forced_elsewhere(stripped):
        return None
    found = unfinished(text)
    if found is None or "\n" in stripped:
        return found
    if _apostrophe_in_word(text, found) and _reads_as_english(stripped, known):
        return None
    return found


def _forced_elsewhere(line: str) -> bool:
    """`:word`, `:ask …` and `?…` go where their prefix says, whatever follows."""
    return line.startswith("?") or (line.startswith(":") and line[1:2].isalpha())


def _apostrophe_in_word(text: str, found: Unfinished) -> bool:
    """The open quote is a `'` right after a letter: an apostrophe, not a quoted word."""
    return (
        found.kind == "quote"
        and found.token == "'"
        and found.offset > 0
        and text[found.offset - 1].isalpha()
    )


def _reads_as_english(line: str, known: KnownCommands) -> bool:
    words = line.split()
    if not all(_PROSE_WORD.fullmatch(word) for word in words):
        return False
    first, rest = words[0], words[1:]
    if first not in known:
        return True
    return read_as_sentence(first, [(word, False) for word in rest]).is_sentence
