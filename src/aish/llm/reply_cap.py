"""How much of one reply the broker reads before it closes the stream.

A server that streams without end (broken, or hostile) must not fill memory or hold a turn
forever. Two limits, both from the target's `max_reply_chars`:

- the reply itself: characters of text, reasoning and tool-call arguments. Text and reasoning
  are cut exactly at the limit, so what was shown is what is kept; tool calls not finished by
  then are dropped (half a tool call must never run).
- the wire: what the server sends around the reply (JSON framing, empty deltas, pings) is
  allowed `WIRE_ALLOWANCE` times as much, at least `MIN_WIRE_CHARS`. Framing costs 100 to 300
  characters per event and an event may carry a single character, so a reply under its own
  limit stays under this one; this bound only ends a stream that would never end. What costs
  memory is one line, which the SSE parser holds until it ends: it may have `LINE_ALLOWANCE`
  times the limit (a whole reply sent as one JSON chunk, escapes and all, fits).

Pure: the broker asks, and ends the stream with `Finish("reply_cap")` when told to.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from aish.llm.types import ReasoningDelta, StreamEvent, TextDelta

__all__ = ["LINE_ALLOWANCE", "MIN_WIRE_CHARS", "WIRE_ALLOWANCE", "ReplyCap"]

WIRE_ALLOWANCE = 512
LINE_ALLOWANCE = 8
MIN_WIRE_CHARS = 1 << 20


@dataclass
class ReplyCap:
    """One attempt's count against `limit` characters of reply."""

    limit: int
    used: int = 0
    reached: bool = field(default=False, init=False)

    @property
    def wire_limit(self) -> int:
        return max(self.limit * WIRE_ALLOWANCE, MIN_WIRE_CHARS)

    @property
    def line_limit(self) -> int:
        return max(self.limit * LINE_ALLOWANCE, MIN_WIRE_CHARS)

    def take(self, events: Iterable[StreamEvent], tool_chars: int = 0) -> list[StreamEvent]:
        """The events to pass on. `tool_chars`: tool-call arguments the decoder has received
        so far (it holds them until a call is complete). Once the reply passes the limit,
        `reached` is set: text is kept up to the limit, and no tool call, usage or finish of
        this batch is passed on (the broker ends the reply itself)."""
        kept: list[StreamEvent] = []
        for event in events:
            if isinstance(event, TextDelta | ReasoningDelta):
                room = self.limit - self.used - tool_chars
                if len(event.text) > room:
                    self.reached = True
                    if room > 0:
                        kept.append(replace(event, text=event.text[:room]))
                        self.used += room
                    break
                self.used += len(event.text)
            kept.append(event)
        if self.used + tool_chars > self.limit:
            self.reached = True
        if self.reached:
            kept = [event for event in kept if isinstance(event, TextDelta | ReasoningDelta)]
        return kept
