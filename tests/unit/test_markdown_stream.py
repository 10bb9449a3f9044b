"""Markdown while it streams: the block splitter (pure) and the renderer on an emulated screen."""

from __future__ import annotations

import io
import re

import pyte
import pytest

from aish.agent.events import AssistantDelta, ReplyFinished
from aish.ui.chat_view import ChatView
from aish.ui.render.ansi import AnsiRenderer
from aish.ui.render.markdown_blocks import Block, BlockSplitter
from aish.ui.render.markdown_stream import MarkdownStream

DOC = """\
# Disk usage report

Here is how to find what *fills* your disk, with **care**:

1. List the biggest directories
2. Sort them
   by size
3. Look at `du` output

- nested
  - child
- another

> A quote that
> goes on.

| name | size |
|------|------|
| alpha | 1 KB |
| beta | 2 KB |

```python
def main():
    print("hi")
```

```bash
CMD: du -sh * | sort -h
```

CMD: ls -la
Setext heading
---

Final paragraph.
"""

KINDS = [
    "heading",
    "paragraph",
    "list",
    "list",
    "list",
    "list",
    "list",
    "quote",
    "table",
    "code",
    "command",
    "code",
    "command",
    "paragraph",
    "paragraph",
]


def blocks_of(*chunks: str) -> list[Block]:
    splitter = BlockSplitter()
    blocks = [block for chunk in chunks for block in splitter.feed(chunk)]
    return blocks + splitter.flush()


def test_a_document_is_cut_into_its_blocks() -> None:
    blocks = blocks_of(DOC)
    assert [block.kind for block in blocks] == KINDS
    assert blocks[0].text == "# Disk usage report"
    assert blocks[3].text == "2. Sort them\n   by size"
    assert blocks[5].text == "- nested\n  - child"
    assert blocks[8].text.count("\n") == 3  # the whole table
    assert (blocks[9].text, blocks[9].lang) == ('def main():\n    print("hi")\n', "python")
    assert blocks[10].text == "CMD: du -sh * | sort -h"  # inside its fence, still a command
    assert blocks[11] == Block("code", "", blocks[11].end, "bash", blank_before=False)
    assert blocks[13].text == "Setext heading\n---"
    assert [block.blank_before for block in blocks][:4] == [False, True, True, False]
    # Every block ends where its last line does, and the last one at the end of the text.
    for block in blocks:
        assert DOC[block.end - 1] == "\n"
    assert blocks[-1].end == len(DOC)


@pytest.mark.parametrize("cut", range(len(DOC) + 1))
def test_the_same_blocks_wherever_the_text_is_split(cut: int) -> None:
    assert blocks_of(DOC[:cut], DOC[cut:]) == blocks_of(DOC)


def test_the_same_blocks_fed_one_character_at_a_time() -> None:
    assert blocks_of(*DOC) == blocks_of(DOC)


def test_each_block_comes_out_once_as_soon_as_it_is_complete() -> None:
    splitter = BlockSplitter()
    assert splitter.feed("# Title") == []
    assert [b.kind for b in splitter.feed("\nSome text\nmore text")] == ["heading"]
    assert splitter.feed("\n") == []  # a paragraph may go on
    assert [b.text for b in splitter.feed("\n")] == ["Some text\nmore text"]  # a blank line
    assert splitter.feed("```sh\nls\n") == []
    assert [b.text for b in splitter.feed("```\n")] == ["ls\n"]  # the closing fence
    assert splitter.feed("- one\n") == []
    assert [b.text for b in splitter.feed("- two\n")] == ["- one"]  # the next item
    assert [b.kind for b in splitter.feed("CMD: make test\n")] == ["list", "command"]
    assert splitter.flush() == []


def test_what_ends_a_paragraph_quote_table_and_list() -> None:
    kinds = [b.kind for b in blocks_of("text\n# heading\n> quote\nlazy\n| a |\n|---|\nafter\n")]
    assert kinds == ["paragraph", "heading", "quote", "table", "paragraph"]
    # A blank line inside a list item followed by indented text keeps the item going.
    item = blocks_of("1. step\n\n   ```sh\n   ls\n   ```\n2. next\n")
    assert [b.text for b in item] == ["1. step\n\n   ```sh\n   ls\n   ```", "2. next"]
    assert item[1].blank_before is False
    loose = blocks_of("- a\n\n- b\n\nafter\n")
    assert [(b.text, b.blank_before) for b in loose] == [
        ("- a", False),
        ("- b", True),
        ("after", True),
    ]


def test_command_lines_are_blocks_with_their_decoration() -> None:
    text = "Try:\n- CMD: ls\n2. CMD: `pwd`\n  ```CMD: id```\nnot a CMD: line\n"
    blocks = blocks_of(text)
    assert [(b.kind, b.text) for b in blocks] == [
        ("paragraph", "Try:"),
        ("command", "- CMD: ls"),
        ("command", "2. CMD: `pwd`"),
        ("command", "  ```CMD: id```"),
        ("paragraph", "not a CMD: line"),
    ]


def test_an_unfinished_reply_is_flushed_with_its_last_line() -> None:
    blocks = blocks_of("para\n\n```py\nx = 1\ny =")
    assert [(b.kind, b.text) for b in blocks] == [("paragraph", "para"), ("code", "x = 1\ny =\n")]
    assert blocks[-1].end == len("para\n\n```py\nx = 1\ny =")


# ---- the renderer -----------------------------------------------------------------------------


@pytest.fixture
def terminal_size(monkeypatch: pytest.MonkeyPatch) -> tuple[int, int]:
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setenv("LINES", "24")
    return 80, 24


def screen_after(output: str, size: tuple[int, int], lines: int = 200) -> list[str]:
    """The emulated terminal's rows (a tall one, so nothing scrolls away)."""
    screen = pyte.Screen(size[0], lines)
    pyte.Stream(screen).feed(output.replace("\n", "\r\n"))
    return [row.rstrip() for row in screen.display]


def rendered(text: str, *, chunk: int) -> str:
    out = io.StringIO()
    stream = MarkdownStream(out)
    for start in range(0, len(text), chunk):
        stream.feed(text[start : start + chunk])
    stream.finish()
    return out.getvalue()


@pytest.mark.parametrize("chunk", [1, 7, 16, 1000])
def test_the_screen_shows_the_rendered_reply_once(
    terminal_size: tuple[int, int], chunk: int
) -> None:
    output = rendered(DOC, chunk=chunk)
    screen = "\n".join(screen_after(output, terminal_size))
    assert "Disk usage report" in screen and "# Disk" not in screen
    assert "fills" in screen and "*fills*" not in screen and "**care**" not in screen
    assert 'print("hi")' in screen and "```" not in screen
    assert "CMD: du -sh * | sort -h" in screen and "CMD: ls -la" in screen
    assert "alpha" in screen and "|---" not in screen
    for once in ("Disk usage report", "Final paragraph.", "A quote that", "by size", "alpha"):
        assert screen.count(once) == 1, once
    assert "\x1b[" in output  # in colour


def test_only_the_block_in_progress_is_redrawn(terminal_size: tuple[int, int]) -> None:
    output = rendered(DOC * 20, chunk=5)
    ups = [int(n) for n in re.findall(r"\x1b\[(\d+)F", output)]
    assert ups and max(ups) < terminal_size[1] - 1  # never further up than the screen
    # Work grows with the text: twice the reply, about twice the bytes written.
    assert len(rendered(DOC * 40, chunk=5)) < 2.1 * len(output)


def test_a_block_taller_than_the_screen_stays_raw(terminal_size: tuple[int, int]) -> None:
    code = "".join(f"line_{n} = {n}\n" for n in range(60))
    text = f"Intro.\n\n```python\n{code}```\n\nAfter.\n"
    output = rendered(text, chunk=9)
    assert max(int(n) for n in re.findall(r"\x1b\[(\d+)F", output)) < terminal_size[1] - 1
    screen = screen_after(output, terminal_size)
    shown = "\n".join(screen)
    for n in range(60):
        assert shown.count(f"line_{n} = {n}") == 1
    assert shown.count("Intro.") == 1 and shown.count("After.") == 1
    assert "```python" in shown  # left raw, fences and all


def test_chat_view_renders_in_colour_and_stays_plain_without(
    terminal_size: tuple[int, int],
) -> None:
    reply = "## Steps\n\nRun **this**:\nCMD: ls -la\n"
    colour, plain = io.StringIO(), io.StringIO()
    for out, color in ((colour, True), (plain, False)):
        view = ChatView(out, color=color)
        for start in range(0, len(reply), 4):
            view.render(AssistantDelta(reply[start : start + 4]))
        view.render(ReplyFinished("stop", cut=False))
    assert plain.getvalue() == reply  # exactly as before: raw text
    screen = screen_after(colour.getvalue(), terminal_size, lines=10)
    assert [row for row in screen if row] == ["Steps", "Run this:", "CMD: ls -la"]


def test_a_cut_reply_keeps_what_arrived(terminal_size: tuple[int, int]) -> None:
    out = io.StringIO()
    view = ChatView(out, color=True)
    view.render(AssistantDelta("First paragraph.\n\nSecond, unfinish"))
    view.render(ReplyFinished("cut", cut=True))
    screen = [row for row in screen_after(out.getvalue(), terminal_size, lines=10) if row]
    assert screen == ["First paragraph.", "Second, unfinish", "[aish] reply cut short"]


# ---- the direct drawing (ansi_render) against rich's own ---------------------------------------

MORE = """\
A paragraph with no markup at all, long enough to wrap more than once on an eighty column \
terminal because it simply keeps going and going with ordinary words, averyveryverylongword\
thatcannotfitonanyrowofthisterminalandsohastobefoldedoverseveralrowsbytherenderer end.

Inline: ***both***, ~~gone~~, `a | b`, [text](https://example.org/x), a_b_c and *x* **y**.
A hard break follows \x20
this line, and &amp; is an entity.

> quote with **bold** and a list:
> - one
> - two

1. loose item

   with a second paragraph

   ```sh
   ls -la
   ```
2. and `code`

| left | centre | right |
|:-----|:------:|------:|
| a | b | c |
| longer cell | **bold** | 12 |

***

    indented code
"""


def test_the_direct_drawing_shows_what_rich_shows(
    terminal_size: tuple[int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    text = DOC + "\n" + MORE
    direct = rendered(text, chunk=16)
    monkeypatch.setattr(AnsiRenderer, "markdown", lambda self, text, kind="": None)
    via_rich = rendered(text, chunk=16)
    assert screen_after(direct, terminal_size) == screen_after(via_rich, terminal_size)


def test_what_the_direct_drawing_leaves_aside_goes_through_rich(
    terminal_size: tuple[int, int],
) -> None:
    wide = "| " + " | ".join(f"column {n} heading" for n in range(8)) + " |\n"
    wide += "|" + "---|" * 8 + "\n" + "| " + " | ".join("x" * 5 for _ in range(8)) + " |\n"
    text = f"An image ![the logo](logo.png) and <b>html</b>.\n\n{wide}\nAfter.\n"
    screen = "\n".join(screen_after(rendered(text, chunk=5), terminal_size))
    assert "🌆 the logo" in screen and "<b>" not in screen and "html" in screen
    assert "|---" not in screen and "column 7" in screen and "After." in screen
    assert max(len(row) for row in screen.split("\n")) <= terminal_size[0]


def test_code_is_highlighted_indented_and_wrapped(terminal_size: tuple[int, int]) -> None:
    long_line = "x = [" + ", ".join(str(n) for n in range(40)) + "]"
    output = rendered(f"```python\ndef f():\n\treturn 1\n{long_line}\n```\n", chunk=7)
    assert "\x1b[94mdef\x1b[0m" in output  # the ansi_dark keyword colour
    screen = [row for row in screen_after(output, terminal_size) if row]
    assert screen[:2] == ["  def f():", "      return 1"]
    assert len(screen) > 3 and all(row.startswith("  ") for row in screen)
    assert "".join(row[2:] for row in screen[2:]) == long_line
    plain = rendered("```\n<b>not markup</b> **nor this**\n```\n", chunk=3)
    assert screen_after(plain, terminal_size)[0] == "  <b>not markup</b> **nor this**"


def test_control_characters_are_dropped_as_rich_drops_them(
    terminal_size: tuple[int, int],
) -> None:
    renderer = AnsiRenderer(None)
    assert renderer.markdown("a\x07b\x0cc", "paragraph") == "abc\n"
    assert renderer.command("CMD: ls\x08") == "CMD: ls\n"
