"""Prompt serialisation and prefix-reuse accounting.

A chat request's prompt is serialised to one canonical JSON string (tools, then system, then
messages, in the order a real server renders them).  The length of the common prefix with the
previous chat request's prompt approximates what a prefix/KV cache could have reused; the test
server reports it in the request log and as ``cached_tokens`` so that tests can assert that a
client keeps its prompt prefix byte-stable.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class PrefixReuse:
    """How much of a prompt is shared with the previous one."""

    chars: int
    fraction: float

    def as_json(self) -> dict[str, Any]:
        """The log representation ``{"chars": int, "fraction": float}``."""
        return {"chars": self.chars, "fraction": self.fraction}


def serialise_prompt(tools: list[Any] | None, system: Any, messages: list[Any]) -> str:
    """Serialise a prompt canonically: ``{"tools": [...], "system": ..., "messages": [...]}``.

    Message objects keep the key order they were received with; no whitespace is added.
    """
    document = {"tools": tools or [], "system": system, "messages": messages}
    return json.dumps(document, ensure_ascii=False, separators=(",", ":"))


def common_prefix_len(a: str, b: str) -> int:
    """Number of leading characters ``a`` and ``b`` have in common."""
    limit = min(len(a), len(b))
    if a[:limit] == b[:limit]:
        return limit
    lo, hi = 0, limit  # invariant: a[:lo] == b[:lo] and a[:hi] != b[:hi]
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid
    return lo


def prefix_reuse(previous: str | None, current: str) -> PrefixReuse:
    """Prefix shared by ``current`` with ``previous`` (``None`` for the first request)."""
    if previous is None or not current:
        return PrefixReuse(0, 0.0)
    chars = common_prefix_len(previous, current)
    return PrefixReuse(chars, chars / len(current))


class PrefixTracker:
    """Remembers the previous chat prompt and measures each new one against it (thread-safe)."""

    def __init__(self) -> None:
        self._previous: str | None = None
        self._lock = threading.Lock()

    def observe(self, prompt: str) -> PrefixReuse:
        """Measure ``prompt`` against the previous prompt, then remember it."""
        with self._lock:
            reuse = prefix_reuse(self._previous, prompt)
            self._previous = prompt
            return reuse
