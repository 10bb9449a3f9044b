"""`??` on an empty line, and the key that types it (`ui.fix_key`, `Esc f` by default).

The key works on an empty line only: anywhere else it keeps what it did before (in emacs mode
`Esc f` moves a word forward, or takes a word of the ghost text). It ends the prompt with `??`
shown on the line, as if typed, but leaves the history alone: it was not typed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from prompt_toolkit.key_binding import KeyBindings

__all__ = ["FIX_LINE", "fix_key_bindings", "is_fix_line"]

FIX_LINE = "??"


def is_fix_line(line: str) -> bool:
    return line.strip() == FIX_LINE


def fix_key_bindings(spec: str, say: Callable[[str], None]) -> KeyBindings | None:
    """The binding for `spec` ("escape f": prompt_toolkit's key names, space-separated); None
    for "" — or for keys prompt_toolkit does not know, said in one line."""
    from prompt_toolkit.filters import Condition
    from prompt_toolkit.key_binding import KeyBindings

    keys = spec.split()
    if not keys:
        return None
    bindings = KeyBindings()
    empty_line = Condition(_line_is_empty)
    try:

        @bindings.add(*keys, filter=empty_line)
        def _fix(event: Any) -> None:
            event.current_buffer.text = FIX_LINE  # drawn as the line ends, as if typed
            event.app.exit(result=FIX_LINE)

    except ValueError as error:
        say(f"ui.fix_key {spec!r} is not a key ({error}): use ?? on an empty line")
        return None
    return bindings


def _line_is_empty() -> bool:
    from prompt_toolkit.application import get_app

    return not get_app().current_buffer.text
