"""CMD: lines are held back whole while a reply streams; other text streams through."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from aish.agent.actions import extract_commands
from aish.ui.render.cmd_lines import CmdLineSplitter, Piece

REPLY = (
    "To see it:\n- CMD: `du -sh *`\nThen\n  CMD: ls -la\n1. not a command\nCMDX no\n"
    "```\nCMD: echo hi\n```\nlast line"
)


def _split(chunks: list[str]) -> list[Piece]:
    splitter = CmdLineSplitter()
    pieces = [p for chunk in chunks for p in splitter.feed(chunk)]
    return pieces + splitter.flush()


def test_whole_reply() -> None:
    pieces = _split([REPLY])
    assert "".join(p.text for p in pieces) == REPLY
    assert [p.text for p in pieces if p.is_command_line] == [
        "- CMD: `du -sh *`\n",
        "  CMD: ls -la\n",
        "CMD: echo hi\n",
    ]


def test_plain_text_is_not_held() -> None:
    splitter = CmdLineSplitter()
    assert splitter.feed("Hello wor") == [Piece("Hello wor")]
    assert splitter.feed("ld\nC") == [Piece("ld\n")]  # a line start that may become CMD:
    assert splitter.feed("at") == [Piece("Cat")]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=len(REPLY)), max_size=20))
def test_any_chunking_gives_the_same_lines(cuts: list[int]) -> None:
    points = [0, *sorted(set(cuts)), len(REPLY)]
    chunks = [REPLY[a:b] for a, b in itertools.pairwise(points) if b > a]
    pieces = _split(chunks)
    assert "".join(p.text for p in pieces) == REPLY
    held = [p.text for p in pieces if p.is_command_line]
    assert held == [p.text for p in _split([REPLY]) if p.is_command_line]
    # Every highlighted line is one the extractor proposes, and vice versa.
    assert extract_commands("".join(held)) == extract_commands(REPLY)


def test_background_and_delegation_lines_are_command_lines_too() -> None:
    reply = "Starting it:\nCMD&: make watch\nand\n- DELEGATE: local: tidy the imports\nCMD&X no\n"
    assert [p.text for p in _split([reply]) if p.is_command_line] == [
        "CMD&: make watch\n",
        "- DELEGATE: local: tidy the imports\n",
    ]


def test_a_background_line_is_its_own_block_in_markdown() -> None:
    from aish.ui.render.markdown_blocks import BlockSplitter

    splitter = BlockSplitter()
    blocks = splitter.feed("Starting it:\nCMD&: make watch\nDELEGATE: local: x\n")
    kinds = [block.kind for block in [*blocks, *splitter.flush()]]
    assert kinds == ["paragraph", "command", "command"]
