"""End takes the ghost text too (prompt_toolkit's own keys for it are → , Ctrl-F and Ctrl-E).

Only with the cursor at the end of the line and ghost text shown: anywhere else End moves to
the end of the line, as before.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from prompt_toolkit.key_binding import KeyBindings

__all__ = ["accept_bindings"]


def accept_bindings() -> KeyBindings:
    from prompt_toolkit.filters import Condition
    from prompt_toolkit.key_binding import KeyBindings

    bindings = KeyBindings()

    @bindings.add("end", filter=Condition(_suggestion_shown))
    def _accept(event: Any) -> None:
        buffer = event.current_buffer
        if buffer.suggestion is not None:
            buffer.insert_text(buffer.suggestion.text)

    return bindings


def _suggestion_shown() -> bool:
    from prompt_toolkit.application import get_app

    buffer = get_app().current_buffer
    suggestion = buffer.suggestion
    return bool(suggestion and suggestion.text) and buffer.document.is_cursor_at_the_end
