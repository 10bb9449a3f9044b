"""The English-sentence exception of line routing (SPEC §1).

A line can start with a real command word and still be a request in English: `find the largest
files in my home dir`, `make it faster`, `install dependencies`, `yes please`. This module decides,
deterministically, whether a simple command reads as such a sentence. It only looks at the words
and at two questions the caller answers: is a word a command, and does a word name something in
the shell's current directory. The caller has already checked that the line is one plain simple
command (no operators, redirections, assignments or expansions) whose command word is known.

The rule, in order:

1. A reply word (`yes`, `ok`, `sure`, …) followed only by chat words (`please`, `go ahead`,
   `do it`, …) is a reply to the model.
2. Commands that take free text (`echo`, `printf`, `yes`, …) are otherwise never sentences.
3. Every argument must look like a word of prose: letters and digits, inner hyphens or
   apostrophes, and optional trailing punctuation (`.,!?:`). Anything else — a flag (`-l`), a
   path (`/`, `~`, `./x`), a file name with a dot (`backup.sh`), a glob (`*`, a lone `?`), `=`,
   `@`, `%`, `+`, a quoted argument — is a sign of a command, and the line stays a command.
4. The words are scored; a score of 2 or more makes the line a sentence:
   - the words cannot be what the command takes (`exit nano`, `enable mouse support`,
     `install numpy`; see `operands`): 2;
   - a pronoun or "please": 2; an article or possessive: 2 when another word follows it (`cd my`
     names a directory, `the file` does not), else 1; "and"/"or" right after the command word
     (`read and display …`): 2;
   - a preposition, conjunction, auxiliary, quantifier or question word: 1; an adverb in -ly or
     a participle in -ing or -ed: 1; a trailing `?` or `!`: 1 (a lone word ending in `?` also
     needs to match no file, else it is a glob); a word ending in a comma: 1;
   - the word after `time`, `sudo`, `nohup`, … is not a command (`time to go home`): 1;
   - a word that names a file or directory in the current directory counts for the command:
     it scores nothing and takes 1 away (`mv a b` when `a` and `b` exist).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from aish.agent.routing.operands import COMMAND_RUNNERS, operand_misfit

__all__ = ["FREE_TEXT_COMMANDS", "NO_PATHS", "NameTest", "SentenceVerdict", "read_as_sentence"]


def _word_set(text: str) -> frozenset[str]:
    return frozenset(text.split())


NameTest = Callable[[str], bool]
"""A yes/no question about one word as typed: is it a command? does it name a path here?"""

FREE_TEXT_COMMANDS = frozenset(
    {"echo", "printf", "logger", "wall", "yes", "banner", "figlet", "cowsay", "notify-send", "say"}
)

# Replies a person gives the model, and the words that can follow them in a reply.
_REPLY_WORDS = _word_set(
    "yes yeah yep yup sure ok okay alright fine no nope nah thanks cool great perfect"
)
_CHAT_WORDS = _REPLY_WORDS | _word_set(
    "please go ahead do it that this thank you let's lets proceed continue now then right "
    "exactly absolutely definitely sounds good works for me"
)
_PRONOUNS = frozenset({"it", "me", "them", "us", "him", "this", "that", "please", "something"})
_DETERMINERS = _word_set("the a an my your our their his her its these those every each some any")
_PARTICLES = _word_set(
    # prepositions and conjunctions
    "in on at of to for from with without into onto about by up over under and or but than then "
    "so vs until between after before via using through within per if whether as like while "
    "unless because since instead together "
    # auxiliaries and question words ("i" and "am" are left out: `who am i`)
    "is are was were be been do does did can could should would will not what why how which "
    "where when who whose "
    # quantifiers and words of degree
    "all again only also both either other another such same more most many much few several "
    "various no never always just very too given specified specific current existing "
    "multiple entire whole single certain available empty hidden "
    # other pronouns
    "you we there here itself themselves yourself"
)
_CONJUNCTIONS = frozenset({"and", "or"})
# Words in -ing or -ly that are not participles or adverbs.
_NOT_INFLECTED = _word_set(
    "string strings thing things nothing something anything everything ring king ping bring "
    "spring swing sling thong during apply reply supply only family daily early ugly holy"
)
_TRAILING_PUNCTUATION = ".,!?:"
_INNER_JOINERS = "-'’"
SENTENCE_THRESHOLD = 2


def NO_PATHS(word: str) -> bool:
    """No evidence from the filesystem: nothing names a path."""
    return False


@dataclass(frozen=True)
class SentenceVerdict:
    """Whether the words read as an English sentence, with the evidence for the reason line.

    `paths` lists the words that name files or directories here and so counted for the command.
    """

    is_sentence: bool
    score: int
    evidence: tuple[str, ...]
    blocker: str | None = None
    paths: tuple[str, ...] = ()


def read_as_sentence(
    command: str,
    arguments: Sequence[tuple[str, bool]],
    is_command: NameTest | None = None,
    names_path: NameTest = NO_PATHS,
    *,
    judge_operands: bool = True,
) -> SentenceVerdict:
    """Score `command` followed by `arguments` (each `(text, quoted)`) as an English sentence.

    `is_command` says whether a word is a command (without it, what follows `time` or `sudo` is
    not judged); `names_path` whether a word, taken as a path
    (or a glob) relative to the shell's current directory, names something that exists.
    """
    reply = _reply(command, arguments)
    if reply is not None:
        return reply
    if command in FREE_TEXT_COMMANDS:
        return SentenceVerdict(False, 0, (), blocker=f"`{command}` takes free text")
    words: list[str] = []
    for text, quoted in arguments:
        if quoted or not _is_prose_word(text):
            return SentenceVerdict(False, 0, (), blocker=f"`{text}` looks like shell syntax")
        words.append(text)
    paths = tuple(word for word in words if names_path(word))
    clues = _clues(command, words, paths, is_command if judge_operands else None, judge_operands)
    score = sum(weight for _, weight in clues) - len(paths)
    evidence = tuple(clue for clue, _ in clues)
    return SentenceVerdict(score >= SENTENCE_THRESHOLD, score, evidence, paths=paths)


def _reply(command: str, arguments: Sequence[tuple[str, bool]]) -> SentenceVerdict | None:
    """`yes please`, `sure go ahead`, `ok do it`: a reply word and only chat words after it."""
    if command.lower() not in _REPLY_WORDS or not arguments:
        return None
    words = [_bare(text) for text, quoted in arguments if not quoted]
    if len(words) < len(arguments) or not all(word in _CHAT_WORDS for word in words):
        return None
    clue = f"`{words[0]}` after the reply word `{command}`"
    return SentenceVerdict(True, SENTENCE_THRESHOLD, (clue,))


def _clues(
    command: str,
    words: list[str],
    paths: tuple[str, ...],
    is_command: NameTest | None,
    judge_operands: bool,
) -> list[tuple[str, int]]:
    clues: list[tuple[str, int]] = []
    misfit = operand_misfit(command, words) if judge_operands and not paths else None
    if misfit is not None:
        clues.append((misfit, 2))
    if words and is_command is not None and command in COMMAND_RUNNERS and not paths:
        runs = _bare(words[0])
        if not is_command(runs) and not is_command(words[0]):
            clues.append((f"`{runs}` after `{command}` is not a command", 1))
    for index, text in enumerate(words):
        if text in paths:
            continue
        bare = _bare(text)
        followed = index + 1 < len(words)
        if index == 0 and bare in _CONJUNCTIONS:
            clues.append((f"`{bare}` right after the command word", 2))
        elif bare in _PRONOUNS:
            clues.append((bare, 2))
        elif bare in _DETERMINERS:
            clues.append((bare, 2 if followed else 1))
        elif bare in _PARTICLES or _is_inflected(bare):
            clues.append((bare, 1))
        if followed and text.endswith(","):
            clues.append(("a comma", 1))
    last = words[-1] if words else ""
    if last.endswith(("?", "!")) and (len(words) >= 2 or _is_question_word(last, paths)):
        clues.append((f"a trailing `{last[-1]}`", 1))
    return clues


def _is_question_word(word: str, paths: tuple[str, ...]) -> bool:
    """A lone `word?` is a glob unless it is a real word that matches nothing here."""
    return word not in paths and len(_bare(word)) >= 3


def _is_inflected(bare: str) -> bool:
    """A participle or adverb (`running`, `compressed`, `recursively`), by its ending."""
    if bare in _NOT_INFLECTED or not bare.isalpha():
        return False
    return len(bare) >= 6 and bare.endswith(("ing", "ly", "ed"))


def _bare(text: str) -> str:
    return text.rstrip(_TRAILING_PUNCTUATION).lower()


def _is_prose_word(text: str) -> bool:
    """Letters/digits with inner hyphens or apostrophes, then optional sentence punctuation."""
    core = text.rstrip(_TRAILING_PUNCTUATION)
    if not core or not (core[0].isalnum() and core[-1].isalnum()):
        return False
    return all(ch.isalnum() or ch in _INNER_JOINERS for ch in core)
