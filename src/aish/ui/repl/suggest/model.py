"""Ghost text from a model when the history has none (`ui.suggest = "model"`).

A key is never held up by it: prompt_toolkit asks for a suggestion in a background task after
each change of the line; the history answers at once, and the model is asked only after a pause
in typing (`PAUSE_S`) and only if the line is still the same. The next key cancels a request in
flight (its answer would be for a line no longer there) and prompt_toolkit asks again for the
new line. Answers are kept per line and directory, so Backspace and retyping ask nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from prompt_toolkit.auto_suggest import AutoSuggest, Suggestion

from aish.ui.repl.history import placed_lines
from aish.ui.repl.suggest.history import from_history

if TYPE_CHECKING:
    from prompt_toolkit.buffer import Buffer
    from prompt_toolkit.document import Document

__all__ = ["ModelSuggest"]

Complete = Callable[[str, str, Sequence[str]], Awaitable[str | None]]
"""(typed, cwd, recent lines) → what the model adds to the line, or None."""

# How long typing must pause before the model is asked.
PAUSE_S = 0.3
# Lines shorter than this are not worth a request.
MIN_TYPED = 2
_KEPT_ANSWERS = 128
_RECENT = 10


class ModelSuggest(AutoSuggest):
    def __init__(
        self,
        complete: Complete,
        cwd: Callable[[], str],
        *,
        warm_up: Callable[[], Awaitable[None]] | None = None,
        pause_s: float = PAUSE_S,
    ) -> None:
        self._complete = complete
        self._cwd = cwd
        self._pause_s = pause_s
        # Done once, at the first key: the first request must not import in the loop.
        self._warm_up = warm_up
        self._warming: asyncio.Future[None] | None = None
        self._answers: OrderedDict[tuple[str, str], str | None] = OrderedDict()
        # Requests made and requests cancelled by a key (for the benchmark and the tests).
        self.asked = 0
        self.cancelled = 0

    def get_suggestion(self, buffer: Buffer, document: Document) -> Suggestion | None:
        rest = from_history(buffer.history, document.text, self._cwd())
        return Suggestion(rest) if rest else None

    async def get_suggestion_async(self, buffer: Buffer, document: Document) -> Suggestion | None:
        if self._warming is None and self._warm_up is not None:
            self._warming = asyncio.ensure_future(self._warm_up())
            self._warming.add_done_callback(_quietly)
        found = self.get_suggestion(buffer, document)
        text = document.text
        if found is not None or "\n" in text or len(text.strip()) < MIN_TYPED:
            return found
        if not document.is_cursor_at_the_end:
            return None
        key = (text, self._cwd())
        if key in self._answers:
            rest = self._answers[key]
            return Suggestion(rest) if rest else None
        changed = asyncio.Event()

        def on_change(_: Any) -> None:
            changed.set()

        buffer.on_text_changed += on_change
        try:
            if await _set_within(changed, self._pause_s):
                return None  # still typing: asked again for the new line
            rest = await self._ask_unless_changed(text, key[1], buffer, changed)
        finally:
            buffer.on_text_changed -= on_change
        return Suggestion(rest) if rest else None

    async def _ask_unless_changed(
        self, text: str, cwd: str, buffer: Buffer, changed: asyncio.Event
    ) -> str | None:
        recent = [line for line, _ in _newest(placed_lines(buffer.history), _RECENT)][::-1]
        self.asked += 1
        request = asyncio.ensure_future(self._complete(text, cwd, recent))
        key_typed = asyncio.ensure_future(changed.wait())
        try:
            await asyncio.wait({request, key_typed}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            key_typed.cancel()
            if not request.done():
                self.cancelled += 1
                request.cancel()
                request.add_done_callback(_quietly)
        if request.cancelled() or not request.done():
            return None
        rest = request.result()
        self._answers[(text, cwd)] = rest
        while len(self._answers) > _KEPT_ANSWERS:
            self._answers.popitem(last=False)
        return rest


async def _set_within(event: asyncio.Event, seconds: float) -> bool:
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(event.wait(), seconds)
    return event.is_set()


def _newest(lines: Iterable[tuple[str, str | None]], count: int) -> list[tuple[str, str | None]]:
    taken: list[tuple[str, str | None]] = []
    for entry in lines:
        if len(taken) >= count:
            break
        taken.append(entry)
    return taken


def _quietly(task: asyncio.Future[Any]) -> None:
    if not task.cancelled():
        task.exception()  # retrieved: a failure after the key that cancelled it is nobody's
