"""A deterministic stand-in tokenizer: one token per (up to) ``chars_per_token`` characters.

The default of four characters per token is what the server has always counted; a scenario may
set another ratio (``chars_per_token``) so that a client's own chars/4 estimate is visibly wrong
and has to be calibrated against the counts the server reports.
"""

from __future__ import annotations

import math
import zlib

CHARS_PER_TOKEN = 4
_VOCAB_SIZE = 32000


def estimate_tokens(chars: int, chars_per_token: float = CHARS_PER_TOKEN) -> int:
    """Token count for a text of ``chars`` characters: ``ceil(chars / chars_per_token)``."""
    return math.ceil(max(chars, 0) / chars_per_token)


def whole_tokens(chars: int, chars_per_token: float = CHARS_PER_TOKEN) -> int:
    """Complete tokens in ``chars`` characters: ``floor(chars / chars_per_token)`` (cache hits)."""
    return math.floor(max(chars, 0) / chars_per_token)


def tokenize(text: str, chars_per_token: float = CHARS_PER_TOKEN) -> list[int]:
    """Split ``text`` into pieces and map each to a stable id in ``[1, 32000)``.

    Piece ``i`` is ``text[floor(i * r) : floor((i + 1) * r)]`` for ``r = chars_per_token``, so
    ``len(tokenize(text))`` always equals the count the usage figures use.
    """
    count = estimate_tokens(len(text), chars_per_token)
    bounds = [math.floor(i * chars_per_token) for i in range(count + 1)]
    pieces = (text[bounds[i] : bounds[i + 1]] for i in range(count))
    return [1 + zlib.crc32(piece.encode("utf-8")) % (_VOCAB_SIZE - 1) for piece in pieces]
