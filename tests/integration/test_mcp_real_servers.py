"""McpServers against the real reference servers: server-everything (npm) over stdio and
Streamable HTTP, mcp-server-time (PyPI) over stdio."""

from __future__ import annotations

import json
from pathlib import Path

from aish.mcp import McpServers, McpTool, tool_specs
from tests.mcp_servers.support import (
    everything_http,
    everything_stdio,
    needs_everything,
    needs_time,
    servers,
    settled,
    time_stdio,
)


def _tool(mcp: McpServers, name: str) -> McpTool:
    tool = mcp.find(name)
    assert tool is not None, [t.qualified for t in mcp.tools()]
    return tool


@needs_everything
@needs_time
async def test_tools_of_both_servers_are_listed_and_called_over_stdio(tmp_path: Path) -> None:
    mcp = servers({"everything": everything_stdio(), "time": time_stdio()}, tmp_path)
    mcp.start()
    try:
        await settled(mcp)
        assert [(s.name, s.state, s.transport) for s in mcp.statuses()] == [
            ("everything", "up", "stdio"),
            ("time", "up", "stdio"),
        ]
        assert mcp.refresh() is True
        names = [tool.qualified for tool in mcp.tools()]
        assert names == sorted(names)
        assert {"everything__echo", "everything__get-sum", "time__get_current_time"} <= set(names)
        current_time = _tool(mcp, "time__get_current_time")
        assert (current_time.server, current_time.name) == ("time", "get_current_time")
        assert current_time.annotations is not None
        assert current_time.annotations["readOnlyHint"] is True
        assert current_time.trusted is False
        assert "timezone" in current_time.input_schema["properties"]

        echo = await mcp.call(_tool(mcp, "everything__echo"), {"message": "hello"})
        assert (echo.text, echo.is_error) == ("Echo: hello", False)
        assert echo.duration_s >= 0
        total = await mcp.call(_tool(mcp, "everything__get-sum"), {"a": 2, "b": 3})
        assert total.text == "The sum of 2 and 3 is 5."
        now = await mcp.call(current_time, {"timezone": "UTC"})
        assert not now.is_error
        assert json.loads(now.text)["timezone"] == "UTC"  # said once, not again as JSON
    finally:
        await mcp.close()


@needs_everything
@needs_time
async def test_errors_images_and_structured_content(tmp_path: Path) -> None:
    mcp = servers({"everything": everything_stdio(), "time": time_stdio()}, tmp_path)
    mcp.start()
    try:
        await settled(mcp)
        mcp.refresh()
        bad = await mcp.call(_tool(mcp, "time__get_current_time"), {"timezone": "Nowhere/Nope"})
        assert bad.is_error and "Nowhere/Nope" in bad.text
        image = await mcp.call(_tool(mcp, "everything__get-tiny-image"), {})
        assert "[image/png, " in image.text and " KB]" in image.text
        assert "base64" not in image.text and len(image.text) < 300
        structured = await mcp.call(
            _tool(mcp, "everything__get-structured-content"), {"location": "New York"}
        )
        assert json.loads(structured.text).keys() >= {"temperature", "conditions"}
        reference = await mcp.call(
            _tool(mcp, "everything__get-resource-reference"),
            {"resourceType": "Text", "resourceId": 1},
        )
        assert "[resource demo://resource/dynamic/text/1 (text/plain)]" in reference.text
        # A protocol error (an unknown tool) is an error result too, never an exception.
        ghost = McpTool("everything__ghost", "everything", "ghost", "", {}, None, False)
        missing = await mcp.call(ghost, {})
        assert missing.is_error and "ghost" in missing.text
    finally:
        await mcp.close()


@needs_everything
async def test_everything_over_streamable_http_with_headers(tmp_path: Path) -> None:
    with everything_http(tmp_path / "everything-http.log") as url:
        table = {"url": url, "headers": {"X-Aish-Test": "1"}}
        mcp = servers({"web": table}, tmp_path)
        mcp.start()
        try:
            await settled(mcp)
            [status] = mcp.statuses()
            assert (status.state, status.transport, status.log_path) == ("up", "http", None)
            assert mcp.refresh() is True
            echo = await mcp.call(_tool(mcp, "web__echo"), {"message": "over http"})
            assert (echo.text, echo.is_error) == ("Echo: over http", False)
        finally:
            await mcp.close()


@needs_everything
async def test_an_http_server_that_went_away_is_down_at_the_next_call(tmp_path: Path) -> None:
    with everything_http(tmp_path / "everything-http.log") as url:
        mcp = servers({"web": {"url": url}, "local": everything_stdio()}, tmp_path)
        mcp.start()
        await settled(mcp)
        mcp.refresh()
    try:  # the HTTP server is stopped now
        echo = await mcp.call(_tool(mcp, "web__echo"), {"message": "anyone?"})
        assert echo.is_error
        assert echo.text == f"the call failed: mcp server 'web' is down: cannot connect to {url}"
        await settled(mcp)
        assert [s.state for s in mcp.statuses()] == ["down", "up"]
        assert mcp.take_notices() == [f"mcp server 'web' is down: cannot connect to {url}"]
        local = await mcp.call(_tool(mcp, "local__echo"), {"message": "here"})
        assert local.text == "Echo: here"
    finally:
        await mcp.close()


@needs_everything
@needs_time
async def test_tool_specs_are_the_same_bytes_every_time(tmp_path: Path) -> None:
    mcp = servers({"time": time_stdio(), "everything": everything_stdio()}, tmp_path)
    mcp.start()
    try:
        await settled(mcp)
        mcp.refresh()
        tools = mcp.tools()
        first = json.dumps([vars(spec) for spec in tool_specs(tools)])
        again = json.dumps([vars(spec) for spec in tool_specs(list(reversed(tools)))])
        assert first == again
        assert [spec.name for spec in tool_specs(tools)] == sorted(t.qualified for t in tools)
    finally:
        await mcp.close()
