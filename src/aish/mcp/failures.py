"""What went wrong with a server, in one line a user can act on.

The SDK reports failures as exception groups from its task groups, JSON-RPC errors, transport
errors of `httpx2` and plain OS errors from spawning; the innermost exception is the one that
says what happened. A server that died usually said why on its stderr, so the last line of its
log is quoted.
"""

from __future__ import annotations

from pathlib import Path

from aish.config.schema import McpServer

__all__ = ["CONNECTION_CLOSED", "REQUEST_TIMEOUT", "describe", "error_code", "last_line"]

# JSON-RPC error codes the SDK uses for its own failures.
CONNECTION_CLOSED = -32000
REQUEST_TIMEOUT = -32001

_MAX_LINE = 200
_TAIL_BYTES = 8192


def describe(exc: BaseException, server: McpServer) -> str:
    """One line: what failed, without a traceback."""
    exc = innermost(exc)
    if isinstance(exc, FileNotFoundError) and server.command is not None:
        if server.cwd is not None and not Path(server.cwd).is_dir():
            return f"working directory not found: {server.cwd}"
        return f"command not found: {server.command}"
    if isinstance(exc, PermissionError) and server.command is not None:
        return f"cannot run {server.command}: permission denied"
    code = error_code(exc)
    if code == CONNECTION_CLOSED:
        return "closed the connection"
    if code == REQUEST_TIMEOUT:
        return f"did not answer within {server.timeout_s:g} s"
    if code is not None:
        return _one_line(f"{getattr(exc, 'message', exc)} (error {code})")
    if isinstance(exc, TimeoutError):
        return "timed out"
    http = _http_failure(exc, server)
    if http is not None:
        return http
    text = str(exc).strip()
    return _one_line(f"{type(exc).__name__}: {text}" if text else type(exc).__name__)


def innermost(exc: BaseException) -> BaseException:
    """The first leaf of nested exception groups."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def error_code(exc: BaseException) -> int | None:
    """The JSON-RPC error code of an `MCPError`, else None."""
    from mcp import MCPError

    return exc.code if isinstance(exc, MCPError) else None


def last_line(path: Path, offset: int = 0) -> str | None:
    """The last non-blank line written to `path` after `offset`, shortened; None if none."""
    try:
        with path.open("rb") as log:
            end = log.seek(0, 2)
            log.seek(max(offset, end - _TAIL_BYTES))
            tail = log.read().decode("utf-8", errors="replace")
    except OSError:
        return None
    lines = [line.strip() for line in tail.splitlines() if line.strip()]
    return _one_line(lines[-1]) if lines else None


def _http_failure(exc: BaseException, server: McpServer) -> str | None:
    import sys

    httpx2 = sys.modules.get("httpx2")  # only loaded when an HTTP server was started
    if httpx2 is None:
        return None
    if isinstance(exc, httpx2.ConnectError | httpx2.ConnectTimeout):
        return f"cannot connect to {server.url}"
    if isinstance(exc, httpx2.HTTPStatusError):
        return f"HTTP {exc.response.status_code} from {server.url}"
    if isinstance(exc, httpx2.TimeoutException):
        return f"{server.url} did not answer in time"
    return None


def _one_line(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= _MAX_LINE else line[: _MAX_LINE - 1] + "…"
