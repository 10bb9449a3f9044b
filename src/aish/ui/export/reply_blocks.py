"""A reply's markdown cut into blocks, for the renderers: its code blocks (fenced or not, the
last one closed whether the model closed it or not), its `CMD:` lines and its prose. The
REPL's own block splitter (`aish.ui.render.markdown_blocks`) does the cutting."""

from __future__ import annotations

from aish.ui.render.markdown_blocks import Block, BlockSplitter

__all__ = ["GROUPED", "Block", "reply_blocks"]

# Kinds whose consecutive blocks are one construct (the items of a list, a table's rows).
GROUPED = frozenset({"list", "table", "quote"})


def reply_blocks(text: str) -> list[Block]:
    splitter = BlockSplitter()
    return splitter.feed(text) + splitter.flush()
