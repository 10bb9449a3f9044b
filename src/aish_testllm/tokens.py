"""A deterministic stand-in tokenizer: one token per (up to) four characters."""

from __future__ import annotations

import math
import zlib

CHARS_PER_TOKEN = 4
_VOCAB_SIZE = 32000


def estimate_tokens(chars: int) -> int:
    """Token count for a text of ``chars`` characters: ``ceil(chars / 4)``."""
    return math.ceil(max(chars, 0) / CHARS_PER_TOKEN)


def tokenize(text: str) -> list[int]:
    """Split ``text`` into 4-character pieces and map each to a stable id in ``[1, 32000)``."""
    pieces = (text[i : i + CHARS_PER_TOKEN] for i in range(0, len(text), CHARS_PER_TOKEN))
    return [1 + zlib.crc32(piece.encode("utf-8")) % (_VOCAB_SIZE - 1) for piece in pieces]
