"""Servers that fail: not installed, exiting mid-call, hanging, slow; stderr, start-up,
cancellation, pagination and list_changed — against a scripted stdio server
(tests/mcp_servers/scripted_server.py) speaking real JSON-RPC through the real SDK."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path

import pytest

from aish.config.validation import validate_section
from aish.mcp import McpServers, McpTool
from tests.mcp_servers.support import MODERN, SCRIPTED, scripted, servers, settled

SCRIPTED_TOOLS = ["add_tool", "crash", "echo", "fail", "freeze", "slow", "swap"]


def _tool(mcp: McpServers, name: str) -> McpTool:
    tool = mcp.find(name)
    assert tool is not None, [t.qualified for t in mcp.tools()]
    return tool


async def _up(mcp: McpServers) -> None:
    mcp.start()
    await settled(mcp)
    mcp.refresh()


async def test_start_returns_before_any_server_is_up(tmp_path: Path) -> None:
    mcp = servers({"a": scripted(), "b": scripted()}, tmp_path)
    try:
        mcp.start()
        assert [status.state for status in mcp.statuses()] == ["starting", "starting"]
        assert mcp.tools() == [] and mcp.refresh() is False
        await settled(mcp)
        assert [status.state for status in mcp.statuses()] == ["up", "up"]
        assert mcp.tools() == []  # nothing is adopted before a turn boundary
        assert mcp.refresh() is True
        assert len(mcp.tools()) == 2 * len(SCRIPTED_TOOLS)
    finally:
        await mcp.close()


async def test_every_page_of_the_tool_list_is_read(tmp_path: Path) -> None:
    mcp = servers({"s": scripted()}, tmp_path)
    try:
        await _up(mcp)  # the server lists two tools a page
        assert [tool.name for tool in mcp.tools()] == SCRIPTED_TOOLS
        assert _tool(mcp, "s__echo").annotations == {"readOnlyHint": True}
        assert _tool(mcp, "s__crash").annotations is None
    finally:
        await mcp.close()


async def test_a_server_that_is_not_installed_is_down_and_reported_once(tmp_path: Path) -> None:
    tables = {"ghost": {"command": "aish-no-such-mcp-server"}, "s": scripted()}
    mcp = servers(tables, tmp_path)
    try:
        await _up(mcp)
        ghost, good = mcp.statuses()
        assert (ghost.state, ghost.error) == ("down", "command not found: aish-no-such-mcp-server")
        assert good.state == "up"
        assert mcp.take_notices() == [
            "mcp server 'ghost' is down: command not found: aish-no-such-mcp-server"
        ]
        assert mcp.take_notices() == []
        assert {tool.server for tool in mcp.tools()} == {"s"}
        echo = await mcp.call(_tool(mcp, "s__echo"), {"text": "still here"})
        assert (echo.text, echo.is_error) == ("still here", False)
    finally:
        await mcp.close()


async def test_an_error_result_is_an_error(tmp_path: Path) -> None:
    mcp = servers({"s": scripted()}, tmp_path)
    try:
        await _up(mcp)
        result = await mcp.call(_tool(mcp, "s__fail"), {})
        assert (result.text, result.is_error) == ("this tool always fails", True)
        assert mcp.statuses()[0].state == "up"
    finally:
        await mcp.close()


async def test_a_server_exiting_mid_call_is_down_once_and_restart_brings_it_back(
    tmp_path: Path,
) -> None:
    mcp = servers({"s": scripted(), "other": scripted()}, tmp_path)
    try:
        await _up(mcp)
        crash = await mcp.call(_tool(mcp, "s__crash"), {})
        assert crash.is_error
        assert "mcp server 's'" in crash.text and "exited" in crash.text
        assert "fatal: simulated crash" in crash.text  # its last word on stderr
        await settled(mcp)
        status = mcp.statuses()[0]
        assert status.state == "down" and status.tools == 0
        assert status.error == "exited (fatal: simulated crash in the middle of a call)"
        assert mcp.take_notices() == [f"mcp server 's' is down: {status.error}"]
        assert mcp.take_notices() == []

        # Its tools stay in the catalogue until the next turn boundary; a call says it is down.
        late = await mcp.call(_tool(mcp, "s__echo"), {"text": "x"})
        assert late.is_error and "mcp server 's' is down: exited" in late.text
        assert mcp.refresh() is True
        assert {tool.server for tool in mcp.tools()} == {"other"}
        other = await mcp.call(_tool(mcp, "other__echo"), {"text": "fine"})
        assert other.text == "fine"

        assert await mcp.restart("s") == f"mcp server 's' restarted: {len(SCRIPTED_TOOLS)} tools"
        assert mcp.statuses()[0].state == "up"
        assert mcp.refresh() is True
        echo = await mcp.call(_tool(mcp, "s__echo"), {"text": "back"})
        assert (echo.text, echo.is_error) == ("back", False)
        assert mcp.take_notices() == []
    finally:
        await mcp.close()


async def went_down(mcp: McpServers, deadline_s: float = 30.0) -> None:
    end = time.monotonic() + deadline_s
    while not any(status.state == "down" for status in mcp.statuses()):
        assert time.monotonic() < end, f"never went down: {mcp.statuses()}"
        await asyncio.sleep(0.05)


async def test_a_hung_server_times_out_and_is_down(tmp_path: Path) -> None:
    mcp = servers({"s": scripted(timeout_s=1)}, tmp_path)
    try:
        await _up(mcp)
        result = await mcp.call(_tool(mcp, "s__freeze"), {})
        assert (result.text, result.is_error) == ("mcp server 's' did not answer within 1 s", True)
        # The call is answered at timeout_s; the probe that finds the server hung comes after.
        await went_down(mcp)
        [status] = mcp.statuses()
        assert status.state == "down"
        assert status.error == "stopped answering (a call timed out after 1 s)"
        assert mcp.take_notices() == [f"mcp server 's' is down: {status.error}"]
    finally:
        await mcp.close()


async def test_a_slow_call_times_out_but_the_server_stays_up(tmp_path: Path) -> None:
    mcp = servers({"s": scripted(timeout_s=1)}, tmp_path)
    try:
        await _up(mcp)
        result = await mcp.call(_tool(mcp, "s__slow"), {"seconds": 5})
        assert (result.text, result.is_error) == ("mcp server 's' did not answer within 1 s", True)
        assert mcp.statuses()[0].state == "up" and mcp.take_notices() == []
        echo = await mcp.call(_tool(mcp, "s__echo"), {"text": "alive"})
        assert echo.text == "alive"
    finally:
        await mcp.close()


async def test_a_cancelled_call_raises_and_the_server_goes_on(tmp_path: Path) -> None:
    mcp = servers({"s": scripted()}, tmp_path)
    try:
        await _up(mcp)
        call = asyncio.create_task(mcp.call(_tool(mcp, "s__slow"), {"seconds": 30}))
        await asyncio.sleep(0.2)
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        echo = await mcp.call(_tool(mcp, "s__echo"), {"text": "next"})
        assert (echo.text, echo.is_error) == ("next", False)
    finally:
        await mcp.close()
    log = mcp.statuses()[0].log_path
    assert log is not None and "cancelled request" in log.read_text()  # the server was told


async def test_stderr_goes_to_the_log_file_not_the_terminal(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    mcp = servers({"noisy": scripted()}, tmp_path / "logs")
    try:
        await _up(mcp)
        await mcp.call(_tool(mcp, "noisy__crash"), {})
        await settled(mcp)
    finally:
        await mcp.close()
    [status] = mcp.statuses()
    assert status.log_path == tmp_path / "logs" / "noisy.stderr.log"
    log = status.log_path.read_text()
    assert "hello from stderr" in log and "fatal: simulated crash" in log
    out, err = capfd.readouterr()
    assert "hello from stderr" not in out + err and "simulated crash" not in out + err


async def test_list_changed_is_adopted_only_at_refresh(tmp_path: Path) -> None:
    mcp = servers({"s": scripted()}, tmp_path)
    try:
        await _up(mcp)
        before = mcp.tools()
        added = await mcp.call(_tool(mcp, "s__add_tool"), {})
        assert added.text == "added"
        for _ in range(200):  # the re-list runs in the background
            if mcp.statuses()[0].tools == len(SCRIPTED_TOOLS) + 1:
                break
            await asyncio.sleep(0.05)
        assert mcp.statuses()[0].tools == len(SCRIPTED_TOOLS) + 1
        assert mcp.tools() == before and mcp.find("s__extra") is None
        assert mcp.refresh() is True
        assert mcp.find("s__extra") is not None
        assert mcp.refresh() is False
    finally:
        await mcp.close()


async def test_restart_of_an_unknown_server(tmp_path: Path) -> None:
    mcp = servers({"s": scripted()}, tmp_path)
    assert await mcp.restart("nope") == "no mcp server named 'nope' (known: s)"


async def test_servers_from_an_imported_file(tmp_path: Path) -> None:
    imported = tmp_path / "claude.json"
    entry = {"command": sys.executable, "args": ["${SCRIPT}"], "env": {"LEVEL": 3}}
    imported.write_text(json.dumps({"mcpServers": {"imp": entry, "old": {"type": "sse"}}}))
    mcp = servers({}, tmp_path, **{"import": [str(imported)]})
    assert [status.name for status in mcp.statuses()] == []  # ${SCRIPT} is not set
    notices = mcp.take_notices()
    assert f"{imported}: server 'imp': skipped: ${{SCRIPT}} is not set" in notices
    assert any("SSE transport is not supported" in notice for notice in notices)

    from aish.config.schema import McpConfig

    config = validate_section(McpConfig, {"import": [str(imported)]})
    mcp = McpServers.from_config(config, {"SCRIPT": str(SCRIPTED), "PATH": ""}, tmp_path)
    try:
        await _up(mcp)
        assert [(s.name, s.state) for s in mcp.statuses()] == [("imp", "up")]
        echo = await mcp.call(_tool(mcp, "imp__echo"), {"text": "imported"})
        assert echo.text == "imported"
    finally:
        await mcp.close()


async def test_list_changed_on_a_2026_connection_arrives_through_a_subscription(
    tmp_path: Path,
) -> None:
    modern = {"command": sys.executable, "args": [str(MODERN)]}
    mcp = servers({"m": modern}, tmp_path)
    try:
        await _up(mcp)
        assert [tool.qualified for tool in mcp.tools()] == ["m__add_tool", "m__echo"]
        echo = await mcp.call(_tool(mcp, "m__echo"), {"text": "hi"})
        assert (echo.text, echo.is_error) == ("hi", False)
        assert (await mcp.call(_tool(mcp, "m__add_tool"), {})).text == "added"
        for _ in range(200):
            if mcp.statuses()[0].tools == 3:
                break
            await asyncio.sleep(0.05)
        assert mcp.find("m__extra") is None
        assert mcp.refresh() is True
        assert mcp.find("m__extra") is not None
    finally:
        await mcp.close()


async def test_a_result_past_max_result_bytes_is_cut_with_a_line_saying_so(
    tmp_path: Path,
) -> None:
    mcp = servers({"s": scripted(max_result_bytes=4096)}, tmp_path)
    big = "HEAD" + "x" * 200_000 + "TAIL"
    try:
        await _up(mcp)
        result = await mcp.call(_tool(mcp, "s__echo"), {"text": big})
        notice, _, kept = result.text.partition("\n")
        assert notice == "[result cut: 195.3 KB, 4.0 KB kept (mcp.servers.s.max_result_bytes)]"
        assert kept.startswith("HEAD") and kept.endswith("TAIL") and not result.is_error
        assert len(kept.encode()) < 4096 + 100
        small = await mcp.call(_tool(mcp, "s__echo"), {"text": "x" * 4096})
        assert small.text == "x" * 4096  # up to the limit, untouched
    finally:
        await mcp.close()
