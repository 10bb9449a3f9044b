"""A finished markdown block turned into terminal text (ANSI) in one pass.

The look is rich's markdown (the same theme: rich's default `markdown.*` styles, code in
rich's `ansi_dark` syntax theme) but drawn directly: markdown-it's tokens are walked once,
text is wrapped with a greedy word wrap, and every styled run is written with its escape
sequence, computed once per style and cached. Code is highlighted with pygments directly,
one cached escape sequence per token type. A paragraph without any inline markup skips the
parser altogether.

What this drawing does not cover (raw HTML, images, a table wider than the screen, ...)
returns `None`, and the caller falls back to rich's own renderer for that block.

Importing this module imports rich's style classes; pygments and markdown-it come with the
first block that needs them.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from typing import TYPE_CHECKING, Any

from rich.cells import cell_len
from rich.color import ColorSystem
from rich.default_styles import DEFAULT_STYLES
from rich.style import Style

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token

RESET = "\x1b[0m"
# What rich's Text drops from what it shows (bell, backspace, vertical tab, form feed, CR).
_CONTROL = {7: None, 8: None, 11: None, 12: None, 13: None}
# Anything here may be inline markup (or an entity, an escape, raw HTML, a hard break):
# such a paragraph goes through the parser.
_MARKUP = re.compile(r"[*_`\[\]<>&\\!~|]|  \n|  $")
_SETEXT = re.compile(r"\n {0,3}(?:=+|-+)[ \t]*$")
_WORD = re.compile(r"\S+\s*|\s+")
_NO_STYLE = Style()


def _theme(name: str) -> Style:
    return DEFAULT_STYLES.get(name, _NO_STYLE)


class AnsiRenderer:
    """Draws blocks at a given width; `None` for what it leaves to rich."""

    def __init__(self, color_system: ColorSystem | None, *, no_color: bool = False) -> None:
        self._color_system = color_system
        self._no_color = no_color
        self._sgr: dict[Style, str] = {}
        self._parser: MarkdownIt | None = None
        self._lexers: dict[str, Any] = {}
        self._token_sgr: dict[Any, str] = {}
        self._syntax_theme: Any = None
        self.width = 80

    # ---- styles ------------------------------------------------------------------------------

    def sgr(self, style: Style) -> str:
        """The escape sequence that starts `style` ("" for none), cached."""
        code = self._sgr.get(style)
        if code is None:
            if self._color_system is None or not style:
                code = ""
            else:
                shown = style.without_color if self._no_color else style
                rendered = shown.render("\0", color_system=self._color_system)
                code = rendered.split("\0", 1)[0] if rendered != "\0" else ""
            self._sgr[style] = code
        return code

    def styled(self, text: str, style: Style) -> str:
        code = self.sgr(style)
        return f"{code}{text}{RESET}" if code and text else text

    # ---- blocks ------------------------------------------------------------------------------

    def command(self, text: str) -> str:
        return self.styled(text.translate(_CONTROL), Style(bold=True, color="cyan")) + "\n"

    def code(self, text: str, lang: str, *, margin: str = "  ", right: int = 0) -> str:
        """Code as rich's `Syntax` shows it here: indented by two, wrapped, highlighted."""
        text = text.translate(_CONTROL).expandtabs(4).rstrip("\n")
        width = max(1, self.width - len(margin) - right)
        lines: list[str] = []
        row: list[str] = []
        cells = 0
        for piece, code in self._highlighted(text, lang):
            for n, part in enumerate(piece.split("\n")):
                if n:
                    lines.append(margin + "".join(row))
                    row, cells = [], 0
                while part:
                    room = width - cells
                    size = cell_len(part) if not part.isascii() else len(part)
                    if size <= room:
                        take, size_taken = part, size
                    else:
                        take = _fit(part, room)
                        if not take and not cells:  # a character wider than the row
                            take = part[0]
                        size_taken = cell_len(take)
                    if take:
                        row.append(f"{code}{take}{RESET}" if code and take.strip() else take)
                        cells += size_taken
                        part = part[len(take) :]
                    if part:
                        lines.append(margin + "".join(row))
                        row, cells = [], 0
        lines.append(margin + "".join(row))
        return "".join(line.rstrip(" ") + "\n" for line in lines)

    def markdown(self, text: str, kind: str = "") -> str | None:
        """Prose (any block kind but code and commands) drawn, or None to leave it to rich."""
        text = text.translate(_CONTROL)
        if (
            kind == "paragraph"
            and not _MARKUP.search(text)
            and not _SETEXT.search(text)
            and not text.startswith(("    ", "\t"))
        ):
            lines = self._wrap([(" ".join(line.strip() for line in text.split("\n")), "")])
            return _joined(lines)
        tokens = self._markdown_it().parse(text)
        try:
            lines = self._blocks(tokens, 0, len(tokens), self.width, _NO_STYLE, top=True)
        except _Unsupported:
            return None
        return _joined(_trim(lines))

    # ---- the token tree ----------------------------------------------------------------------

    def _blocks(
        self, tokens: list[Token], start: int, stop: int, width: int, base: Style, *, top: bool
    ) -> list[str]:
        out: list[str] = []
        i = start
        while i < stop:
            token = tokens[i]
            kind = token.type
            close = _closing(tokens, i) if token.nesting == 1 else i
            if top and out and kind not in ("hr",):
                out.append("")
            if kind == "paragraph_open":
                out += self._inline(tokens[i + 1], width, base)
            elif kind == "heading_open":
                style = base + _theme(f"markdown.{token.tag}")
                lines = self._inline(tokens[i + 1], width, style)
                if token.tag == "h1":
                    lines = [_centered(line, width) for line in lines]
                out += lines
            elif kind in ("bullet_list_open", "ordered_list_open"):
                out += self._list(tokens, i, close, width, base)
            elif kind == "blockquote_open":
                bar = self.styled("▌ ", base + _theme("markdown.block_quote"))
                style = base + _theme("markdown.block_quote")
                inner = self._blocks(tokens, i + 1, close, max(1, width - 4), style, top=False)
                out += [bar + line for line in inner]
            elif kind == "table_open":
                out += self._table(tokens, i, close, width, base)
            elif kind in ("fence", "code_block"):
                # As rich's markdown draws code inside prose: a cell of padding all round.
                saved, self.width = self.width, width
                try:
                    lang = (token.info or "").strip().split(" ")[0]
                    code = self.code(token.content, lang, margin=" ", right=1)
                finally:
                    self.width = saved
                out += ["", *code.rstrip("\n").split("\n"), ""]
            elif kind == "hr":
                out.append(self.styled("-" * width, base + _theme("markdown.hr")))
                if top:
                    out.append("")
            else:
                raise _Unsupported(kind)
            i = close + 1
        return out

    def _list(self, tokens: list[Token], i: int, close: int, width: int, base: Style) -> list[str]:
        ordered = tokens[i].type == "ordered_list_open"
        items: list[tuple[int, int]] = []
        j = i + 1
        while j < close:
            end = _closing(tokens, j)
            items.append((j, end))
            j = end + 1
        number = int(tokens[i].attrs.get("start", 1) or 1) if ordered else 0
        last = number + len(items)
        out: list[str] = []
        for n, (item_start, item_end) in enumerate(items):
            if ordered:
                indent = len(str(last)) + 2
                style = base + _theme("markdown.item.number")
                first = self.styled(f"{number + n}".rjust(indent - 1) + " ", style)
            else:
                indent = 3
                style = base + _theme("markdown.item.bullet")
                first = self.styled(" • ", style)
            pad = " " * indent
            lines = self._blocks(
                tokens, item_start + 1, item_end, max(1, width - indent), base, top=False
            )
            for k, line in enumerate(lines or [""]):
                out.append((first if k == 0 else pad) + line)
        return out

    def _table(self, tokens: list[Token], i: int, close: int, width: int, base: Style) -> list[str]:
        rows: list[list[tuple[list[tuple[str, str]], str]]] = []  # cells: runs, alignment
        header_rows = 0
        for j in range(i + 1, close):
            token = tokens[j]
            if token.type == "tr_open":
                rows.append([])
            elif token.type in ("th_open", "td_open"):
                align = str(token.attrs.get("style") or "")
                header = token.type == "th_open"
                style = base + _theme("markdown.table.header") if header else base
                runs = self._runs(tokens[j + 1], style)
                if any("\n" in text for text, _ in runs):
                    raise _Unsupported("a line break in a table cell")
                rows[-1].append((runs, align))
            elif token.type == "thead_close":
                header_rows = len(rows)
        if not rows:
            return []
        columns = max(len(row) for row in rows)
        widths = [0] * columns
        for row in rows:
            for c, (runs, _) in enumerate(row):
                widths[c] = max(widths[c], sum(cell_len(text) for text, _ in runs))
        border = self.sgr(base + _theme("markdown.table.border"))
        edge = f"{border} {RESET}" if border else " "
        if 1 + sum(widths) + 2 * (columns - 1) > width:
            raise _Unsupported("a table wider than the screen")
        out: list[str] = []
        for r, row in enumerate(rows):
            cells = []
            for c in range(columns):
                runs, align = row[c] if c < len(row) else ([], "")
                drawn = "".join(f"{code}{text}{RESET}" if code else text for text, code in runs)
                room = widths[c] - sum(cell_len(text) for text, _ in runs)
                if "right" in align:
                    drawn = " " * room + drawn
                elif "center" in align:
                    drawn = " " * (room // 2) + drawn + " " * (room - room // 2)
                else:
                    drawn += " " * room
                cells.append(drawn)
            out.append((edge + (" " + edge).join(cells)).rstrip(" "))
            if r + 1 == header_rows:
                rule = "─" * (sum(widths) + 2 * (columns - 1))
                out.append(f"{border} {rule}{RESET}" if border else " " + rule)
        return out

    # ---- inline text -------------------------------------------------------------------------

    def _inline(self, token: Token, width: int, base: Style) -> list[str]:
        return self._wrap(self._runs(token, base), width)

    def _runs(self, token: Token, base: Style) -> list[tuple[str, str]]:
        """The inline token's text as (text, escape sequence) runs."""
        runs: list[tuple[str, str]] = []
        stack = [base]
        link: list[str] | None = None
        href = ""
        for child in token.children or ():
            kind = child.type
            if link is not None and kind not in ("link_close",):
                if kind in ("text", "code_inline"):
                    link.append(child.content)
                elif kind == "softbreak":
                    link.append(" ")
                elif kind == "hardbreak":
                    link.append("\n")
                elif kind not in _STYLE_TAGS:
                    raise _Unsupported(kind)
                continue
            if kind == "text":
                runs.append((child.content, self.sgr(stack[-1])))
            elif kind == "softbreak":
                runs.append((" ", self.sgr(stack[-1])))
            elif kind == "hardbreak":
                runs.append(("\n", ""))
            elif kind == "code_inline":
                runs.append((child.content, self.sgr(stack[-1] + _theme("markdown.code"))))
            elif kind in _STYLE_TAGS:
                if child.nesting == 1:
                    stack.append(stack[-1] + _theme(_STYLE_TAGS[kind]))
                elif len(stack) > 1:
                    stack.pop()
            elif kind == "link_open":
                link, href = [], str(child.attrs.get("href", ""))
            elif kind == "link_close" and link is not None:
                style = stack[-1]
                runs.append(("".join(link), self.sgr(style + _theme("markdown.link"))))
                runs.append((" (", self.sgr(style)))
                runs.append((href, self.sgr(style + _theme("markdown.link_url"))))
                runs.append((")", self.sgr(style)))
                link = None
            else:
                raise _Unsupported(kind)
        return runs

    def _wrap(self, runs: list[tuple[str, str]], width: int | None = None) -> list[str]:
        """Runs word-wrapped to `width` (rich's way: break at spaces, fold long words,
        no spaces at the ends of rows), each row with its escape sequences."""
        width = self.width if width is None else width
        plain = "".join(text for text, _ in runs)
        starts = []
        at = 0
        for text, _ in runs:
            starts.append(at)
            at += len(text)
        ascii_only = plain.isascii()
        measure = len if ascii_only else cell_len
        out: list[str] = []
        offset = 0
        for paragraph in plain.split("\n"):
            rows: list[tuple[int, int]] = []
            row_start = row_end = offset
            cells = 0
            for match in _WORD.finditer(paragraph):
                word = match.group()
                stripped = word.rstrip()
                begin = offset + match.start()
                size = measure(stripped)
                if cells and cells + size > width:
                    rows.append((row_start, row_end))
                    row_start, cells = begin, 0
                    if not stripped:
                        row_start = begin + len(word)
                        continue
                if size > width:  # a word longer than the row: folded
                    piece_start = begin
                    rest = stripped
                    while measure(rest) > width - cells:
                        take = _fit(rest, width - cells) or rest[0]
                        rows.append((row_start, piece_start + len(take)))
                        piece_start += len(take)
                        rest = rest[len(take) :]
                        row_start, cells = piece_start, 0
                    cells = measure(rest)
                    row_end = piece_start + len(rest)
                    cells += measure(word) - measure(stripped)
                    continue
                cells += measure(word)
                row_end = begin + len(stripped)
            rows.append((row_start, max(row_start, row_end)))
            for a, b in rows:
                out.append(self._row(runs, starts, a, b))
            offset += len(paragraph) + 1
        return out

    def _row(self, runs: list[tuple[str, str]], starts: list[int], a: int, b: int) -> str:
        parts = []
        r = max(0, bisect_right(starts, a) - 1)
        while r < len(runs) and starts[r] < b:
            text, code = runs[r]
            piece = text[max(0, a - starts[r]) : b - starts[r]]
            if piece:
                parts.append(f"{code}{piece}{RESET}" if code else piece)
            r += 1
        return "".join(parts)

    # ---- helpers -----------------------------------------------------------------------------

    def _markdown_it(self) -> MarkdownIt:
        if self._parser is None:
            from markdown_it import MarkdownIt

            self._parser = MarkdownIt().enable("strikethrough").enable("table")
        return self._parser

    def _highlighted(self, text: str, lang: str) -> list[tuple[str, str]]:
        lexer = self._lexer(lang)
        if lexer is None:
            return [(text, "")]
        token_sgr = self._token_sgr
        out = []
        for ttype, value in lexer.get_tokens(text):
            code = token_sgr.get(ttype)
            if code is None:
                code = token_sgr[ttype] = self.sgr(self._theme_style(ttype))
            out.append((value, code))
        if out and out[-1][0].endswith("\n") and not text.endswith("\n"):
            value, code = out[-1]
            out[-1] = (value[:-1], code)
        return out

    def _theme_style(self, ttype: Any) -> Style:
        if self._syntax_theme is None:
            from rich.syntax import ANSI_DARK, ANSISyntaxTheme

            self._syntax_theme = ANSISyntaxTheme(ANSI_DARK)
        style: Style = self._syntax_theme.get_style_for_token(ttype)
        return Style(
            color=style.color,
            bold=style.bold,
            italic=style.italic,
            underline=style.underline,
            dim=style.dim,
        )

    def _lexer(self, lang: str) -> Any:
        if lang not in self._lexers:
            lexer = None
            if lang and lang != "text":
                from pygments.lexers import get_lexer_by_name  # type: ignore[import-untyped]
                from pygments.util import ClassNotFound  # type: ignore[import-untyped]

                try:
                    lexer = get_lexer_by_name(lang, stripnl=False, ensurenl=True, tabsize=4)
                except ClassNotFound:
                    lexer = None
            self._lexers[lang] = lexer
        return self._lexers[lang]


_STYLE_TAGS = {
    "em_open": "markdown.em",
    "em_close": "markdown.em",
    "strong_open": "markdown.strong",
    "strong_close": "markdown.strong",
    "s_open": "markdown.s",
    "s_close": "markdown.s",
}


class _Unsupported(Exception):
    pass


def _closing(tokens: list[Token], i: int) -> int:
    depth = 0
    for j in range(i, len(tokens)):
        depth += tokens[j].nesting
        if depth == 0:
            return j
    return len(tokens) - 1


def _fit(text: str, cells: int) -> str:
    """The longest start of `text` that takes at most `cells` cells."""
    if text.isascii():
        return text[: max(0, cells)]
    taken = 0
    for n, char in enumerate(text):
        taken += cell_len(char)
        if taken > cells:
            return text[:n]
    return text


def _centered(line: str, width: int) -> str:
    visible = cell_len(_ESCAPE.sub("", line))
    return " " * max(0, (width - visible) // 2) + line


_ESCAPE = re.compile(r"\x1b\[[0-9;]*m")


def _trim(lines: list[str]) -> list[str]:
    start, stop = 0, len(lines)
    while start < stop and not _ESCAPE.sub("", lines[start]).strip():
        start += 1
    while stop > start and not _ESCAPE.sub("", lines[stop - 1]).strip():
        stop -= 1
    return lines[start:stop]


def _joined(lines: list[str]) -> str:
    return "".join(line + "\n" for line in lines)
