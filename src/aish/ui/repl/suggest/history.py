"""Ghost text from the history, typed-here first.

Like fish (and prompt_toolkit's `AutoSuggestFromHistory`): the newest history line that starts
with what is typed, shown after the cursor, taken with → / End / Ctrl-F. Unlike them, a line
typed in the shell's current directory wins over a newer one typed elsewhere — `make test`
here, not the `make deploy` of another project.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import TYPE_CHECKING

from prompt_toolkit.auto_suggest import AutoSuggest, Suggestion

from aish.ui.repl.history import single_lines

if TYPE_CHECKING:
    from prompt_toolkit.buffer import Buffer
    from prompt_toolkit.document import Document
    from prompt_toolkit.history import History

__all__ = ["HistorySuggest", "from_history"]

# The newest lines searched: a long-lived history file keeps growing, and this runs after
# every key, in the event loop (bench/keystroke_latency.py).
MAX_SCANNED = 10_000


class HistorySuggest(AutoSuggest):
    def __init__(self, cwd: Callable[[], str]) -> None:
        self._cwd = cwd

    def get_suggestion(self, buffer: Buffer, document: Document) -> Suggestion | None:
        rest = from_history(buffer.history, document.text, self._cwd())
        return Suggestion(rest) if rest else None


def from_history(history: History, text: str, here: str) -> str | None:
    """What the newest matching line adds to `text` (its last line, as it is being typed);
    a line typed in `here` first. None: no line starts with it, or nothing is typed."""
    typed = text.rsplit("\n", 1)[-1]
    if not typed.strip():
        return None
    size = len(typed)
    elsewhere: str | None = None
    for line, where in itertools.islice(single_lines(history), MAX_SCANNED):
        if len(line) > size and line.startswith(typed):
            if where == here:
                return line[size:]
            if elsewhere is None:
                elsewhere = line[size:]
    return elsewhere
