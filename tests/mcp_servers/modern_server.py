"""A stdio MCP server built on the SDK's own `MCPServer`, which speaks the 2026-07-28 protocol:
change notifications reach only clients that subscribed with `subscriptions/listen`.

Tools: `echo {text}`, and `add_tool {}`, which adds a tool `extra` and announces the change.
"""

from __future__ import annotations

from mcp.server.mcpserver import Context, MCPServer

server = MCPServer("modern")


@server.tool()
def echo(text: str) -> str:
    """The text back."""
    return text


def extra() -> str:
    """A tool that appears later."""
    return "extra"


@server.tool()
async def add_tool(ctx: Context) -> str:
    """Add the tool `extra` and tell subscribers the list changed."""
    server.add_tool(extra)
    await ctx.notify_tools_changed()
    return "added"


if __name__ == "__main__":
    server.run("stdio")
