"""Server-sent events as the test server writes them."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any


def compact_json(value: Any) -> str:
    """JSON without insignificant whitespace, as real servers emit it."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


@dataclass(frozen=True)
class SseEvent:
    """One event: ``fields`` such as ``(("event", "ping"), ("data", "{...}"))``, or raw text.

    ``content`` marks events that carry generated content (text, reasoning or tool-call deltas);
    the ``*_after`` fault triggers count those.
    """

    fields: tuple[tuple[str, str], ...] = ()
    content: bool = False
    raw: str | None = None

    def encode(self, eol: str = "\n") -> bytes:
        """Wire bytes: each field on its own line, then a blank line (raw text verbatim)."""
        if self.raw is not None:
            return self.raw.encode("utf-8")
        lines = "".join(f"{name}: {value}{eol}" for name, value in self.fields)
        return (lines + eol).encode("utf-8")


def data_event(payload: Any, *, event: str | None = None, content: bool = False) -> SseEvent:
    """A ``data:`` event carrying ``payload`` as compact JSON, optionally named."""
    data = ("data", compact_json(payload))
    fields = (data,) if event is None else (("event", event), data)
    return SseEvent(fields=fields, content=content)


DONE = SseEvent(fields=(("data", "[DONE]"),))


def comment(text: str, eol: str = "\n") -> bytes:
    """An SSE comment line (``text`` starts with ':') as a block of its own."""
    return f"{text}{eol}{eol}".encode()
