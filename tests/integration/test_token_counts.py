"""Token counts against a real aish-testllm that does not count like aish's chars/4 estimate.

The server counts 2.5 characters per token of its serialised prompt, so the raw estimate is far
off; three real requests through the broker teach the counter the model's ratio, after which
its estimate of a differently shaped request is within 10% of what the server reports.
`count_exact` asks the server itself (`/apply-template` + `/tokenize`).
"""

from __future__ import annotations

import http.server
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from aish.conversation.tokens import TokenCount, TokenCounter
from aish.llm import tokenize
from aish.llm.broker import chat
from aish.llm.tokenize import count_exact
from aish.llm.types import Message, ModelTarget, ToolSpec, Usage

from ..conftest import ServeFn

SYSTEM = (
    "You are aish, an assistant inside the user's shell. You see the commands the user ran "
    "since the last question, their exit status and their output. Answer briefly; when a "
    "command would help, propose it on its own line starting with CMD: and explain what it "
    "does. Never invent output you have not seen. Prefer read-only commands.\n"
) * 3
TOOLS = [
    ToolSpec(
        "read_file",
        "Read a text file from the user's machine and return its contents.",
        {
            "type": "object",
            "properties": {"path": {"type": "string", "description": "absolute or relative"}},
            "required": ["path"],
        },
    )
]
QUESTIONS = (
    "why is my disk full?",
    "ok, and how do I find the biggest directories under /var?",
    "can I safely delete old journal logs?",
)
REPLIES = (
    "Let us look at the usage first.\nCMD: df -h\nThat lists every mounted file system.",
    "Use du, sorted by size.\nCMD: du -xh /var | sort -rh | head -20",
    "Yes, journalctl can vacuum them.\nCMD: journalctl --vacuum-time=2weeks",
)
SCENARIO = {
    "chars_per_token": 2.5,
    "rules": [
        {"when": {"user": "\\?$"}, "replies": [{"text": text} for text in REPLIES]},
    ],
    "default": {"text": "Those are the biggest directories: /var/log and /var/cache."},
}


def _du_output(lines: int) -> str:
    """A long pasted command output, shaped nothing like the short questions before it."""
    rows = [
        f"{(lines - i) * 37 % 9000 + 12}M\t/var/lib/docker/overlay2/{i:04x}a9f/diff"
        for i in range(lines)
    ]
    return "$ du -xh /var | sort -rh | head\n" + "\n".join(rows) + "\n"


def _target(url: str, api: str) -> ModelTarget:
    endpoint = f"{url}/v1" if api == "openai" else url
    return ModelTarget(name="fast", endpoint=endpoint, model="m", api=api)  # type: ignore[arg-type]


def _key(target: ModelTarget) -> str:
    return f"{target.endpoint}|{target.model}"


async def _send(target: ModelTarget, messages: list[Message]) -> tuple[str, Usage]:
    reply = await chat(target, messages, TOOLS)
    assert reply.usage is not None and not reply.usage.estimated
    return reply.text, reply.usage


async def _calibrate(counter: TokenCounter, target: ModelTarget) -> list[Message]:
    """Three real requests of a growing conversation; returns it with the last reply appended."""
    messages = [Message("system", SYSTEM)]
    for question in QUESTIONS:
        messages.append(Message("user", question))
        text, usage = await _send(target, messages)
        counter.observe(_key(target), messages, TOOLS, usage)
        messages.append(Message("assistant", text))
    return messages


def _within(count: TokenCount, reported: int, tolerance: float = 0.10) -> bool:
    return abs(count.tokens - reported) <= tolerance * reported


@pytest.mark.parametrize("api", ["openai", "anthropic"])
async def test_calibrated_estimate_of_an_extended_request_is_within_ten_percent(
    serve: ServeFn, api: str
) -> None:
    target = _target(serve(SCENARIO).url, api)
    counter = TokenCounter()
    history = await _calibrate(counter, target)
    fourth = [*history, Message("user", _du_output(60) + "which of these can go?")]

    estimate = counter.estimate(_key(target), fourth, TOOLS)
    uncalibrated = TokenCounter().estimate(_key(target), fourth, TOOLS)
    _, usage = await _send(target, fourth)

    assert (estimate.source, estimate.calibrated_from) == ("reported", 3)
    assert uncalibrated.source == "estimated"
    # The reported prefix is the smaller part: most of the request is the estimated new message.
    prefix = counter.estimate(_key(target), history[:-1], TOOLS)  # the last observed request
    assert prefix.source == "reported"
    assert estimate.tokens - prefix.tokens > 0.5 * usage.prompt_tokens
    assert _within(estimate, usage.prompt_tokens), (estimate, usage.prompt_tokens)
    assert not _within(uncalibrated, usage.prompt_tokens), (uncalibrated, usage.prompt_tokens)


@pytest.mark.parametrize("api", ["openai", "anthropic"])
async def test_calibrated_estimate_of_an_unrelated_request_is_within_ten_percent(
    serve: ServeFn, api: str
) -> None:
    target = _target(serve(SCENARIO).url, api)
    counter = TokenCounter()
    await _calibrate(counter, target)
    # A new conversation (as after :reset): no prefix in common with the calibrating requests.
    other = [
        Message("system", "You are a terse assistant."),
        Message("user", "I ran this:\n" + _du_output(40) + "\nwhat uses the space?"),
    ]

    estimate = counter.estimate(_key(target), other, TOOLS)
    uncalibrated = TokenCounter().estimate(_key(target), other, TOOLS)
    _, usage = await _send(target, other)

    assert (estimate.source, estimate.calibrated_from) == ("calibrated", 3)
    assert _within(estimate, usage.prompt_tokens), (estimate, usage.prompt_tokens)
    assert not _within(uncalibrated, usage.prompt_tokens), (uncalibrated, usage.prompt_tokens)


async def test_estimated_usage_from_a_silent_server_does_not_calibrate(serve: ServeFn) -> None:
    server = serve({"chars_per_token": 2.5, "default": {"text": "no usage", "usage": False}})
    target = _target(server.url, "openai")
    counter = TokenCounter()
    messages = [Message("system", SYSTEM), Message("user", "hello?")]
    reply = await chat(target, messages, TOOLS)
    assert reply.usage is not None and reply.usage.estimated
    counter.observe(_key(target), messages, TOOLS, reply.usage)
    assert counter.estimate(_key(target), messages, TOOLS).source == "estimated"


# --- count_exact -------------------------------------------------------------------------------


@pytest.mark.parametrize("ratio", [4, 2.5])
async def test_count_exact_equals_the_reported_prompt_tokens(serve: ServeFn, ratio: float) -> None:
    target = _target(serve({**SCENARIO, "chars_per_token": ratio}).url, "openai")
    history = await _calibrate(TokenCounter(), target)
    messages = [*history, Message("user", _du_output(20) + "and these?")]
    for tools in (TOOLS, None):
        counted = await count_exact(target, messages, tools)
        reply = await chat(target, messages, tools)
        assert reply.usage is not None
        assert counted == reply.usage.prompt_tokens


async def test_count_exact_is_none_where_the_server_cannot_count(serve: ServeFn) -> None:
    server = serve({})
    messages = [Message("user", "hi")]
    # A server without the endpoints: 404.
    assert await count_exact(_target(f"{server.url}/elsewhere", "openai"), messages, None) is None
    # Only OpenAI-protocol targets are asked (no request is made).
    before = len(server.requests)
    assert await count_exact(_target(server.url, "anthropic"), messages, None) is None
    assert len(server.requests) == before
    # Nobody listening.
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    assert await count_exact(_target(f"http://127.0.0.1:{port}", "openai"), messages, None) is None
    # Still loading: 503.
    loading = serve({"loading_s": 30})
    assert await count_exact(_target(loading.url, "openai"), messages, None) is None


class _NotJson(http.server.BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        body = b"<html>not json</html>" if self.path == "/apply-template" else b"{}"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def not_json_server() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _NotJson)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


async def test_count_exact_is_none_for_bad_answers_and_silence(
    not_json_server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    messages = [Message("user", "hi")]
    assert await count_exact(_target(not_json_server, "openai"), messages, None) is None
    # A server that accepts the connection and never answers: given up after the timeout.
    monkeypatch.setattr(tokenize, "TIMEOUT_S", 0.3)
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        url = f"http://127.0.0.1:{silent.getsockname()[1]}"
        assert await count_exact(_target(url, "openai"), messages, None) is None


def test_counting_modules_do_not_import_httpx() -> None:
    code = "import sys, aish.llm.tokenize, aish.conversation.tokens; print('httpx' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "False"
