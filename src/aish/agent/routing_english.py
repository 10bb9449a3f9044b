"""The English-sentence exception of line routing (SPEC §1).

A line can start with a real command word and still be a request in English: `find the largest
files in my home dir`, `make it faster`. This module decides, deterministically, whether a
simple command reads as such a sentence. It only looks at the words; the caller has already
checked that the line is one plain simple command (no operators, redirections, assignments or
expansions) whose command word is a known name.

The rule, in order:

1. Commands that take free text (`echo`, `printf`, …) are never sentences.
2. Every argument must look like a word of prose: letters and digits, inner hyphens or
   apostrophes, and optional trailing punctuation (`.,!?:`). Anything else — a flag (`-l`), a
   path (`/`, `~`, `./x`), a file name with a dot (`backup.sh`), a glob (`*`, a lone `?`), `=`,
   `@`, `%`, `+`, a quoted argument — is a sign of a command, and the line stays a command.
3. The remaining words are scored: a pronoun or "please" scores 2; an article or possessive
   scores 2 when another word follows it (`cd my` names a directory, `the file` does not) and 1
   otherwise; a preposition, conjunction, auxiliary or question word scores 1; a trailing `?`
   or `!` scores 1 when there are at least two arguments (`ls a?` is a glob); a word ending in a
   comma scores 1. A score of 2 or more makes the line a sentence.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["FREE_TEXT_COMMANDS", "SentenceVerdict", "read_as_sentence"]

FREE_TEXT_COMMANDS = frozenset(
    {"echo", "printf", "logger", "wall", "yes", "banner", "figlet", "cowsay", "notify-send", "say"}
)

_PRONOUNS = frozenset({"it", "me", "them", "us", "him", "this", "that", "please", "something"})
_DETERMINERS = frozenset(
    {
        "the",
        "a",
        "an",
        "my",
        "your",
        "our",
        "their",
        "his",
        "her",
        "its",
        "these",
        "those",
        "every",
        "each",
        "some",
        "any",
    }
)
_PARTICLES = frozenset(
    {
        # prepositions and conjunctions
        "in",
        "on",
        "at",
        "of",
        "to",
        "for",
        "from",
        "with",
        "without",
        "into",
        "about",
        "by",
        "up",
        "over",
        "under",
        "and",
        "or",
        "but",
        "than",
        "then",
        "so",
        "vs",
        # auxiliaries and question words ("i" and "am" are left out: `who am i`)
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "do",
        "does",
        "did",
        "can",
        "could",
        "should",
        "would",
        "will",
        "not",
        "what",
        "why",
        "how",
        "which",
        "where",
        "when",
        "who",
        "all",
        "again",
        "you",
        "we",
        "there",
        "here",
    }
)
_TRAILING_PUNCTUATION = ".,!?:"
_INNER_JOINERS = "-'’"
SENTENCE_THRESHOLD = 2


@dataclass(frozen=True)
class SentenceVerdict:
    """Whether the words read as an English sentence, with the evidence for the reason line."""

    is_sentence: bool
    score: int
    evidence: tuple[str, ...]
    blocker: str | None = None


def read_as_sentence(command: str, arguments: Sequence[tuple[str, bool]]) -> SentenceVerdict:
    """Score `command` followed by `arguments` (each `(text, quoted)`) as an English sentence."""
    if command in FREE_TEXT_COMMANDS:
        return SentenceVerdict(False, 0, (), blocker=f"`{command}` takes free text")
    words: list[str] = []
    for text, quoted in arguments:
        if quoted or not _is_prose_word(text):
            return SentenceVerdict(False, 0, (), blocker=f"`{text}` looks like shell syntax")
        words.append(text)
    clues: list[tuple[str, int]] = []
    for index, text in enumerate(words):
        bare = text.rstrip(_TRAILING_PUNCTUATION).lower()
        followed = index + 1 < len(words)
        if bare in _PRONOUNS:
            clues.append((bare, 2))
        elif bare in _DETERMINERS:
            clues.append((bare, 2 if followed else 1))
        elif bare in _PARTICLES:
            clues.append((bare, 1))
        if followed and text.endswith(","):
            clues.append(("a comma", 1))
    if len(words) >= 2 and words[-1].endswith(("?", "!")):
        clues.append((f"a trailing `{words[-1][-1]}`", 1))
    score = sum(weight for _, weight in clues)
    return SentenceVerdict(score >= SENTENCE_THRESHOLD, score, tuple(clue for clue, _ in clues))


def _is_prose_word(text: str) -> bool:
    """Letters/digits with inner hyphens or apostrophes, then optional sentence punctuation."""
    core = text.rstrip(_TRAILING_PUNCTUATION)
    if not core or not (core[0].isalnum() and core[-1].isalnum()):
        return False
    return all(ch.isalnum() or ch in _INNER_JOINERS for ch in core)
