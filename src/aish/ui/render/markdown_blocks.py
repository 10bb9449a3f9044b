"""Cutting a streamed markdown reply into blocks as soon as each one is complete.

Pure and incremental: text goes in chunk by chunk, complete lines are classified once, and a
block comes out when something proves it finished — a blank line, a closing fence, or a line
that starts another block. `CMD:` lines (the rule of `docs/cmd-lines.md`, inside code fences
too) and headings are blocks of one line; a list comes out item by item (with its indented
continuation and nested items), so a long list never has to wait for its end. Work is
proportional to the text fed: nothing already classified is looked at again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

BlockKind = Literal["paragraph", "heading", "rule", "list", "quote", "table", "code", "command"]

_CMD = re.compile(r"\s*(?:[-*+]\s+|\d+[.)]\s+)?`{0,3}(?:CMD&?|DELEGATE):")
_HEADING = re.compile(r" {0,3}#{1,6}(?:[ \t]|$)")
_RULE = re.compile(r" {0,3}([-*_])[ \t]*(?:\1[ \t]*){2,}$")
_SETEXT = re.compile(r" {0,3}(?:=+|-+)[ \t]*$")
_FENCE = re.compile(r"( {0,3})(`{3,}|~{3,})(.*)$")
_QUOTE = re.compile(r" {0,3}>")
_TABLE_ROW = re.compile(r" {0,3}\|")
_LIST_ITEM = re.compile(r" {0,3}(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)")


@dataclass(frozen=True)
class Block:
    """A finished piece of the reply.

    `text` is the markdown source (for `code`: the code alone, without its fences; for
    `command`: the line as written). `end` is the offset in the whole stream just after the
    block's last line; `blank_before` says blank lines separated it from the block before.
    """

    kind: BlockKind
    text: str
    end: int
    lang: str = ""
    blank_before: bool = False


class BlockSplitter:
    def __init__(self) -> None:
        self._partial: list[str] = []  # the line being received, in pieces
        self._offset = 0  # stream offset where the line being received starts
        self._kind: BlockKind | None = None
        self._lines: list[str] = []
        self._end = 0  # stream offset after the current block's last non-blank line
        self._blank_before = False
        self._blanks = 0  # blank lines seen since the current block's last line
        self._fence = ""  # the opening fence's characters while in a code block
        self._lang = ""

    def feed(self, text: str) -> list[Block]:
        """Blocks completed by `text`, in order."""
        out: list[Block] = []
        start = 0
        while (newline := text.find("\n", start)) >= 0:
            self._partial.append(text[start:newline])
            line = "".join(self._partial)
            self._partial.clear()
            self._line(line, out)
            start = newline + 1
        if start < len(text):
            self._partial.append(text[start:])
        return out

    def flush(self) -> list[Block]:
        """The end of the reply: everything still held, the unfinished last line included."""
        out: list[Block] = []
        if self._partial:
            line = "".join(self._partial)
            self._partial.clear()
            self._line(line, out, newline=False)
        if self._kind is not None:
            out.append(self._finish())
        self._blanks = 0
        self._blank_before = False
        return out

    @property
    def offset(self) -> int:
        """How much of the stream has been fed, in characters."""
        return self._offset + sum(len(piece) for piece in self._partial)

    # ---- one complete line -------------------------------------------------------------------

    def _line(self, line: str, out: list[Block], *, newline: bool = True) -> None:
        end = self._offset + len(line) + newline
        if self._kind == "code":
            self._code_line(line, end, out)
        elif not line.strip():
            self._blank(out)
        elif self._continues(line):
            self._lines.extend([""] * self._blanks)
            self._blanks = 0
            self._lines.append(line)
            self._end = end
            if self._kind == "paragraph" and _SETEXT.match(line):
                out.append(self._finish())  # `Title` over `===`: a heading, complete
        else:
            if self._kind is not None:
                out.append(self._finish())
            self._start(line, end, out)
        self._offset = end

    def _blank(self, out: list[Block]) -> None:
        self._blanks += 1
        if self._kind in ("paragraph", "quote", "table"):
            out.append(self._finish())
        elif self._kind is None:
            self._blank_before = True

    def _continues(self, line: str) -> bool:
        kind = self._kind
        if kind is None or _CMD.match(line):
            return False
        if kind == "table":
            return bool(_TABLE_ROW.match(line))
        if kind == "list":
            if line.startswith(("  ", "\t")):
                return True  # indented: the item's own text, nested items, code
            return not self._blanks and not _starts_block(line)  # a lazy continuation
        if kind == "quote" and _QUOTE.match(line):
            return True
        if kind == "paragraph" and _SETEXT.match(line):
            return True
        return not _starts_block(line)

    def _start(self, line: str, end: int, out: list[Block]) -> None:
        self._blank_before = self._blank_before or self._blanks > 0
        self._blanks = 0
        if _CMD.match(line):
            out.append(self._single("command", line, end))
        elif _HEADING.match(line):
            out.append(self._single("heading", line, end))
        elif _RULE.match(line):
            out.append(self._single("rule", line, end))
        elif fence := _FENCE.match(line):
            marks, info = fence.group(2), fence.group(3)
            if marks[0] == "`" and "`" in info:  # not a fence: inline code
                self._open("paragraph", line, end)
            else:
                self._open("code", "", end)
                self._lines.clear()
                self._fence = marks
                self._lang = info.strip().split(" ")[0] if info.strip() else ""
        elif _QUOTE.match(line):
            self._open("quote", line, end)
        elif _TABLE_ROW.match(line):
            self._open("table", line, end)
        elif _LIST_ITEM.match(line):
            self._open("list", line, end)
        else:
            self._open("paragraph", line, end)

    def _code_line(self, line: str, end: int, out: list[Block]) -> None:
        stripped = line.strip()
        if (
            len(line) - len(line.lstrip(" ")) <= 3
            and stripped.startswith(self._fence)
            and set(stripped) == {self._fence[0]}
        ):
            self._end = end
            out.append(self._finish())
        elif _CMD.match(line):
            # A command stands out even inside a fence: the code so far, the command, and the
            # fence goes on.
            if self._lines:
                out.append(self._finish(keep_fence=True))
            out.append(self._single("command", line, end, keep_open=True))
            self._end = end
        else:
            self._lines.append(line)
            self._end = end

    # ---- blocks ------------------------------------------------------------------------------

    def _open(self, kind: BlockKind, line: str, end: int) -> None:
        self._kind = kind
        self._lines = [line]
        self._end = end

    def _single(self, kind: BlockKind, line: str, end: int, *, keep_open: bool = False) -> Block:
        block = Block(kind, line, end, blank_before=self._blank_before)
        self._blank_before = False
        if not keep_open:
            self._kind = None
        return block

    def _finish(self, *, keep_fence: bool = False) -> Block:
        assert self._kind is not None
        text = "\n".join(self._lines)
        if self._kind == "code":
            text = text + "\n" if self._lines else ""
        block = Block(self._kind, text, self._end, self._lang, self._blank_before)
        self._lines = []
        self._blank_before = False
        if not keep_fence:
            self._kind = None
            self._fence = self._lang = ""
        if self._kind is None and self._blanks:
            self._blank_before = True
        return block


def _starts_block(line: str) -> bool:
    """Whether `line` begins a block of its own (and so ends a paragraph, quote or item)."""
    return bool(
        _CMD.match(line)
        or _HEADING.match(line)
        or _RULE.match(line)
        or _FENCE.match(line)
        or _QUOTE.match(line)
        or _TABLE_ROW.match(line)
        or _LIST_ITEM.match(line)
    )
