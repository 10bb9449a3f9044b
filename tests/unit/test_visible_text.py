"""Model text cannot drive the terminal it is shown on."""

from __future__ import annotations

import io

from aish.agent.events import AssistantDelta
from aish.ui.ask_printer import AskPrinter
from aish.ui.visible_text import visible

HOSTILE = "ok \x1b]0;HACKED\x07 \x1b[8mhidden\x1b[0m a\rb\tc\n"


def test_controls_become_visible_newline_and_tab_stay() -> None:
    assert visible(HOSTILE) == "ok ^[]0;HACKED^G ^[[8mhidden^[[0m a^Mb\tc\n"
    assert visible("\x7f\x9b") == "^?\\x9b"


def test_ask_on_a_terminal_escapes_but_piped_output_is_exact() -> None:
    shown, piped = io.StringIO(), io.StringIO()
    AskPrinter(shown, io.StringIO(), terminal=True).render(AssistantDelta(HOSTILE))
    AskPrinter(piped, io.StringIO(), terminal=False).render(AssistantDelta(HOSTILE))
    assert "\x1b" not in shown.getvalue() and "^[]0;HACKED" in shown.getvalue()
    assert piped.getvalue() == HOSTILE
