"""The HTTP request handler: routing, the request log, and writing scripted responses."""

from __future__ import annotations

import json
import time
from http.server import BaseHTTPRequestHandler
from typing import Any, Protocol
from urllib.parse import urlsplit

from aish_testllm.anthropic_stream import anthropic_body, anthropic_events
from aish_testllm.chat_request import ChatRequest, parse_chat_request
from aish_testllm.completion import resolve
from aish_testllm.errors import http_error_body, midstream_error_events
from aish_testllm.openai_stream import openai_body, openai_events
from aish_testllm.scenario import Reply
from aish_testllm.sse import SseEvent
from aish_testllm.state import Admission, ServerState
from aish_testllm.streaming import ChunkedWriter, write_stream
from aish_testllm.tokens import tokenize

CHAT_PATHS = {"/v1/chat/completions": "openai", "/v1/messages": "anthropic"}
# Non-chat routes that answer 503 while loading (the chat endpoints do too).
_BLOCKED_WHILE_LOADING = {("GET", "/health"), ("POST", "/tokenize"), ("POST", "/apply-template")}
_CLIENT_GONE = (BrokenPipeError, ConnectionResetError, ConnectionAbortedError)


class _HasState(Protocol):
    state: ServerState


def _json_bytes(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False).encode("utf-8")


def _parse_json(raw: bytes) -> Any:
    """The parsed body, or None when it is empty or not JSON."""
    if not raw:
        return None
    try:
        return json.loads(raw)
    except ValueError:
        return None


class Handler(BaseHTTPRequestHandler):
    """Serves one connection (HTTP/1.1 keep-alive) of the test server."""

    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # every SSE chunk goes out at once
    server_version = "aish-testllm"
    sys_version = ""

    @property
    def state(self) -> ServerState:
        server: _HasState = self.server  # type: ignore[assignment]
        return server.state

    def log_message(self, format: str, *args: Any) -> None:
        """Silence the default stderr access log; requests go to the request log instead."""

    def do_GET(self) -> None:
        """Handle GET."""
        self._handle()

    def do_POST(self) -> None:
        """Handle POST."""
        self._handle()

    do_PUT = do_POST
    do_PATCH = do_POST
    do_DELETE = do_GET
    do_OPTIONS = do_GET

    # --- plumbing ------------------------------------------------------------------------------

    def _handle(self) -> None:
        try:
            self._route(urlsplit(self.path).path, time.time(), self._read_body())
        except _CLIENT_GONE:
            self.close_connection = True

    def _read_body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            parts: list[bytes] = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return b"".join(parts)
                parts.append(self.rfile.read(size))
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length > 0 else b""

    def _log(self, path: str, ts: float, body: Any, **fields: Any) -> None:
        record = {
            "n": None,
            "ts": ts,
            "method": self.command,
            "path": path,
            "api": None,
            "model": None,
            "stream": False,
            "rule": None,
            "body": body,
            "prefix_reuse": None,
            # The client's port: two requests with the same one came on one kept connection.
            "connection": self.client_address[1] if self.client_address else None,
        }
        record.update(fields)
        self.state.log.append(record)

    def _send(
        self,
        status: int,
        payload: bytes,
        content_type: str = "application/json",
        headers: tuple[tuple[str, str], ...] = (),
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(payload)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(payload)
        self.wfile.flush()

    def _send_json(self, status: int, value: Any) -> None:
        self._send(status, _json_bytes(value))

    def _start_chunked(
        self, status: int, content_type: str, headers: tuple[tuple[str, str], ...]
    ) -> ChunkedWriter:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.flush()
        return ChunkedWriter(self.wfile)

    # --- routing -------------------------------------------------------------------------------

    def _route(self, path: str, ts: float, raw: bytes) -> None:
        method = self.command
        api = CHAT_PATHS.get(path)
        if api is not None and method == "POST":
            self._chat(api, path, ts, raw)
            return
        body = _parse_json(raw)
        self._log(path, ts, body)
        if (method, path) in _BLOCKED_WHILE_LOADING and self.state.loading():
            self._send_loading()
        elif (method, path) == ("GET", "/health"):
            self._send_json(200, {"status": "ok"})
        elif (method, path) == ("GET", "/v1/models"):
            models = [
                {"id": m, "object": "model", "created": 0, "owned_by": "aish-testllm"}
                for m in self.state.scenario.models
            ]
            self._send_json(200, {"object": "list", "data": models})
        elif (method, path) == ("POST", "/tokenize"):
            self._tokenize(body)
        elif (method, path) == ("POST", "/apply-template"):
            self._apply_template(body)
        else:
            self._send_json(404, http_error_body(None, 404, f"No route for {method} {path}"))

    def _send_loading(self) -> None:
        error = {"code": 503, "message": "Loading model", "type": "unavailable_error"}
        self._send_json(503, {"error": error})

    def _tokenize(self, body: Any) -> None:
        content = body.get("content", body.get("prompt")) if isinstance(body, dict) else None
        if not isinstance(content, str):
            self._send_json(400, http_error_body(None, 400, "'content' must be a string"))
            return
        self._send_json(200, {"tokens": tokenize(content, self.state.scenario.chars_per_token)})

    def _apply_template(self, body: Any) -> None:
        """llama-server's ``/apply-template``: the prompt text the chat endpoint would count."""
        try:
            request = parse_chat_request("openai", body)
        except ValueError as exc:
            self._send_json(400, http_error_body(None, 400, f"Invalid request: {exc}"))
            return
        self._send_json(200, {"prompt": request.prompt})

    # --- chat ----------------------------------------------------------------------------------

    def _chat(self, api: str, path: str, ts: float, raw: bytes) -> None:
        body = _parse_json(raw)
        try:
            if body is None:
                raise ValueError("the body is not a JSON object")
            request = parse_chat_request(api, body)
        except ValueError as exc:
            self._log(path, ts, body, api=api)
            self._send_json(400, http_error_body(api, 400, f"Invalid request: {exc}"))
            return
        if self.state.loading():
            self._log(path, ts, body, api=api, model=request.model, stream=request.stream)
            self._send_loading()
            return
        admission = self.state.admit(request)
        self._log(
            path,
            ts,
            body,
            n=admission.selection.n,
            api=api,
            model=request.model,
            stream=request.stream,
            rule=admission.selection.rule,
            prefix_reuse=admission.reuse.as_json(),
        )
        self._reply(api, request, admission)

    def _reply(self, api: str, request: ChatRequest, admission: Admission) -> None:
        reply = admission.selection.reply
        if reply.raw is not None:
            self._reply_raw(reply)
            return
        if reply.status is not None:
            self._reply_status(api, reply)
            return
        prefix = "toolu_" if api == "anthropic" else "call_"
        completion = resolve(
            reply,
            request,
            n=admission.selection.n,
            reuse=admission.reuse,
            default_model=self.state.scenario.models[0],
            new_id=lambda: self.state.ids.next_id(prefix),
            chars_per_token=self.state.scenario.chars_per_token,
        )
        if not request.stream:
            if api == "anthropic":
                self._reply_whole(api, reply, anthropic_body(completion))
            else:
                self._reply_whole(api, reply, openai_body(completion, reply))
            return
        events: list[SseEvent]
        if api == "anthropic":
            events = anthropic_events(completion, reply)
        else:
            events = openai_events(completion, reply, request.include_usage)
        style = reply.error_style or ("anthropic" if api == "anthropic" else "openai")
        out = self._start_chunked(200, "text/event-stream", reply.headers)
        errors = midstream_error_events(style, reply.error_message)
        if not write_stream(out, events, reply, errors, self.state.sleep):
            self.close_connection = True

    def _reply_raw(self, reply: Reply) -> None:
        content_type = reply.content_type or "text/event-stream"
        out = self._start_chunked(reply.status or 200, content_type, reply.headers)
        events = [SseEvent(raw=piece, content=True) for piece in reply.raw or ()]
        if not write_stream(out, events, reply, (), self.state.sleep):
            self.close_connection = True

    def _pause(self, reply: Reply) -> bool:
        """The whole-response delay of non-stream replies (first delay plus any stall)."""
        stall_s = reply.stall_s if reply.stall_after is not None else 0.0
        seconds = reply.first_delay_ms / 1000 + stall_s
        return seconds <= 0 or self.state.sleep(seconds)

    def _reply_status(self, api: str, reply: Reply) -> None:
        assert reply.status is not None
        if not self._pause(reply):
            self.close_connection = True
            return
        body = reply.body
        if body is None:
            body = http_error_body(api, reply.status)
        payload = body.encode("utf-8") if isinstance(body, str) else _json_bytes(body)
        content_type = reply.content_type or "application/json"
        self._send(reply.status, payload, content_type, reply.headers)

    def _reply_whole(self, api: str, reply: Reply, body: dict[str, Any]) -> None:
        if not self._pause(reply):
            self.close_connection = True
            return
        if reply.error_after is not None:
            error = http_error_body(api, 500, reply.error_message)
            self._send(500, _json_bytes(error), headers=reply.headers)
            return
        payload = _json_bytes(body)
        if reply.cut_after is None:
            self._send(200, payload, headers=reply.headers)
            return
        # Promise the full length, deliver half, then drop the connection.
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        for name, value in reply.headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(payload[: len(payload) // 2])
        self.wfile.flush()
        self.close_connection = True
