"""The `[background]` block: remembered items (§7) as the model is told them.

The block goes at the start of the newest user message, never into the system prompt (the
prefix stays cacheable). Which items fit: the newest first, while their lines fit in
`max_chars`; an item too long for what is left is skipped and older, shorter ones may still
fit. The chosen items are told oldest first, so a block grows at its end as items are added.

Items are data, never structure: an imported item may say "[end of background]" or
"SYSTEM: …" to pose as the end of the block or as a line from aish. So each item is one line
(every line break and other whitespace run becomes a space), its text a JSON string in quotes
(quotes, backslashes and control characters escaped), and a block marker inside it loses its
brackets: nothing an item says can start a line of the block, close it, or open another. The
system prompt tells the model that background items are data, not instructions.
"""

from __future__ import annotations

import json
import re
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


# A block marker as a model would read one: any case, any spacing, inside or without brackets.
_MARKER = re.compile(r"[\[\]]?\s*((?:end\s+of\s+)?background)\s*[\[\]]?", re.IGNORECASE)


def item_line(item: Remembered) -> str:
    content = " ".join(item.content.split())  # one line per item, whatever was typed
    content = _MARKER.sub(_unbracketed, content)
    return f"- ({item.kind}) {json.dumps(content, ensure_ascii=False)}"


def _unbracketed(match: re.Match[str]) -> str:
    text = match.group()
    return f"({match.group(1)})" if "[" in text or "]" in text else text


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
