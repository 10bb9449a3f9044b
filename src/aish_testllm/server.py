"""The test server as a Python object: ``TestLLMServer`` serves a scenario in a thread.

Example::

    with TestLLMServer({"rules": [], "default": {"text": "hi"}}) as llm:
        httpx.post(f"{llm.url}/v1/chat/completions", json={...})
        assert llm.requests[0]["n"] == 1
"""

from __future__ import annotations

import contextlib
import socket
import sys
import threading
from collections.abc import Mapping
from http.server import ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any

from aish_testllm.handler import Handler
from aish_testllm.reqlog import RequestLog
from aish_testllm.scenario import (
    DEFAULT_SCENARIO,
    Scenario,
    load_scenario,
    parse_scenario,
)
from aish_testllm.state import ServerState

_POLL_INTERVAL_S = 0.05


class _HTTPServer(ThreadingHTTPServer):
    """Threaded HTTP server that knows its open connections so it can drop them on close."""

    daemon_threads = True

    def __init__(self, address: tuple[str, int], state: ServerState) -> None:
        self.state = state
        self._connections: set[socket.socket] = set()
        self._connections_lock = threading.Lock()
        super().__init__(address, Handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        with self._connections_lock:
            self._connections.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        with self._connections_lock:
            self._connections.discard(request)
        super().shutdown_request(request)

    def drop_connections(self) -> None:
        """Shut down every open connection (unblocks idle keep-alive handler threads)."""
        with self._connections_lock:
            connections = list(self._connections)
        for connection in connections:
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Stay quiet about clients that went away; report anything else."""
        if isinstance(sys.exc_info()[1], ConnectionError | TimeoutError):
            return
        super().handle_error(request, client_address)


ScenarioSource = Mapping[str, Any] | Path | str | Scenario | None
"""A scenario document, a path to a scenario file, a parsed scenario, or None (built-in)."""


def _as_scenario(scenario: ScenarioSource) -> Scenario:
    if scenario is None:
        return parse_scenario(DEFAULT_SCENARIO)
    if isinstance(scenario, Scenario):
        return scenario
    if isinstance(scenario, Path | str):
        return load_scenario(Path(scenario))
    return parse_scenario(dict(scenario))


class TestLLMServer:
    """A scripted model server on ``host:port`` (port 0 picks a free one), serving at once.

    Raises :class:`~aish_testllm.scenario.ScenarioError` for an invalid scenario.
    """

    __test__ = False  # not a pytest test class despite the name

    def __init__(
        self,
        scenario: ScenarioSource = None,
        log_path: Path | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
    ) -> None:
        parsed = _as_scenario(scenario)
        self._log = RequestLog(log_path)
        self._state = ServerState(parsed, self._log)
        try:
            self._httpd = _HTTPServer((host, port), self._state)
        except OSError:
            self._log.close()
            raise
        bound_host, bound_port = self._httpd.server_address[:2]
        self.url = f"http://{bound_host!s}:{bound_port}"
        self._closed = False
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": _POLL_INTERVAL_S},
            name=f"aish-testllm:{bound_port}",
            daemon=True,
        )
        self._thread.start()

    @property
    def requests(self) -> list[dict[str, Any]]:
        """The request log records so far (a snapshot)."""
        return self._log.records

    def close(self) -> None:
        """Stop serving, drop open connections and close the log (idempotent)."""
        if self._closed:
            return
        self._closed = True
        self._state.stopping.set()
        self._httpd.shutdown()
        self._httpd.drop_connections()
        self._httpd.server_close()
        self._thread.join()
        self._log.close()

    def __enter__(self) -> TestLLMServer:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
