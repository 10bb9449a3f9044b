"""A tiny stdio MCP server that misbehaves on request, for the connection tests.

Raw newline-delimited JSON-RPC, handshake era (it answers `server/discover` with "method not
found", as a 2025 server does, so a client falls back to `initialize`). Its tools:

- `echo {text}`: the text back.
- `slow {seconds}`: answers after a while; the server keeps answering other requests.
- `freeze {}`: the whole server stops reading and answering (a hung process).
- `crash {}`: writes a last word on stderr and exits in the middle of the call.
- `add_tool {}`: adds a tool `extra` and sends `notifications/tools/list_changed`.
- `swap {annotations?, description?}`: gives `echo` these annotations (null: none) and this
  description, then sends `notifications/tools/list_changed` (a tool changed under its name).
- `fail {}`: an `isError` result.

`tools/list` answers two tools a page, so a client must follow `nextCursor`. On start it
writes a line on stderr, which must land in the client's log file and not on its terminal.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time

_out = threading.Lock()
_tools = [
    {"name": name, "description": f"{name} tool", "inputSchema": {"type": "object"}}
    for name in ("echo", "slow", "freeze", "crash", "add_tool", "fail", "swap")
]
_tools[0]["annotations"] = {"readOnlyHint": True}
_tools[0]["inputSchema"] = {"type": "object", "properties": {"text": {"type": "string"}}}
_PAGE = 2


def send(message: dict[str, object]) -> None:
    with _out:
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()


def answer(ident: object, result: dict[str, object]) -> None:
    send({"jsonrpc": "2.0", "id": ident, "result": result})


def text(ident: object, words: str, *, error: bool = False) -> None:
    answer(ident, {"content": [{"type": "text", "text": words}], "isError": error})


def call(ident: object, name: str, arguments: dict[str, object]) -> None:
    if name == "echo":
        text(ident, str(arguments.get("text", "")))
    elif name == "slow":
        seconds = float(str(arguments.get("seconds", 1)))
        threading.Thread(
            target=lambda: (time.sleep(seconds), text(ident, "slept")), daemon=True
        ).start()
    elif name == "freeze":
        time.sleep(3600)
    elif name == "crash":
        sys.stderr.write("fatal: simulated crash in the middle of a call\n")
        sys.stderr.flush()
        os._exit(3)
    elif name == "add_tool":
        if not any(tool["name"] == "extra" for tool in _tools):
            _tools.append(
                {"name": "extra", "description": "added", "inputSchema": {"type": "object"}}
            )
        text(ident, "added")
        send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
    elif name == "swap":
        echo = _tools[0]
        if "annotations" in arguments:
            if arguments["annotations"] is None:
                echo.pop("annotations", None)
            else:
                echo["annotations"] = arguments["annotations"]
        if "description" in arguments:
            echo["description"] = arguments["description"]
        text(ident, "swapped")
        send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
    elif name == "fail":
        text(ident, "this tool always fails", error=True)
    else:
        send({"jsonrpc": "2.0", "id": ident, "error": {"code": -32602, "message": "no tool"}})


def handle(message: dict[str, object]) -> None:
    method, ident = message.get("method"), message.get("id")
    params = message.get("params")
    params = params if isinstance(params, dict) else {}
    if ident is None:  # a notification: initialized, cancelled
        if method == "notifications/cancelled":
            sys.stderr.write(f"cancelled request {params.get('requestId')}\n")
            sys.stderr.flush()
        return
    if method == "initialize":
        answer(
            ident,
            {
                "protocolVersion": params.get("protocolVersion", "2025-11-25"),
                "capabilities": {"tools": {"listChanged": True}},
                "serverInfo": {"name": "scripted", "version": "1"},
            },
        )
    elif method == "tools/list":
        start = int(str(params.get("cursor") or 0))
        page: dict[str, object] = {"tools": _tools[start : start + _PAGE]}
        if start + _PAGE < len(_tools):
            page["nextCursor"] = str(start + _PAGE)
        answer(ident, page)
    elif method == "tools/call":
        arguments = params.get("arguments")
        call(ident, str(params.get("name")), arguments if isinstance(arguments, dict) else {})
    elif method == "ping":
        answer(ident, {})
    else:
        send({"jsonrpc": "2.0", "id": ident, "error": {"code": -32601, "message": "no method"}})


def main() -> None:
    sys.stderr.write("scripted server: hello from stderr\n")
    sys.stderr.flush()
    for line in sys.stdin:
        if line.strip():
            handle(json.loads(line))


if __name__ == "__main__":
    main()
