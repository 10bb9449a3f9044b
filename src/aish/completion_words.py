"""The words of a line being completed, cut the way bash cuts them for completion. Pure.

Bash completes within one simple command: the text after the last `;`, `|`, `&`, `(` or
newline before the cursor, up to the next one after it. A programmable completion function sees
that command split at ``COMP_WORDBREAKS`` (``--color=au`` is three words, ``--color``, ``=``
and ``au``, and a run of break characters is one word of its own), the index of the word under
the cursor, the command's text and the cursor's offset in it. What readline replaces is a
different, shorter word: the text after the last break character (or after an open quote)
before the cursor. Both are computed here, with the command word itself (leading ``NAME=value``
assignments are not it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["WORDBREAKS", "CompletionLine", "completion_line"]

# bash's default COMP_WORDBREAKS.
WORDBREAKS = " \t\n\"'><=;|&(:"
_BLANKS = " \t\n"
_SEPARATORS = ";|&(`\n"
_QUOTES = "'\""
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\[[^]]*\])?\+?=")


@dataclass(frozen=True)
class CompletionLine:
    """What completing at one cursor position needs to know about the line."""

    line: str  # COMP_LINE: the current command, leading blanks dropped
    point: int  # COMP_POINT: the cursor's offset in `line`
    words: tuple[str, ...]  # COMP_WORDS
    cword: int  # COMP_CWORD: index of the word under the cursor
    command: str  # the command word ("" while it is still being typed or absent)
    in_command_position: bool  # the word under the cursor is where a command name goes
    word: str  # readline's word: what completions replace (text from its start to the cursor)
    quote: str  # the open quote the word is in ("'", '"' or "")

    @property
    def previous(self) -> str:
        """The COMP_WORDS word before the current one ("" for the first)."""
        return self.words[self.cword - 1] if self.cword > 0 else ""


def completion_line(text: str, cursor: int) -> CompletionLine:
    """Cut `text` for completing at `cursor` (an offset in `text`)."""
    start, end = _command_span(text, cursor)
    segment = text[start:end]
    blanks = len(segment) - len(segment.lstrip(_BLANKS))
    line = segment[blanks:]
    point = max(0, cursor - start - blanks)
    shell_spans = _split(line, _BLANKS)
    command, command_index, current = "", -1, _index_at(shell_spans, point)
    for index, (word_start, word_end) in enumerate(shell_spans):
        if not _ASSIGNMENT.match(line[word_start:word_end]):
            command, command_index = line[word_start:word_end], index
            break
    in_command = command_index < 0 or current <= command_index
    if in_command:
        command = ""  # still being typed: the command word is what is completed
    elif command_index > 0:
        # Leading assignments are not part of the command bash completes for.
        cut = shell_spans[command_index][0]
        line, point = line[cut:], point - cut
    words, cword = _words_at(line, _split(line, WORDBREAKS), point)
    word, quote = _readline_word(text, cursor)
    return CompletionLine(
        line=line,
        point=point,
        words=words,
        cword=cword,
        command=command,
        in_command_position=in_command,
        word=word,
        quote=quote,
    )


def _scan(text: str, limit: int) -> list[tuple[int, str]]:
    """Each character up to `limit` with the quoting it is in: "" (unquoted), "'", '"', or
    "\\" (escaped by a backslash)."""
    states: list[tuple[int, str]] = []
    quote = ""
    escaped = False
    for index, char in enumerate(text[:limit]):
        if escaped:
            states.append((index, "\\"))
            escaped = False
            continue
        if quote == "'":
            states.append((index, "'"))
            if char == "'":
                quote = ""
            continue
        if char == "\\":
            escaped = True
            states.append((index, quote or "\\"))
            continue
        if quote == '"':
            states.append((index, '"'))
            if char == '"':
                quote = ""
            continue
        if char in _QUOTES:
            quote = char
            states.append((index, char))
            continue
        states.append((index, ""))
    return states


def _is_separator(text: str, index: int) -> bool:
    """An unquoted character at `index` that ends a command (not the `&` of `>&`, `&>`, nor
    the `|` of `>|`)."""
    char = text[index]
    if char not in _SEPARATORS:
        return False
    before = text[index - 1] if index > 0 else ""
    after = text[index + 1] if index + 1 < len(text) else ""
    if char == "&" and (before in ("<", ">") or after == ">"):
        return False
    return not (char == "|" and before == ">")


def _command_span(text: str, cursor: int) -> tuple[int, int]:
    start = 0
    states = _scan(text, len(text))
    for index, quoting in states:
        if index >= cursor:
            if not quoting and _is_separator(text, index):
                return start, index
            continue
        if not quoting and _is_separator(text, index):
            start = index + 1
    return start, len(text)


def _split(line: str, breaks: str) -> list[tuple[int, int]]:
    """Spans of the words of `line`: blanks separate words, and a run of the other unquoted
    characters of `breaks` is a word of its own (quotes never break: bash's SD_NOQUOTEDELIM)."""
    spans: list[tuple[int, int]] = []
    word_start = -1
    run_of_breaks = False
    for index, quoting in _scan(line, len(line)):
        char = line[index]
        is_break = not quoting and char in breaks and char not in _QUOTES
        if is_break and char in _BLANKS:
            if word_start >= 0:
                spans.append((word_start, index))
            word_start = -1
            continue
        if word_start >= 0 and is_break != run_of_breaks:
            spans.append((word_start, index))
            word_start = -1
        if word_start < 0:
            word_start, run_of_breaks = index, is_break
    if word_start >= 0:
        spans.append((word_start, len(line)))
    return spans


def _index_at(spans: list[tuple[int, int]], point: int) -> int:
    """The index of the word the cursor is in or at the end of; where a new word would go
    when it is in blanks."""
    for index, (start, end) in enumerate(spans):
        if start <= point <= end:
            return index
        if point < start:
            return index
    return len(spans)


def _words_at(line: str, spans: list[tuple[int, int]], point: int) -> tuple[tuple[str, ...], int]:
    words = [line[start:end] for start, end in spans]
    index = _index_at(spans, point)
    inside = index < len(spans) and spans[index][0] <= point <= spans[index][1]
    if not inside:
        words.insert(index, "")  # the cursor is in blanks: an empty word is being completed
    return tuple(words), index


def _readline_word(text: str, cursor: int) -> tuple[str, str]:
    """The word readline would complete: after an open quote, or after the last unquoted break
    character before the cursor."""
    states = _scan(text, cursor)
    open_quote, open_at = "", -1
    for index, quoting in states:
        char = text[index]
        if quoting in _QUOTES and quoting and char == quoting:
            # Opening or closing: the state recorded is the quote itself either way.
            if open_quote:
                open_quote, open_at = "", -1
            else:
                open_quote, open_at = char, index
    if open_quote:
        return text[open_at + 1 : cursor], open_quote
    start = 0
    for index, quoting in states:
        if not quoting and text[index] in WORDBREAKS and text[index] not in _QUOTES:
            start = index + 1
    return text[start:cursor], ""
