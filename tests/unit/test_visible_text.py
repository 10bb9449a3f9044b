"""Model text cannot drive the terminal it is shown on."""

from __future__ import annotations

import io
import json

from aish.agent.events import AssistantDelta, AssistantReasoning, CommandProposed, RequestFailed
from aish.ui.ask_printer import AskPrinter
from aish.ui.render.visible_text import visible

HOSTILE = "ok \x1b]0;HACKED\x07 \x1b[8mhidden\x1b[0m a\rb\tc\n"


def test_controls_become_visible_newline_and_tab_stay() -> None:
    assert visible(HOSTILE) == "ok ^[]0;HACKED^G ^[[8mhidden^[[0m a^Mb\tc\n"
    assert visible("\x7f\x9b") == "^?\\x9b"


def test_ask_on_a_terminal_escapes_piped_output_is_stripped_and_raw_is_exact() -> None:
    shown, piped, raw = io.StringIO(), io.StringIO(), io.StringIO()
    AskPrinter(shown, io.StringIO(), terminal=True).render(AssistantDelta(HOSTILE))
    AskPrinter(piped, io.StringIO(), terminal=False).render(AssistantDelta(HOSTILE))
    AskPrinter(raw, io.StringIO(), raw=True).render(AssistantDelta(HOSTILE))
    assert "\x1b" not in shown.getvalue() and "^[]0;HACKED" in shown.getvalue()
    assert piped.getvalue() == "ok  hidden ab\tc\n"
    assert raw.getvalue() == HOSTILE


def test_raw_never_reaches_a_terminal() -> None:
    shown = io.StringIO()
    AskPrinter(shown, io.StringIO(), terminal=True, raw=True).render(AssistantDelta(HOSTILE))
    assert "\x1b" not in shown.getvalue()


def test_reasoning_on_a_terminal_stderr_is_escaped_when_stdout_is_piped() -> None:
    out, err = io.StringIO(), io.StringIO()
    printer = AskPrinter(out, err, terminal=False, err_terminal=True)
    printer.render(AssistantReasoning("think \x1b]52;c;aGk=\x07"))
    printer.render(AssistantDelta("answer \x1b]2;title\x07\n"))
    printer.close()
    assert err.getvalue() == "think ^[]52;c;aGk=^G\n"
    assert out.getvalue() == "answer \n"


def test_commands_and_failures_carry_no_escapes() -> None:
    out, err = io.StringIO(), io.StringIO()
    printer = AskPrinter(out, err)
    printer.render(CommandProposed("ls \x1b]52;c;aGk=\x07/tmp"))
    printer.render(RequestFailed("HTTPStatusError", "HTTP 500: \x1b]2;owned\x07"))
    assert out.getvalue().endswith("CMD: ls /tmp\n")
    assert "\x1b" not in err.getvalue() and "\x07" not in err.getvalue()


def test_json_lines_escape_c1_controls_and_keep_the_value() -> None:
    out = io.StringIO()
    AskPrinter(out, io.StringIO(), json_mode=True).render(AssistantDelta("a\x9b31m\x9d0;t\x07"))
    line = out.getvalue()
    assert not any("\x7f" <= char <= "\x9f" or char < " " for char in line.rstrip("\n"))
    assert json.loads(line)["text"] == "a\x9b31m\x9d0;t\x07"
