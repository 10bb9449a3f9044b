"""Multi-line input at the prompt, as bash's PS2 gives it.

Enter on unfinished shell syntax (an open quote, a trailing backslash, an open loop or block, a
here-document still waiting for its delimiter) starts a new line under a `> ` continuation
prompt instead of accepting; Enter on finished text accepts the whole input, wherever the cursor
is, as readline does. Alt-Enter (Esc Enter) always inserts a newline at the cursor.

Ctrl-C on any line drops the whole input, as in bash (the prompt's own binding). Ctrl-D on an
empty continuation line ends the input the way bash does — "unexpected end of file", nothing
runs — and keeps it in the history, so Up brings back everything typed so far.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
    from prompt_toolkit.layout.processors import Processor

    from aish.safety.bash.continuation import Unfinished

__all__ = [
    "CONTINUATION_PROMPT",
    "InputAbandoned",
    "continuation_bindings",
    "continuation_prompt",
    "tab_display",
]

CONTINUATION_PROMPT = "> "  # bash's default PS2


class InputAbandoned(Exception):
    """Ctrl-D on an empty continuation line: the unfinished input ends without running."""


def continuation_prompt(width: int, line_number: int, wrap_count: int) -> str:
    """Before each further line, `> `; a long line wrapped by the terminal gets nothing."""
    return CONTINUATION_PROMPT if wrap_count == 0 else ""


def continuation_bindings(needs_another_line: Callable[[str], Unfinished | None]) -> KeyBindings:
    """Enter, Alt-Enter and Ctrl-D for the prompt's main buffer (search keeps its own keys)."""
    # prompt_toolkit is imported with the prompt, not with `aish.ui.repl.loop` (`InputAbandoned`).
    from prompt_toolkit.application import get_app
    from prompt_toolkit.filters import Condition, emacs_insert_mode, has_focus
    from prompt_toolkit.key_binding import KeyBindings
    from prompt_toolkit.key_binding.bindings.named_commands import get_by_name

    keys = KeyBindings()
    editing = has_focus("DEFAULT_BUFFER")

    @keys.add("enter", filter=editing)
    def _enter(event: KeyPressEvent) -> None:
        buffer = event.current_buffer
        if needs_another_line(buffer.text) is None:
            buffer.validate_and_handle()
            return
        buffer.cursor_position = len(buffer.text)
        buffer.insert_text("\n")

    @keys.add("escape", "enter", filter=editing)
    def _newline(event: KeyPressEvent) -> None:
        event.current_buffer.insert_text("\n")

    # Readline's Ctrl-V: the next key as it is (a Tab for a `<<-` body, not completion).
    # prompt_toolkit has it on Ctrl-Q only in emacs mode (vi insert mode has Ctrl-V already).
    keys.add("c-v", filter=editing & emacs_insert_mode)(get_by_name("quoted-insert"))

    @Condition
    def on_empty_continuation_line() -> bool:
        document = get_app().current_buffer.document
        return (
            document.line_count > 1 and document.is_cursor_at_the_end and not document.current_line
        )

    @keys.add("c-d", filter=editing & on_empty_continuation_line)
    def _end_of_input(event: KeyPressEvent) -> None:
        buffer = event.current_buffer
        found = needs_another_line(buffer.text)
        buffer.append_to_history()
        why = f" ({found.reason})" if found is not None else ""
        event.app.exit(
            exception=InputAbandoned(
                f"unexpected end of input{why}: nothing ran; Up brings it back"
            ),
            style="class:aborting",
        )

    return keys


def tab_display() -> Processor:
    """A typed Tab shown as blanks to the next tab stop, as a terminal shows bash's (not `^I`)."""
    from prompt_toolkit.layout.processors import TabsProcessor

    return TabsProcessor(tabstop=8, char1=" ", char2=" ")
