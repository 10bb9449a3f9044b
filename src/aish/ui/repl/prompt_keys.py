"""The prompt's own keys, beside the line editor's defaults.

Two are bash's: Ctrl-C gives the line up and leaves it on screen marked `^C`, unrun and out of
the history; Enter during a Ctrl-R search runs the line found (it does not only end the
search). Two are aish's: C-n starts Norris mode on the line typed (`:norris <line>`) or, on an
empty line, toggles it; C-x C-c drops the line without a mark.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from prompt_toolkit.key_binding import KeyBindings

__all__ = ["prompt_keys"]


def prompt_keys(toggle_norris: Callable[[], None]) -> KeyBindings:
    """The bindings; `toggle_norris` switches Norris mode and says so (C-n on an empty line)."""
    from prompt_toolkit.document import Document
    from prompt_toolkit.filters import is_searching
    from prompt_toolkit.key_binding import KeyBindings
    from prompt_toolkit.search import accept_search

    keys = KeyBindings()

    @keys.add("c-n")
    def _norris(event: Any) -> None:
        buffer = event.current_buffer
        if buffer.text.strip():
            buffer.text = f":norris {buffer.text.strip()}"
            buffer.validate_and_handle()
            return
        toggle_norris()

    @keys.add("c-c", filter=~is_searching)
    def _abandon(event: Any) -> None:
        shown = event.current_buffer.text + "^C"
        event.current_buffer.set_document(Document(shown, len(shown)), bypass_readonly=True)
        event.app.exit(exception=KeyboardInterrupt, style="class:aborting")

    @keys.add("c-x", "c-c")
    def _abort(event: Any) -> None:
        event.current_buffer.reset()  # nothing runs at the prompt: just drop the line

    @keys.add("enter", filter=is_searching)
    def _run_found(event: Any) -> None:
        accept_search()
        event.app.current_buffer.validate_and_handle()

    return keys
