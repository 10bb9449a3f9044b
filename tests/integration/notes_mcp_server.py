"""A small real MCP server (the official SDK, over stdio) for the tool-loop tests.

It keeps notes as files in the directory given as its only argument, so a test can see
whether a call really ran:

- `read_note {name}`: the note's text; annotated read-only.
- `write_note {name, text}`: writes the note; declares no annotations (destructive by default).
- `append_note {name, text}`: adds to a note; annotated as not destructive (it only adds), so
  a trusted server's call to it is `unknown`.
- `drop_notes {}`: deletes every note; annotated destructive.
- `broken {}`: always fails (an `isError` result).
- `wait {seconds}`: answers after a while; annotated read-only.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations


def create_server(folder: Path) -> MCPServer:
    server = MCPServer("notes")

    @server.tool(
        name="read_note",
        description="Read a note",
        annotations=ToolAnnotations(read_only_hint=True, destructive_hint=False),
    )
    def read_note(name: str) -> str:
        path = folder / name
        if not path.is_file():
            raise ToolError(f"no note named {name}")
        return path.read_text()

    @server.tool(name="write_note", description="Write a note")
    def write_note(name: str, text: str) -> str:
        (folder / name).write_text(text)
        return f"wrote {name}"

    @server.tool(
        name="append_note",
        description="Add a line to a note",
        annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False),
    )
    def append_note(name: str, text: str) -> str:
        with (folder / name).open("a") as note:
            note.write(text + "\n")
        return f"appended to {name}"

    @server.tool(
        name="drop_notes",
        description="Delete every note",
        annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True),
    )
    def drop_notes() -> str:
        for path in folder.iterdir():
            path.unlink()
        return "dropped"

    @server.tool(
        name="wait",
        description="Wait a while",
        annotations=ToolAnnotations(read_only_hint=True, destructive_hint=False),
    )
    async def wait(seconds: float) -> str:
        await asyncio.sleep(seconds)
        return "waited"

    @server.tool(name="broken", description="Always fails")
    def broken() -> str:
        raise ToolError("the disk is on fire")

    return server


if __name__ == "__main__":
    asyncio.run(create_server(Path(sys.argv[1])).run_stdio_async())
