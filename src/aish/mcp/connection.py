"""One MCP server's connection, owned by one long-lived task.

The SDK's context managers must be entered and left by the same task, so a connection is an
actor: its task opens the client, lists the tools, then serves requests from a queue until it
is stopped or the server goes away, and closes everything on its way out. Each call runs as a
child task of the owner (so a slow tool does not hold up the others) and is bounded by the
server's `timeout_s`; a call whose caller is cancelled is cancelled at the server too.

States: `starting` until the handshake and the first tool list are done, then `up`, and
`down` for good once anything fails — a start that fails, a server that exits, one that stops
answering. `restart` is a new connection. The tool list a server last sent is published here;
the catalogue adopts it at a turn boundary (see `servers`).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Literal

from aish.config.schema import McpServer
from aish.mcp.failures import CONNECTION_CLOSED, REQUEST_TIMEOUT, describe, error_code, last_line
from aish.mcp.results import ToolResult, render_result

if TYPE_CHECKING:
    from mcp import Client

__all__ = ["ServerConnection", "State"]

_log = logging.getLogger("aish.mcp")

State = Literal["starting", "up", "down"]

# Generations come from one counter, so a restarted connection never repeats its predecessor's.
_GENERATIONS = itertools.count(1)
# A server that lists more pages than this is treated as listing no more.
_MAX_PAGES = 100
# After a call timed out, how long a second request may take before the server counts as hung.
_PROBE_TIMEOUT_S = 5.0


@dataclass(eq=False)  # calls are told apart by identity
class _Call:
    tool: str
    arguments: dict[str, Any]
    result: asyncio.Future[ToolResult]
    task: asyncio.Task[None] | None = None
    abandoned: bool = False
    started: float = field(default_factory=time.monotonic)


class _Relist:
    pass


@dataclass
class _Stop:
    reason: str | None = None  # None: closed by aish; text: the server is down for this reason


_Request = _Call | _Relist | _Stop


@dataclass
class ServerConnection:
    """The actor for server `name`; `on_down` hears once about each failure."""

    name: str
    server: McpServer
    env: Mapping[str, str]
    log_path: Path | None
    on_down: Callable[[str, str], None]
    state: State = "starting"
    error: str | None = None
    # The tools the server listed last (wire JSON) and a counter bumped whenever they (or the
    # state) change, so the catalogue can tell whether anything happened since it looked.
    tools: tuple[dict[str, Any], ...] = ()
    generation: int = 0
    _task: asyncio.Task[None] | None = field(default=None, repr=False)
    _queue: asyncio.Queue[_Request] = field(default_factory=asyncio.Queue, repr=False)
    _settled: asyncio.Event = field(default_factory=asyncio.Event, repr=False)
    _stopping: bool = field(default=False, repr=False)
    _log_offset: int = field(default=0, repr=False)
    _relist_pending: bool = field(default=False, repr=False)
    _relist_task: asyncio.Task[None] | None = field(default=None, repr=False)
    _in_flight: set[_Call] = field(default_factory=set, repr=False)

    @property
    def transport(self) -> Literal["stdio", "http"]:
        return "stdio" if self.server.command is not None else "http"

    def start(self) -> None:
        """Begin connecting in the background; returns at once (needs a running loop)."""
        self._task = asyncio.get_running_loop().create_task(self._run(), name=f"mcp {self.name}")

    async def settled(self, timeout_s: float) -> None:
        """Wait until the connection is up or down, at most `timeout_s`."""
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout_s):
                await self._settled.wait()

    async def call(self, tool: str, arguments: Mapping[str, Any]) -> ToolResult:
        """Call `tool`; never raises except CancelledError."""
        started = time.monotonic()
        if self.state == "starting":
            await self.settled(self.server.timeout_s)
        if self.state != "up":
            return self._failed(started, f"mcp server '{self.name}' is {self._down_text()}")
        call = _Call(tool, dict(arguments), asyncio.get_running_loop().create_future())
        self._queue.put_nowait(call)
        try:
            return await asyncio.shield(call.result)
        except asyncio.CancelledError:
            call.abandoned = True
            if call.task is not None:
                call.task.cancel()  # the SDK tells the server the request is cancelled
            raise

    async def close(self) -> None:
        """Stop the server and wait for the owner task to finish closing it."""
        task = self._task
        if task is None or task.done():
            return
        self._stopping = True
        self._queue.put_nowait(_Stop())
        # stdio shutdown is bounded by the SDK (stdin close, SIGTERM, SIGKILL: ~6 s at worst).
        done, _ = await asyncio.wait({task}, timeout=10.0)
        if not done:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    # ---- the owner task ----------------------------------------------------------------------

    async def _run(self) -> None:
        try:
            with self._open_log() as errlog:
                async with AsyncExitStack() as stack:
                    client = await self._connect(stack, errlog)
                    if client is not None:
                        await self._serve(client)
        except Exception as exc:
            _log.debug("mcp server %s failed", self.name, exc_info=True)
            self._go_down(describe(exc, self.server))
        finally:
            if self.state != "down":
                self._go_down(None)
            self._fail_waiting()

    async def _connect(self, stack: AsyncExitStack, errlog: IO[str] | None) -> Client | None:
        from aish.mcp.transport import load_sdk, open_client

        await load_sdk()
        # Discovery may fall back to the handshake: two round trips, then the list.
        budget = 3 * self.server.timeout_s
        try:
            async with asyncio.timeout(budget):
                client = await open_client(
                    stack,
                    self.server,
                    env=self.env,
                    errlog=errlog,
                    on_message=self._on_message,
                    on_closed=self._on_closed,
                )
                tools = await self._list(client)
        except TimeoutError:
            self._go_down(f"did not start within {budget:g} s")
            return None
        self.tools = tools
        self.state = "up"
        self.generation = next(_GENERATIONS)
        self._settled.set()
        return client

    async def _serve(self, client: Client) -> None:
        children: set[asyncio.Task[None]] = set()
        listener = self._listen(client)
        if listener is not None:
            children.add(listener)
        try:
            while True:
                request = await self._queue.get()
                if isinstance(request, _Stop):
                    if request.reason is not None and not self._stopping:
                        self._go_down(request.reason)
                    return
                children = {child for child in children if not child.done()}
                if isinstance(request, _Relist):
                    # One re-list at a time; it repeats itself while changes keep coming.
                    if self._relist_task is None or self._relist_task.done():
                        self._relist_task = asyncio.create_task(self._relist(client))
                        children.add(self._relist_task)
                elif not request.abandoned:
                    request.task = asyncio.create_task(self._call(client, request))
                    children.add(request.task)
                    self._in_flight = {c for c in self._in_flight if not c.result.done()}
                    self._in_flight.add(request)
        finally:
            for child in children:
                child.cancel()
            await asyncio.gather(*children, return_exceptions=True)

    async def _call(self, client: Client, call: _Call) -> None:
        from mcp import MCPError

        started = time.monotonic()
        timeout = self.server.timeout_s
        try:
            try:
                # The SDK's own timeout answers first; this one covers a call stuck elsewhere.
                async with asyncio.timeout(timeout + 1.0):
                    result = await client.call_tool(
                        call.tool, call.arguments, read_timeout_seconds=timeout
                    )
            except TimeoutError:
                outcome = await self._timed_out(client, started, call)
            except MCPError as exc:
                outcome = await self._protocol_error(client, exc, started, call)
            else:
                outcome = render_result(
                    _wire(result),
                    time.monotonic() - started,
                    limit=self.server.max_result_bytes,
                    limit_key=f"mcp.servers.{self.name}.max_result_bytes",
                )
        except asyncio.CancelledError:
            # The caller is gone, or the connection is closing: then the owner answers the
            # call once it knows why (see `_fail_waiting`).
            raise
        except Exception as exc:  # a bug or a malformed result: the model hears, aish goes on
            _log.debug("mcp call %s/%s failed", self.name, call.tool, exc_info=True)
            outcome = self._failed(started, f"mcp call failed: {describe(exc, self.server)}")
        if not call.result.done():
            call.result.set_result(outcome)

    async def _protocol_error(
        self, client: Client, exc: Exception, started: float, call: _Call
    ) -> ToolResult:
        code = error_code(exc)
        if code == REQUEST_TIMEOUT:
            return await self._timed_out(client, started, call)
        if code == CONNECTION_CLOSED:
            reason = self._closed_reason()
            self._queue.put_nowait(_Stop(reason))
            return self._failed(started, f"mcp server '{self.name}' {reason} during the call")
        return self._failed(started, f"mcp server '{self.name}': {describe(exc, self.server)}")

    async def _timed_out(self, client: Client, started: float, call: _Call) -> ToolResult:
        text = f"mcp server '{self.name}' did not answer within {self.server.timeout_s:g} s"
        outcome = self._failed(started, text)
        if not call.result.done():  # the caller hears at timeout_s; the probe is aish's business
            call.result.set_result(outcome)
        # A slow tool is the tool's business; a server that answers nothing at all is hung.
        try:
            async with asyncio.timeout(min(_PROBE_TIMEOUT_S, self.server.timeout_s)):
                await client.list_tools()
        except Exception:
            self._queue.put_nowait(
                _Stop(f"stopped answering (a call timed out after {self.server.timeout_s:g} s)")
            )
        return outcome

    async def _list(self, client: Client) -> tuple[dict[str, Any], ...]:
        tools: list[dict[str, Any]] = []
        cursor: str | None = None
        seen: set[str] = set()
        for _ in range(_MAX_PAGES):
            page = await client.list_tools(cursor=cursor)
            tools += [
                t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in page.tools
            ]
            cursor = page.next_cursor
            if cursor is None or cursor in seen:
                break
            seen.add(cursor)
        return tuple(tools)

    async def _relist(self, client: Client) -> None:
        while True:
            self._relist_pending = False
            try:
                tools = await self._list(client)
            except Exception as exc:
                _log.debug("mcp server %s: re-listing tools failed", self.name, exc_info=True)
                self.error = f"re-listing tools failed: {describe(exc, self.server)}"
                return
            if tools != self.tools:
                self.tools = tools
                self.generation = next(_GENERATIONS)
            if not self._relist_pending:
                return

    def _listen(self, client: Client) -> asyncio.Task[None] | None:
        """On a 2026-era connection change notifications come only to those who ask."""
        from mcp_types.version import MODERN_PROTOCOL_VERSIONS

        capability = client.server_capabilities.tools
        if client.protocol_version not in MODERN_PROTOCOL_VERSIONS or capability is None:
            return None
        if not capability.list_changed:
            return None

        async def listen() -> None:
            try:
                async with client.listen(tools_list_changed=True) as subscription:
                    async for _event in subscription:
                        self._want_relist()
            except Exception:
                _log.debug("mcp server %s: listening for changes failed", self.name, exc_info=True)

        return asyncio.create_task(listen())

    # ---- callbacks from the SDK (run inside the owner's task tree) ----------------------------

    async def _on_message(self, message: object) -> None:
        if isinstance(message, Exception):
            _log.debug("mcp server %s sent something unreadable: %s", self.name, message)
        elif getattr(message, "method", None) == "notifications/tools/list_changed":
            self._want_relist()

    def _want_relist(self) -> None:
        self._relist_pending = True
        self._queue.put_nowait(_Relist())

    def _on_closed(self) -> None:
        if not self._stopping:
            self._queue.put_nowait(_Stop(self._closed_reason()))

    # ---- state -----------------------------------------------------------------------------

    def _go_down(self, reason: str | None) -> None:
        """Down for `reason` (reported once), or quietly when aish closed it (None)."""
        if self.state == "down":
            return
        self.state = "down"
        self.tools = ()
        self.generation = next(_GENERATIONS)
        self._settled.set()
        if reason is not None:
            self.error = reason
            self.on_down(self.name, reason)

    def _fail_waiting(self) -> None:
        """Answer the calls the server will never answer now: queued, or cut short."""
        for call in self._in_flight:
            if not call.result.done():
                text = f"the call failed: mcp server '{self.name}' is {self._down_text()}"
                call.result.set_result(self._failed(call.started, text))
        self._in_flight.clear()
        while not self._queue.empty():
            request = self._queue.get_nowait()
            if isinstance(request, _Call) and not request.result.done():
                text = f"mcp server '{self.name}' is {self._down_text()}"
                request.result.set_result(self._failed(request.started, text))

    def _down_text(self) -> str:
        return f"down: {self.error}" if self.error else "down"

    def _closed_reason(self) -> str:
        line = last_line(self.log_path, self._log_offset) if self.log_path else None
        return f"exited ({line})" if line else "exited"

    def _failed(self, started: float, text: str) -> ToolResult:
        return ToolResult(text=text, is_error=True, duration_s=time.monotonic() - started)

    @contextlib.contextmanager
    def _open_log(self) -> Iterator[IO[str] | None]:
        if self.log_path is None or self.transport != "stdio":
            yield None
            return
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        with self.log_path.open("a", encoding="utf-8", errors="replace") as errlog:
            stamp = time.strftime("%Y-%m-%d %H:%M:%S")
            errlog.write(f"---- aish: starting mcp server '{self.name}' at {stamp} ----\n")
            errlog.flush()
            self._log_offset = errlog.tell()
            yield errlog


def _wire(model: Any) -> dict[str, Any]:
    """An SDK model as the JSON the server sent (camelCase keys)."""
    data: dict[str, Any] = model.model_dump(mode="json", by_alias=True, exclude_none=True)
    return data
