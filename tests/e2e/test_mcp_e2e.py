"""MCP servers in the real REPL: started after the prompt, `:mcp`, `:mcp tools`, restart."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pexpect

from aish.ui.repl.meta.commands import mcp_status_lines, mcp_tool_lines

from ..conftest import ServeFn
from .conftest import AishTerminal, spawn_aish


def mcp_config(url: str) -> str:
    return (
        f'default_model = "local"\n[models.local]\nendpoint = "{url}/v1"\nmodel = "testllm"\n'
        "[mcp.servers.time]\n"
        f'command = "{sys.executable}"\n'
        'args = ["-m", "mcp_server_time", "--local-timezone=UTC"]\n'
        "[mcp.servers.broken]\n"
        'command = "no-such-mcp-server-here"\n'
    )


def until_shown(aish: AishTerminal, line: str, wanted: str, tries: int = 40) -> str:
    """Run `line` until its output contains `wanted` (a server takes a moment to start)."""
    shown = ""
    for _ in range(tries):
        shown = aish.run(line)
        if wanted in shown:
            return shown
        time.sleep(0.25)
    raise AssertionError(f"{wanted!r} never shown; last:\n{shown}")


def test_servers_start_after_the_prompt_and_are_listed(
    serve: ServeFn, aish_home: Path, terminals: list[AishTerminal]
) -> None:
    server = serve({"rules": [], "default": {"text": "ok"}})
    aish = spawn_aish(aish_home, config=mcp_config(server.url))
    terminals.append(aish)
    aish.wait_prompt()

    # The broken server says so once, above the prompt, and the REPL keeps working.
    aish.expect("mcp server 'broken' is down: command not found: no-such-mcp-server-here")
    aish.wait_prompt()  # redrawn below the notice
    assert "hello" in aish.run("echo hello")
    shown = until_shown(aish, ":mcp", "2 tools")
    assert "time    up        2 tools    stdio" in shown
    assert "broken  down      0 tools    stdio  command not found" in shown

    tools = aish.run(":mcp tools time")
    # Untrusted: its read-only hint is not shown as a fact (the gate ignores it too).
    assert "time__get_current_time  Get current time in a specific timezone" in tools
    assert "time__convert_time" in tools
    assert "no tools from 'broken'" in aish.run(":mcp tools broken")
    assert "mcp server 'time' restarted: 2 tools" in aish.run(":mcp restart time", timeout=30)
    assert "usage: :mcp" in aish.run(":mcp frobnicate")
    assert server.requests == []  # none of this asked the model
    aish.type_line(":quit")
    aish.child.expect(pexpect.EOF, timeout=15)


def test_a_tool_call_in_chat_runs_through_the_gate(
    serve: ServeFn, aish_home: Path, terminals: list[AishTerminal]
) -> None:
    server = serve(
        {
            "rules": [
                {"when": {"user": "day_of_week"}, "reply": {"text": "Done: it is that time."}},
                {
                    "when": {"user": "what time"},
                    "reply": {
                        "text": "Checking.",
                        "tool_calls": [
                            {"name": "time__get_current_time", "arguments": {"timezone": "UTC"}}
                        ],
                    },
                },
                {
                    "when": {"user": "convert"},
                    "reply": {
                        "tool_calls": [
                            {
                                "name": "time__convert_time",
                                "arguments": {
                                    "source_timezone": "UTC",
                                    "time": "12:00",
                                    "target_timezone": "Asia/Tokyo",
                                },
                            }
                        ]
                    },
                },
                {"when": {"user": "declined"}, "reply": {"text": "Fine, I will not."}},
            ]
        }
    )
    config = mcp_config(server.url).replace(
        '"--local-timezone=UTC"]\n',
        '"--local-timezone=UTC"]\ntrusted = true\nauto_approve = ["get_current_time"]\n',
    )
    aish = spawn_aish(aish_home, config=config)
    terminals.append(aish)
    aish.wait_prompt()
    aish.expect("mcp server 'broken' is down")
    aish.wait_prompt()  # redrawn below the notice
    until_shown(aish, ":mcp", "2 tools")

    # Trusted, read-only and auto-approved: it runs without a question, in a frame.
    shown = aish.run("what time is it in UTC")
    assert "time__get_current_time runs without asking (auto_approve)" in shown
    assert '┌ ⚙ time__get_current_time {"timezone": "UTC"} [safe]' in shown
    assert "└ ok · " in shown
    assert "Done: it is that time." in shown
    requests = [r for r in server.requests if r["path"].endswith("/chat/completions")]
    tool_messages = [m for m in requests[-1]["body"]["messages"] if m["role"] == "tool"]
    assert '"timezone": "UTC"' in tool_messages[-1]["content"]

    # Not auto-approved: the gate asks; `n` declines and the model is told.
    aish.type_line("please convert noon UTC to Tokyo time")
    aish.expect("time__convert_time")
    aish.expect(r"\[d\]escribe")
    aish.child.send("n")
    shown = aish.wait_prompt()
    assert "Fine, I will not." in shown
    requests = [r for r in server.requests if r["path"].endswith("/chat/completions")]
    tool_messages = [m for m in requests[-1]["body"]["messages"] if m["role"] == "tool"]
    assert "declined" in tool_messages[-1]["content"]

    history = aish.run(":history")
    assert 'time__get_current_time {"timezone":"UTC"}' in history  # the call, as made
    assert "── tool (" in history and '"day_of_week"' in history  # and its answer
    aish.type_line(":quit")
    aish.child.expect(pexpect.EOF, timeout=15)


def test_without_servers_mcp_says_how_to_add_one() -> None:
    assert mcp_status_lines([]) == [
        "no MCP servers configured ([mcp.servers.<name>] or mcp.import in the config)"
    ]
    assert mcp_tool_lines([], None) == ["no MCP tools (yet)"]
