"""Opening one SDK client: a stdio child process or a Streamable HTTP endpoint.

The only module besides `connection` that touches the `mcp` SDK, and it is imported only when a
server starts, never at `import aish…` (the SDK takes over a second to import).

Everything is entered on an exit stack that belongs to the connection's own task: the SDK's
context managers hold anyio task groups and cancel scopes, which break when they are entered
and left by different tasks.

A stdio server gets the user's whole environment with its configured `env` on top, the way
other MCP hosts start them: a server needs PATH to find its interpreter and often a key
variable the user exported for it. (The SDK alone would pass only HOME, LOGNAME, PATH, SHELL,
TERM and USER.)
"""

from __future__ import annotations

import asyncio
import importlib
import sys
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import AsyncExitStack, asynccontextmanager
from typing import IO, TYPE_CHECKING, Any

from aish import __version__
from aish.config.schema import McpServer

if TYPE_CHECKING:
    from mcp import Client
    from mcp.client import Transport
    from mcp.client._transport import TransportStreams
    from mcp.client.session import MessageHandlerFnT

__all__ = ["open_client"]

# A server may hold a Streamable HTTP response open while a tool runs; each request is bounded
# by the call's own timeout instead.
_HTTP_READ_TIMEOUT_S = 300.0


_SDK_MODULES = ("httpx2", "mcp", "mcp.client.stdio", "mcp.client.streamable_http", "mcp_types")


def _import_sdk() -> None:
    for name in _SDK_MODULES:
        importlib.import_module(name)


async def load_sdk() -> None:
    """Import the SDK in a worker thread: it takes over a second, and done on the event loop
    it would freeze the prompt that is already on the screen."""
    if "mcp.client.streamable_http" not in sys.modules:
        await asyncio.to_thread(_import_sdk)


async def open_client(
    stack: AsyncExitStack,
    server: McpServer,
    *,
    env: Mapping[str, str],
    errlog: IO[str] | None,
    on_message: MessageHandlerFnT,
    on_closed: Callable[[], None],
) -> Client:
    """Connect and complete the handshake; the connection lives as long as `stack`.

    `on_closed` is called when a stdio server's output ends (it exited or closed stdout): the
    SDK fails the requests in flight but says nothing to a connection that is idle.
    """
    from mcp import Client
    from mcp.types import Implementation

    transport: Transport
    if server.command is not None:
        transport = _watched(_stdio(server, env=env, errlog=errlog), on_closed)
    else:
        transport = await _http(stack, server)
    client = Client(
        transport,
        read_timeout_seconds=server.timeout_s,
        message_handler=on_message,
        client_info=Implementation(name="aish", version=__version__),
        # aish keeps the tool list itself and re-lists only when told it changed.
        cache=None,
    )
    return await stack.enter_async_context(client)


def _stdio(server: McpServer, *, env: Mapping[str, str], errlog: IO[str] | None) -> Transport:
    from mcp.client.stdio import StdioServerParameters, stdio_client

    assert server.command is not None
    parameters = StdioServerParameters(
        command=server.command,
        args=list(server.args),
        env={**env, **server.env},
        cwd=server.cwd,
        encoding_error_handler="replace",
    )
    if errlog is None:
        return stdio_client(parameters)
    return stdio_client(parameters, errlog=errlog)  # type: ignore[arg-type]


async def _http(stack: AsyncExitStack, server: McpServer) -> Transport:
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    assert server.url is not None
    timeout = httpx2.Timeout(server.timeout_s, read=max(_HTTP_READ_TIMEOUT_S, server.timeout_s))
    http = await stack.enter_async_context(
        httpx2.AsyncClient(headers=dict(server.headers), timeout=timeout)
    )
    return streamable_http_client(server.url, http_client=http)


@asynccontextmanager
async def _watched(transport: Transport, on_closed: Callable[[], None]) -> AsyncIterator[Any]:
    """`transport`, with `on_closed` called when its read stream ends."""
    import anyio

    async with transport as (read, write):
        relay_send, relay_receive = anyio.create_memory_object_stream[Any](0)

        async def relay() -> None:
            try:
                async with relay_send:
                    async for message in read:
                        await relay_send.send(message)
            except (anyio.BrokenResourceError, anyio.ClosedResourceError):
                pass  # the session is gone: we are shutting down
            finally:
                on_closed()

        async with anyio.create_task_group() as group:
            group.start_soon(relay)
            streams: TransportStreams = (relay_receive, write)
            try:
                yield streams
            finally:
                group.cancel_scope.cancel()
