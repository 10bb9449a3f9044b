"""Markdown rendered on a terminal while the reply streams.

The reply is cut into blocks (`markdown_blocks`). A finished block is printed once, rendered
(drawn straight to ANSI text by `ansi` in rich's markdown look, code highlighted with
pygments for the fence's language, `CMD:` lines bold cyan as in plain mode; what that drawing
does not cover goes through rich's renderer), and never touched again. The block in
progress is shown raw as it arrives; when it completes, the cursor goes back up over the rows
that raw text took (counted with the terminal's width) and clears them, and the rendered block
takes their place. Only that block is ever redrawn, so the work stays proportional to the
reply's length. A block that grows taller than the screen could no longer be reached by moving
the cursor up: it stays raw and is left alone.

The caller passes text already made `visible`; a character reference that would decode to an
unseen character (`&#x202E;`) is made visible too before the block is parsed. Importing this
module imports rich: the REPL imports it when the first reply arrives.
"""

from __future__ import annotations

import copy
import io
import re
import shutil
from dataclasses import replace
from typing import TYPE_CHECKING, Any, TextIO, cast

from rich.cells import cell_len
from rich.segment import Segment

from aish.safety.unseen_chars import UNSEEN
from aish.ui.render.ansi import AnsiRenderer
from aish.ui.render.markdown_blocks import Block, BlockSplitter
from aish.ui.render.visible_text import visible

if TYPE_CHECKING:
    from rich.console import Console, RenderableType

_CLEAR_BELOW = "\x1b[J"
_TAB = "    "  # raw text shows tabs as spaces, so its rows can be counted


class MarkdownStream:
    def __init__(self, out: TextIO) -> None:
        self._out = out
        self._splitter = BlockSplitter()
        self._src: list[str] = []  # the stream's text from offset self._base on
        self._base = 0  # where the live (raw, erasable) text starts: always a line start
        self._total = 0
        self._rows = _Rows()
        self._width, self._height = _terminal_size()
        self._frozen = False  # the block in progress outgrew the screen: it stays raw
        self._printed = False  # a block of this reply is on screen
        self._console_cache: Console | None = None
        self._ansi_cache: AnsiRenderer | None = None
        self.ends_with_newline = True

    @property
    def live(self) -> bool:
        """Whether anything of the reply is held or shown raw, waiting to be rendered."""
        return self._total > self._base or bool(self._src)

    def feed(self, text: str) -> None:
        if not text:
            return
        before = self._total
        blocks = self._splitter.feed(text)
        self._src.append(text)
        self._total += len(text)
        if blocks:
            self._complete(blocks, before)
        else:
            self._raw(text)
        self._out.flush()

    def finish(self) -> None:
        """The reply ended, or broke off: render all it has and end its last line."""
        blocks = self._splitter.flush()
        if blocks:
            self._complete(blocks, self._total)
        if not self.ends_with_newline:
            self._out.write("\n")
            self.ends_with_newline = True
        self._out.flush()
        self._src = []
        self._base = self._total
        self._rows = _Rows()
        self._frozen = False
        self._printed = False

    # ---- drawing -----------------------------------------------------------------------------

    def _complete(self, blocks: list[Block], before: int) -> None:
        """Blocks finished by the text from offset `before` on (not yet on screen)."""
        window = "".join(self._src)
        parts: list[str] = []
        at_line_start = True
        if self._frozen:
            # The first block is the one shown raw: finish it raw, render the rest.
            frozen, blocks = blocks[0], blocks[1:]
            if frozen.end >= before:
                rest = _shown(window[before - self._base : frozen.end - self._base])
                parts.append(rest)
                at_line_start = not rest or rest.endswith("\n")
            else:  # the start of what follows it is on screen already
                below = _Rows()
                below.add(
                    _shown(window[frozen.end - self._base : before - self._base]), self._width
                )
                parts.append(_erase(below.above_cursor(self._width)))
            self._frozen = False
            self._printed = True
            end = frozen.end
        else:
            parts.append(_erase(self._rows.above_cursor(self._width)))
        self._width, self._height = _terminal_size()
        for block in blocks:
            end = block.end
            rendered = self._rendered(block)
            if not rendered:
                continue
            if self._printed and block.blank_before:
                parts.append("\n")
            parts.append(rendered)
            self._printed = True
            at_line_start = True
        tail = window[end - self._base :]
        self._src = [tail] if tail else []
        self._base = end
        self._rows = _Rows()
        self._out.write("".join(parts))
        self.ends_with_newline = at_line_start
        if tail:
            self._raw(tail)

    def _raw(self, text: str) -> None:
        shown = _shown(text)
        self._out.write(shown)
        self.ends_with_newline = text.endswith("\n")
        if not self._frozen:
            self._rows.add(shown, self._width)
            self._frozen = self._rows.above_cursor(self._width) >= self._height - 1

    def _rendered(self, block: Block) -> str:
        ansi = self._ansi()
        ansi.width = self._width
        if block.kind == "command":
            return ansi.command(block.text)
        if not block.text.strip():
            return ""
        if block.kind == "code":
            return ansi.code(block.text, block.lang)
        block = replace(block, text=without_hidden_references(block.text))
        drawn = ansi.markdown(block.text, block.kind)
        return drawn if drawn is not None else self._rich(block, ansi)

    def _rich(self, block: Block, ansi: AnsiRenderer) -> str:
        """What the direct drawing leaves aside (raw HTML, images, a too-wide table, ...):
        rich's renderer, its segments written out in one pass."""
        console = self._console()
        console.width = self._width
        lines = _trimmed(console.render_lines(_renderable(block), pad=False))
        return "".join(
            "".join(
                ansi.styled(segment.text, segment.style) if segment.style else segment.text
                for segment in line
                if not segment.control
            )
            + "\n"
            for line in lines
        )

    def _ansi(self) -> AnsiRenderer:
        if self._ansi_cache is None:
            from rich.console import COLOR_SYSTEMS

            console = self._console()
            system = COLOR_SYSTEMS.get(console.color_system or "")
            self._ansi_cache = AnsiRenderer(system, no_color=console.no_color)
        return self._ansi_cache

    def _console(self) -> Console:
        if self._console_cache is None:
            from rich.console import Console

            self._console_cache = Console(
                file=io.StringIO(), force_terminal=True, highlight=False, emoji=False
            )
        return self._console_cache


def _renderable(block: Block) -> RenderableType:
    if block.kind == "code":
        from rich.syntax import Syntax

        return Syntax(
            block.text.rstrip("\n"),
            block.lang or "text",
            theme="ansi_dark",
            background_color="default",
            word_wrap=True,
            padding=(0, 0, 0, 2),
        )
    return _markdown(block.text)


_TEMPLATE: list[Any] = []  # one Markdown (and so one parser) copied for every block


def _markdown(text: str) -> RenderableType:
    from rich.markdown import Markdown

    if not _TEMPLATE:
        # Links as text and address: a link's text must not hide where it goes.
        _TEMPLATE.append(Markdown("", code_theme="ansi_dark", justify="default", hyperlinks=False))
    template = _TEMPLATE[0]
    parser = getattr(template, "_aish_parser", None)
    if parser is None or not hasattr(template, "parsed"):
        from markdown_it import MarkdownIt

        # rich builds this parser for every Markdown it makes; building it costs as much as
        # parsing a paragraph, so every block shares one.
        parser = MarkdownIt().enable("strikethrough").enable("table")
        template._aish_parser = parser
    markdown = copy.copy(template)
    markdown.markup = text
    markdown.parsed = parser.parse(text)
    return cast("RenderableType", markdown)


def _trimmed(lines: list[list[Segment]]) -> list[list[Segment]]:
    """Without blank lines around the block or spaces padding its lines: the reply's own
    blank lines separate blocks."""

    def blank(line: list[Segment]) -> bool:
        return all(not segment.text.strip() for segment in line)

    start, stop = 0, len(lines)
    while start < stop and blank(lines[start]):
        start += 1
    while stop > start and blank(lines[stop - 1]):
        stop -= 1
    trimmed = []
    for line in lines[start:stop]:
        line = list(line)
        while line and not line[-1].text.strip() and _no_background(line[-1]):
            line.pop()
        if line and _no_background(line[-1]):
            last = line[-1]
            line[-1] = Segment(last.text.rstrip(" "), last.style, last.control)
        trimmed.append(line)
    return trimmed


def _no_background(segment: Segment) -> bool:
    style = segment.style
    return style is None or style.bgcolor is None or style.bgcolor.is_default


class _Rows:
    """Rows the raw text took on screen, counted as it is written (never re-read)."""

    def __init__(self) -> None:
        self._done = 0  # rows of the lines already ended
        self._cells = 0  # cells of the line the cursor is on

    def add(self, text: str, width: int) -> None:
        lines = text.split("\n")
        self._cells += cell_len(lines[0])
        for line in lines[1:]:
            self._done += max(1, -(-self._cells // width))
            self._cells = cell_len(line)

    def above_cursor(self, width: int) -> int:
        # A full row leaves the cursor on it (pending wrap), not on the next one.
        return self._done + max(0, -(-self._cells // width) - 1)


def _erase(rows: int) -> str:
    return ("\r" + (f"\x1b[{rows}F" if rows else "")) + _CLEAR_BELOW


# A character reference as markdown decodes one: `&#x202E;`, `&#8203;`, `&zwnj;`.
_REFERENCE = re.compile(r"&(?:#[xX][0-9a-fA-F]{1,6}|#[0-9]{1,7}|[A-Za-z][A-Za-z0-9]{1,31});")


def without_hidden_references(source: str) -> str:
    """`source` with every character reference that decodes to an unseen character (a bidi
    override, a zero-width space) replaced by that character made `visible`: the text was
    escaped before it was parsed, and the parser must not bring such a character back."""
    if "&" not in source:
        return source
    import html

    def shown(match: re.Match[str]) -> str:
        decoded = html.unescape(match.group())
        return visible(decoded) if UNSEEN.search(decoded) else match.group()

    return _REFERENCE.sub(shown, source)


def _shown(text: str) -> str:
    return text.replace("\t", _TAB)


def _terminal_size() -> tuple[int, int]:
    size = shutil.get_terminal_size()
    return max(size.columns, 10), max(size.lines, 3)
