"""Spotting `CMD:` lines (and `CMD&:`, `DELEGATE:`) while a reply streams, so they can be shown
highlighted, each on a line of its own.

Text streams straight through. Only at the start of a line is output held back, and only while
what has arrived could still become a `CMD:` line (after bullets, numbering, backticks and
indentation — the same rule as `agent.actions`); such a line is released whole once it ends,
so the frontend can style it. Anything else is released as soon as it cannot be one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Everything a CMD: line may start with, as a prefix pattern: partial matches keep holding.
_LEAD = re.compile(r"\s*(?:[-*+]\s+|\d+[.)]\s+)?`{0,3}")
# The lines a reply proposes an action with (`agent.actions`).
_MARKS = ("CMD:", "CMD&:", "DELEGATE:")
# Decoration so far with nothing after it yet: a bullet, digits or spaces may still lead to CMD:.
_PARTIAL_LEAD = re.compile(r"\s*(?:[-*+]|\d+[.)]?)?\s*`{0,3}")


@dataclass(frozen=True)
class Piece:
    text: str
    is_command_line: bool = False


class CmdLineSplitter:
    def __init__(self) -> None:
        self._held = ""
        self._at_line_start = True
        self._in_command_line = False

    def feed(self, text: str) -> list[Piece]:
        pieces: list[Piece] = []
        for char in text:
            pieces.extend(self._char(char))
        return _merged(pieces)

    def flush(self) -> list[Piece]:
        held, self._held = self._held, ""
        is_command = self._in_command_line
        self._in_command_line = False
        self._at_line_start = True
        return [Piece(held, is_command)] if held else []

    def _char(self, char: str) -> list[Piece]:
        if self._in_command_line:
            self._held += char
            if char == "\n":
                return self.flush()
            return []
        if not self._at_line_start:
            self._at_line_start = char == "\n"
            return [Piece(char)]
        self._held += char
        if char == "\n":
            return self.flush()
        if _could_become_command(self._held):
            self._in_command_line = _is_command_start(self._held)
            return []
        held, self._held = self._held, ""
        self._at_line_start = False
        return [Piece(held)]


def _is_command_start(text: str) -> bool:
    lead = _LEAD.match(text)
    return lead is not None and text[lead.end() :].startswith(_MARKS)


def _could_become_command(text: str) -> bool:
    if _is_command_start(text) or _PARTIAL_LEAD.fullmatch(text):
        return True
    lead = _LEAD.match(text)
    assert lead is not None  # every part of the pattern is optional
    rest = text[lead.end() :]
    return any(mark.startswith(rest) for mark in _MARKS)


def _merged(pieces: list[Piece]) -> list[Piece]:
    out: list[Piece] = []
    for piece in pieces:
        if out and out[-1].is_command_line == piece.is_command_line and not piece.is_command_line:
            out[-1] = Piece(out[-1].text + piece.text)
        else:
            out.append(piece)
    return out
