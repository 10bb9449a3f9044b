"""The `[background]` block: remembered items (§7) as the model is told them.

The block goes at the start of the newest user message, never into the system prompt (the
prefix stays cacheable). Which items fit: the newest first, while their lines fit in
`max_chars`; an item too long for what is left is skipped and older, shorter ones may still
fit. The chosen items are told oldest first, so a block grows at its end as items are added.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

BACKGROUND_START = "[background]"
BACKGROUND_END = "[end of background]"
# Told once when every remembered item was forgotten after the model had been told some.
EMPTY_BACKGROUND = f"{BACKGROUND_START}\n(nothing is remembered any more)\n{BACKGROUND_END}"


class Remembered(Protocol):
    @property
    def kind(self) -> str: ...

    @property
    def content(self) -> str: ...


def item_line(item: Remembered) -> str:
    content = " ".join(item.content.split())  # one line per item, whatever was typed
    return f"- ({item.kind}) {content}"


def render_background(items: Sequence[Remembered], max_chars: int) -> str:
    """The block for `items` (oldest first, as the store lists them); "" when none fit."""
    chosen: list[str] = []
    left = max_chars
    for item in reversed(items):
        line = item_line(item)
        if len(line) + 1 <= left:
            chosen.append(line)
            left -= len(line) + 1
    if not chosen:
        return ""
    return "\n".join([BACKGROUND_START, *reversed(chosen), BACKGROUND_END])


def leading_block(text: str) -> str | None:
    """The background block a user message starts with, if it does."""
    if not text.startswith(BACKGROUND_START):
        return None
    end = text.find(BACKGROUND_END)
    return None if end < 0 else text[: end + len(BACKGROUND_END)]
