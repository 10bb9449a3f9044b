"""Cloud fallback (SPEC §8) against real parts: two aish-testllm servers over HTTP — the
active model, scripted to fail the way real servers do, and the fallback — a real `ChatTurn`
and a real `NorrisRun` with a real agent shell. The frontend is scripted (the UI boundary).
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from aish.agent import gate
from aish.agent.chat import ChatOutcome, ChatTurn
from aish.agent.events import (
    CommandFinished,
    ReplyFinished,
    RequestFailed,
    UsageRecorded,
)
from aish.agent.gate import Authorization
from aish.agent.norris import NorrisRun
from aish.conversation.context import CommandRun, Conversation
from aish.llm.types import Message, ModelTarget
from aish.ui.agent_shell import AgentShell
from tests.support import ScriptedFrontend

from ..conftest import ServeFn

SYSTEM = "You are aish."
QUESTION = "what is up?"
RESCUE = "From the fallback."


async def no_shell(authorization: Authorization) -> CommandRun:
    raise AssertionError("no command was meant to run")


def target(url: str, name: str, *, model: str = "testllm", idle_s: float = 5.0) -> ModelTarget:
    return ModelTarget(
        name,
        f"{url}/v1",
        model,
        connect_timeout_s=2.0,
        idle_timeout_s=idle_s,
        max_retries=0,
    )


def chat_requests(server: Any) -> list[dict[str, Any]]:
    return [r for r in server.requests if r["path"].endswith("/chat/completions")]


def refused_url() -> str:
    """A port on this machine where nothing listens (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}"


class Turn:
    """A chat turn wired as the REPL wires it, with its session log kept."""

    def __init__(self, primary: ModelTarget, fallback: ModelTarget | None) -> None:
        self.log: list[tuple[str, dict[str, Any]]] = []
        # Nothing here is meant to ask the user anything: an unscripted question fails.
        self.frontend = ScriptedFrontend(waiting_statuses=False)
        self.conversation = Conversation(SYSTEM)
        self.chat = ChatTurn(
            self.conversation,
            primary,
            self.frontend,
            no_shell,
            self.record,
            policy=gate.Policy("interactive"),
            fallback=fallback,
        )

    def record(self, kind: str, payload: Mapping[str, Any]) -> None:
        self.log.append((kind, dict(payload)))

    def logged(self, kind: str) -> list[dict[str, Any]]:
        return [payload for k, payload in self.log if k == kind]

    async def ask(self) -> ChatOutcome:
        return await self.chat.ask(QUESTION, cwd="/tmp")

    def assistant_messages(self) -> list[Message]:
        return [m for m in self.conversation.history if m.role == "assistant"]


def not_found_body() -> dict[str, Any]:
    return {"error": {"message": "model 'gone' not found", "code": "model_not_found"}}


# Each failure of the active model that falls back: (id, reply scripted for it, model name
# the target asks for, idle timeout, the reason the status line gives).
ELIGIBLE = [
    ("refused", None, "testllm", 5.0, "connection refused"),
    ("502", {"status": 502}, "testllm", 5.0, "HTTP 502"),
    ("503", {"status": 503, "body": {"error": {"message": "busy"}}}, "testllm", 5.0, "HTTP 503"),
    ("504", {"status": 504}, "testllm", 5.0, "HTTP 504"),
    ("408", {"status": 408}, "testllm", 5.0, "HTTP 408"),
    ("404", {"status": 404, "body": not_found_body()}, "gone", 5.0, "model not found"),
    ("stall", {"text": "late", "stall_after": 0, "stall_s": 3}, "testllm", 0.3, "timed out"),
]


@pytest.mark.parametrize(
    ("failure", "model", "idle_s", "reason"),
    [
        pytest.param(reply, model, idle, reason, id=key)
        for key, reply, model, idle, reason in ELIGIBLE
    ],
)
async def test_a_failure_before_any_output_is_asked_again_on_the_fallback(
    serve: ServeFn, failure: dict[str, Any] | None, model: str, idle_s: float, reason: str
) -> None:
    primary_server = serve({"default": failure}) if failure is not None else None
    url = primary_server.url if primary_server is not None else refused_url()
    rescue = serve({"default": {"text": RESCUE}})
    turn = Turn(target(url, "fast", model=model, idle_s=idle_s), target(rescue.url, "cloud"))

    outcome = await turn.ask()

    assert outcome.error is None
    assert outcome.reply.text == RESCUE and not outcome.reply.cut
    status = f"local fast failed ({reason}); retrying via cloud"
    assert turn.frontend.statuses() == [status]
    assert {"text": status} in turn.logged("status")
    assert turn.frontend.shown_text() == RESCUE
    # The failed attempt leaves no trace but its status line: no error, no cut reply.
    assert not turn.frontend.of(RequestFailed)
    assert [e.cut for e in turn.frontend.of(ReplyFinished)] == [False]
    # The same request went to the fallback.
    (asked,) = chat_requests(rescue)
    sent = asked["body"]["messages"]
    assert [m["role"] for m in sent] == ["system", "user"]
    assert sent[-1]["content"].endswith(QUESTION)
    if primary_server is not None:
        (failed,) = chat_requests(primary_server)
        assert failed["body"]["messages"] == sent
    # One answer, from the fallback, in the history, the log and the usage.
    assert [m.content for m in turn.assistant_messages()] == [RESCUE]
    (logged,) = turn.logged("assistant")
    assert logged == {"text": RESCUE, "cut": False, "model": "cloud"}
    assert [u.preset for u in turn.frontend.of(UsageRecorded)] == ["cloud"]


NOT_ELIGIBLE = [
    pytest.param({"status": 400}, "HTTPStatusError", id="400"),
    pytest.param({"status": 401}, "AuthError", id="401"),
    pytest.param({"status": 403}, "AuthError", id="403"),
    pytest.param({"text": "never", "error_after": 0}, "StreamErrorEvent", id="error-event"),
    pytest.param(
        {"text": "never", "error_after": 0, "error_style": "openrouter"},
        "StreamErrorEvent",
        id="error-event-502",
    ),
]


@pytest.mark.parametrize(("failure", "kind"), NOT_ELIGIBLE)
async def test_other_failures_never_fall_back(
    serve: ServeFn, failure: dict[str, Any], kind: str
) -> None:
    primary = serve({"default": failure})
    rescue = serve({"default": {"text": RESCUE}})
    turn = Turn(target(primary.url, "fast"), target(rescue.url, "cloud"))

    outcome = await turn.ask()

    assert type(outcome.error).__name__ == kind
    assert chat_requests(rescue) == []
    assert not any("retrying via" in text for text in turn.frontend.statuses())
    (failed,) = turn.frontend.of(RequestFailed)
    assert failed.kind == kind and failed.message.startswith("fast: ")
    assert turn.assistant_messages() == []


@pytest.mark.parametrize(
    "failure",
    [
        pytest.param({"cut_after": 1}, id="cut"),
        pytest.param({"stall_after": 1, "stall_s": 3}, id="stall"),
        pytest.param({"error_after": 1}, id="error-event"),
    ],
)
async def test_a_failure_after_the_first_delta_keeps_the_partial_text(
    serve: ServeFn, failure: dict[str, Any]
) -> None:
    primary = serve({"default": {"text": "Partial answer, then more.", "chunk_size": 8, **failure}})
    rescue = serve({"default": {"text": RESCUE}})
    turn = Turn(target(primary.url, "fast", idle_s=0.3), target(rescue.url, "cloud"))

    outcome = await turn.ask()

    assert outcome.error is not None
    assert chat_requests(rescue) == []
    assert turn.frontend.shown_text() == "Partial "  # shown once, never again
    assert outcome.reply.text == "Partial " and outcome.reply.cut
    assert [m.content for m in turn.assistant_messages()] == ["Partial \n[reply cut short]"]
    (logged,) = turn.logged("assistant")
    assert logged["model"] == "fast" and logged["cut"] is True
    assert len(turn.frontend.of(RequestFailed)) == 1
    assert not any("retrying via" in text for text in turn.frontend.statuses())


async def test_without_a_fallback_the_failure_is_shown(serve: ServeFn) -> None:
    primary = serve({"default": {"status": 503}})
    turn = Turn(target(primary.url, "fast"), None)

    outcome = await turn.ask()

    assert type(outcome.error).__name__ == "HTTPStatusError"
    assert len(chat_requests(primary)) == 1
    assert [e.kind for e in turn.frontend.of(RequestFailed)] == ["HTTPStatusError"]
    assert turn.frontend.statuses() == []


async def test_a_fallback_naming_the_active_preset_is_not_asked_twice(serve: ServeFn) -> None:
    primary = serve({"default": {"status": 503}})
    turn = Turn(target(primary.url, "fast"), target(primary.url, "fast"))

    outcome = await turn.ask()

    assert outcome.error is not None
    assert len(chat_requests(primary)) == 1
    assert turn.frontend.statuses() == []


async def test_when_the_fallback_fails_too_both_failures_are_shown(serve: ServeFn) -> None:
    rescue = serve({"default": {"status": 500, "body": {"error": {"message": "down too"}}}})
    turn = Turn(target(refused_url(), "fast"), target(rescue.url, "cloud"))

    outcome = await turn.ask()

    assert type(outcome.error).__name__ == "HTTPStatusError"
    assert len(chat_requests(rescue)) == 1  # once: a fallback never falls back
    assert turn.frontend.statuses() == [
        "local fast failed (connection refused); retrying via cloud"
    ]
    (failed,) = turn.frontend.of(RequestFailed)
    assert failed.message.startswith("cloud: HTTP 500") and "down too" in failed.message
    assert [e.cut for e in turn.frontend.of(ReplyFinished)] == [True]
    assert turn.assistant_messages() == []
    assert turn.logged("assistant") == []


async def test_a_cancelled_request_never_falls_back(serve: ServeFn) -> None:
    primary = serve({"default": {"text": "slow", "first_delay_ms": 3000}})
    rescue = serve({"default": {"text": RESCUE}})
    turn = Turn(target(primary.url, "fast"), target(rescue.url, "cloud"))

    task = asyncio.create_task(turn.ask())
    while not chat_requests(primary):
        await asyncio.sleep(0.02)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task

    assert chat_requests(rescue) == []
    assert not any("retrying via" in text for text in turn.frontend.statuses())


async def test_the_next_request_asks_the_active_model_again(serve: ServeFn) -> None:
    primary = serve({"rules": [{"when": {"request": 1}, "reply": {"status": 502}}]})
    rescue = serve({"default": {"text": RESCUE}})
    turn = Turn(target(primary.url, "fast"), target(rescue.url, "cloud"))

    await turn.ask()
    outcome = await turn.chat.ask("and now?", cwd="/tmp")

    assert outcome.reply.text == "You said: and now?"
    assert len(chat_requests(primary)) == 2 and len(chat_requests(rescue)) == 1
    assert [p["model"] for p in turn.logged("assistant")] == ["cloud", "fast"]
    # The second request carries the fallback's answer as the history.
    history = chat_requests(primary)[1]["body"]["messages"]
    assert [m["role"] for m in history] == ["system", "user", "assistant", "user"]
    assert history[2]["content"] == RESCUE


# ---- Norris ----------------------------------------------------------------------------------


async def test_a_norris_step_falls_back_and_the_next_step_asks_the_executor(
    serve: ServeFn, tmp_path: Path
) -> None:
    executor = serve(
        {
            "rules": [
                {"when": {"request": 1}, "reply": {"status": 503}},
                {"when": {}, "reply": {"text": "GOAL: complete the greeting was printed"}},
            ]
        }
    )
    rescue = serve({"default": {"text": "CMD: echo hello"}})
    frontend = ScriptedFrontend(waiting_statuses=False)
    log: list[tuple[str, dict[str, Any]]] = []
    shell = await AgentShell.start(str(tmp_path))
    try:
        run = NorrisRun(
            "print a greeting",
            Conversation(SYSTEM),
            target(executor.url, "fast"),
            frontend,
            shell.run_authorized,
            lambda: shell.cwd,
            lambda kind, payload: log.append((kind, dict(payload))),
            gate.Policy("norris"),
            fallback=target(rescue.url, "cloud"),
            shell_facts=shell.facts,
        )
        result = await run.run()
    finally:
        await shell.close()

    assert result.status == "done"
    assert len(chat_requests(rescue)) == 1
    assert len(chat_requests(executor)) == 2  # step 1 (failed), then step 2 on the executor
    step_two = chat_requests(executor)[1]["body"]["messages"]
    assert "CMD: echo hello" in [m["content"] for m in step_two if m["role"] == "assistant"]
    assert "local fast failed (HTTP 503); retrying via cloud" in frontend.statuses()
    assert [e.output.strip() for e in frontend.of(CommandFinished)] == ["hello"]
    assert [p["model"] for k, p in log if k == "assistant"] == ["cloud", "fast"]
    assert {u.category for u in frontend.of(UsageRecorded)} == {"norris"}
    assert [u.preset for u in frontend.of(UsageRecorded)] == ["cloud", "fast"]
