"""Chat with a reply of many `CMD:` lines, in a real terminal: the first
`safety.max_commands_per_reply` are proposed (here they run unasked: `confirm_cmd = false`, and
`echo` is safe), the screen says the rest were dropped, and so does the next request."""

from __future__ import annotations

import io
from pathlib import Path

import pyte

from ..conftest import ServeFn
from .conftest import AishTerminal, spawn_aish

COLUMNS, ROWS = 160, 80
DROPPED = (
    "[aish] 9 more proposed commands not run: only the first 3 of a reply are taken "
    "(safety.max_commands_per_reply); propose fewer at a time"
)


def test_a_reply_with_more_commands_than_the_cap(
    serve: ServeFn, aish_home: Path, terminals: list[AishTerminal]
) -> None:
    flood = "Here you go:\n" + "".join(f"CMD: echo chat-{n}\n" for n in range(12))
    server = serve(
        {
            "rules": [{"when": {"user": "greet me"}, "reply": {"text": flood}}],
            "default": {"text": "ok"},
        }
    )
    config = (
        f'default_model = "local"\n[models.local]\nendpoint = "{server.url}/v1"\nmodel = "m"\n'
        "[safety]\nconfirm_cmd = false\nmax_commands_per_reply = 3\n"
    )
    aish = spawn_aish(aish_home, config=config)
    terminals.append(aish)
    aish.child.setwinsize(ROWS, COLUMNS)
    shown = io.StringIO()
    aish.child.logfile_read = shown
    aish.wait_prompt()
    aish.run("greet me please", timeout=60)

    screen = pyte.Screen(COLUMNS, ROWS)
    pyte.Stream(screen).feed(shown.getvalue())
    rows = [row.rstrip() for row in screen.display]
    assert any(DROPPED in row for row in rows)
    # The first three ran in the user's shell (their output is a row of its own); no others.
    outputs = [row for row in rows if row.startswith("chat-")]
    assert outputs == ["chat-0", "chat-1", "chat-2"]

    aish.run("thanks", timeout=60)
    told = server.requests[-1]["body"]["messages"][-1]["content"]
    assert DROPPED in told
    assert "$ echo chat-2" in told and "echo chat-3" not in told
