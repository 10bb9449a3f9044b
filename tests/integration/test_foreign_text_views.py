"""Every view that prints text aish did not write, fed one hostile payload, read off an emulated
screen the way a person reads it.

The payload moves the cursor up and erases lines, hides text (`ESC[8m`), writes the clipboard
(OSC 52), retitles the window (OSC 2), rings the bell, clears the screen with the one-byte CSI
(U+009B) and carries a bidi override and a zero-width space. Each view's output is written
between two lines of aish's own; the screen must still show both, the payload's words must be
readable (not hidden), its sequences shown as text, the title untouched and no bell rung.
"""

from __future__ import annotations

import asyncio
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from aish.agent.events import (
    AssistantDelta,
    AssistantReasoning,
    CommandFinished,
    CommandProposed,
    Halt,
    ReplyFinished,
    RequestFailed,
    Status,
    ToolCallFinished,
    ToolCallStarted,
)
from aish.agent.gate import Verdict
from aish.conversation.background import render_background
from aish.mcp import McpTool
from aish.session.trust import Review, review_file
from aish.store import Store
from aish.ui.ask_printer import AskPrinter
from aish.ui.chat_view import ChatView, verdict_line
from aish.ui.goal_printer import GoalPrinter
from aish.ui.project_review import review_lines
from aish.ui.repl.meta.commands import mcp_tool_lines
from aish.ui.repl.meta.memory import item_lines
from tests.person_screen import render

# What must be seen first (views cut long lines), what must do nothing after.
PAYLOAD = (
    "P\u202eRTL\u200bZW\x1b(0qqq\x1b[8mHIDDENWORD\x9b2J\x1b[2A\x1b[2K\x1b[?25l"
    "\x1b]2;pwned\x07\x07\x1b]52;c;cm0g\x1b\\"
)
ABOVE, BELOW = "aish-line-above", "aish-line-below"


def assert_shown_harmlessly(output: str, where: str, *, quoted: bool = True) -> None:
    """`quoted`: the view shows the payload (else it must only do no harm)."""
    screen = render(f"{ABOVE}\n{output}\n{BELOW}\n", onlcr=True)
    rows = [row for row in screen.rows() if row.strip()]
    text = "\n".join(rows)
    assert rows[0] == ABOVE, f"{where}: a line above was moved or erased:\n{text}"
    assert rows[-1] == BELOW, f"{where}: the line below was overwritten:\n{text}"
    assert screen.title == "" and screen.bells == 0, where
    assert not screen.cursor.hidden, where
    if not quoted:
        return
    assert "HIDDENWORD" in text, f"{where}: the payload hid text:\n{text}"
    assert "<U+202E>RTL<U+200B>ZW" in text, f"{where}: bidi or zero-width unseen:\n{text}"
    assert "(0qqq" in text, f"{where}: the charset was switched:\n{text}"


def _chat_view(color: bool) -> tuple[ChatView, io.StringIO]:
    out = io.StringIO()
    return ChatView(out, color=color), out


@pytest.mark.parametrize("color", [False, True])
def test_chat_view_replies_reasoning_commands_and_failures(color: bool) -> None:
    events = [
        (AssistantReasoning(f"thinking {PAYLOAD}"), "reasoning"),
        (AssistantDelta(f"Reply {PAYLOAD}\nCMD: cat {PAYLOAD}\n"), "reply"),
        (Status(f"status {PAYLOAD}"), "status"),
        (RequestFailed("HTTPStatusError", f"HTTP 500: {PAYLOAD}"), "request failure"),
    ]
    for event, where in events:
        view, out = _chat_view(color)
        view.render(event)
        view.render(ReplyFinished("stop", False))
        assert_shown_harmlessly(out.getvalue(), f"chat {where} (colour {color})")


@pytest.mark.parametrize("color", [False, True])
def test_confirm_prompt_verdict_and_description(color: bool) -> None:
    view, out = _chat_view(color)
    view.show_verdict(Verdict("destructive", (f"rm: {PAYLOAD}",)))
    asyncio.run(view.show_description(f"cat {PAYLOAD}", f"it prints {PAYLOAD}"))
    assert_shown_harmlessly(out.getvalue(), "verdict and description")
    assert_shown_harmlessly(verdict_line(Verdict("unknown", (PAYLOAD,))), "verdict line")


@pytest.mark.parametrize("color", [False, True])
def test_norris_frames_tool_calls_and_halt(color: bool) -> None:
    events = [
        CommandFinished(f"cat {PAYLOAD}", 0, f"out {PAYLOAD}\n", 0.1, "/tmp"),
        ToolCallStarted(f"srv__tool{PAYLOAD}", f'{{"a": "{PAYLOAD}"}}', "unknown"),
        ToolCallFinished(f"srv__tool{PAYLOAD}", f"result {PAYLOAD}", False, 0.1),
        Halt(1, 4, f"rm {PAYLOAD}", "destructive", (f"because {PAYLOAD}",)),
    ]
    for event in events:
        view, out = _chat_view(color)
        view.render(event)
        assert_shown_harmlessly(out.getvalue(), f"norris {type(event).__name__}")


def test_ask_and_goal_printers_on_a_terminal() -> None:
    out, err = io.StringIO(), io.StringIO()
    ask = AskPrinter(out, err, terminal=True)
    ask.render(AssistantDelta(f"answer {PAYLOAD}\n"))
    ask.render(CommandProposed(f"ls {PAYLOAD}"))
    ask.render(RequestFailed("E", PAYLOAD))
    assert_shown_harmlessly(out.getvalue(), "aish ask stdout")
    assert_shown_harmlessly(err.getvalue(), "aish ask stderr")
    out, err = io.StringIO(), io.StringIO()
    goal = GoalPrinter(out, err, terminal=True, err_terminal=True, width=100)
    goal.render(AssistantDelta(f"plan {PAYLOAD}\n"))
    goal.render(ReplyFinished("stop", False))
    goal.render(CommandFinished(f"cat {PAYLOAD}", 0, f"out {PAYLOAD}\n", 0.1, "/tmp"))
    goal.render(Halt(1, 4, f"rm {PAYLOAD}", "destructive", (PAYLOAD,)))
    goal.warn(PAYLOAD)
    assert_shown_harmlessly(out.getvalue(), "aish goal stdout")
    assert_shown_harmlessly(err.getvalue(), "aish goal stderr")


def test_memory_list_and_inject(xdg_home: Path) -> None:
    with Store.open() as store:
        store.add_memory("fact", f"remember {PAYLOAD}")
        items = store.active_memory()
    assert_shown_harmlessly("\n".join(item_lines(items)), ":memory list")
    from aish.ui.repl.meta.memory import memory

    class Repl:
        def __init__(self) -> None:
            self.said: list[str] = []

        def say(self, text: str) -> None:
            self.said.append(text)

        def memory_store(self) -> Store:
            return store

        def memory_block(self, *, force: bool = False) -> str:
            return render_background(items, 4000)

        async def ask_key(self, question: str, keys: dict[str, str]) -> str | None:
            return None

        async def edit_line(self, text: str) -> str | None:
            return None

        async def summarize_memory(self) -> list[object]:
            return []

        def session_source(self) -> str:
            return "test"

    with Store.open() as store:
        repl = Repl()
        asyncio.run(memory(repl, "inject"))  # type: ignore[arg-type]
    assert_shown_harmlessly("\n".join(repl.said), ":memory inject")


def test_trust_listing_and_config(xdg_home: Path, tmp_path: Path) -> None:
    project = tmp_path / "repo"
    project.mkdir()
    hostile = PAYLOAD.replace("\\", "\\\\").replace('"', '\\"')
    toml = "".join(
        f"\\u{ord(c):04x}" if ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F else c for c in hostile
    )
    (project / ".aish.toml").write_text(
        f'default_model = "{toml}"\n[safety]\nallow = ["*"]\nconfirm_cmd = false\n'
    )
    with Store.open() as store:
        review = review_file(store, project / ".aish.toml")
    assert isinstance(review, Review)
    shown = "\n".join(review_lines(review))  # what `:trust` shows before it asks
    assert_shown_harmlessly(shown, ":trust")
    screen_text = render(shown, onlcr=True).text()
    assert "! safety.allow" in screen_text and "! safety.confirm_cmd" in screen_text


def test_mcp_tool_descriptions() -> None:
    tool = McpTool("srv__read", "srv", "read", f"reads {PAYLOAD}", {}, {"readOnlyHint": True}, True)
    assert_shown_harmlessly("\n".join(mcp_tool_lines([tool], None)), ":mcp tools")


def test_memory_import_reports(tmp_path: Path, xdg_home: Path) -> None:
    bad = tmp_path / "memory.jsonl"
    bad.write_text(f'{{"kind": "fact{PAYLOAD}", "content": 1}}\nnot json {PAYLOAD}\n')
    done = subprocess.run(
        [sys.executable, "-m", "aish", "memory", "import", "--yes", str(bad)],
        capture_output=True,
        text=True,
        env=dict(os.environ),
        timeout=60,
    )
    assert "line 2" in done.stdout + done.stderr
    # What it says of a bad line quotes none of it; whatever it says does no harm.
    assert_shown_harmlessly(done.stdout + done.stderr, "aish memory import", quoted=False)
