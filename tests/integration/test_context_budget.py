"""The context budget against a real model server: long conversations evict whole exchanges,
the rolling summary reaches the model, and a failing or slow summariser only costs the summary.

Chat turns are real `ChatTurn`s over HTTP to aish-testllm; the summariser is another model on
the same server (or a dead port), asked through the real broker.
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Mapping
from typing import Any

import pytest

from aish.agent import gate
from aish.agent.chat import ChatTurn
from aish.agent.context_budget import ContextBudget
from aish.agent.events import AgentEvent, UsageRecorded
from aish.conversation.context import CommandRun, Conversation
from aish.conversation.summary import SUMMARY_START
from aish.conversation.tokens import TokenCounter
from aish.llm.types import ModelTarget
from aish.run.record import Record
from aish.safety.bash.live_shell import ShellFacts
from tests.support import ScriptedFrontend

from ..conftest import ServeFn


async def _no_shell(authorization: gate.Authorization) -> CommandRun:
    raise AssertionError("nothing runs in these tests")


def _target(url: str, model: str = "testllm", **options: Any) -> ModelTarget:
    return ModelTarget(name=model, endpoint=f"{url}/v1", model=model, max_retries=0, **options)


def _chat(
    conversation: Conversation, url: str, budget: ContextBudget, log: list[Any]
) -> tuple[ChatTurn, ScriptedFrontend]:
    frontend = ScriptedFrontend()

    def record(kind: str, payload: Mapping[str, Any]) -> None:
        log.append((kind, dict(payload)))

    turn = ChatTurn(conversation, _target(url), frontend, _no_shell, record, budget=budget)
    return turn, frontend


def _chat_requests(server: Any, model: str = "testllm") -> list[dict[str, Any]]:
    return [
        r
        for r in server.requests
        if r["path"].endswith("/chat/completions") and r["body"]["model"] == model
    ]


def _users(request: dict[str, Any]) -> list[str]:
    return [m["content"] for m in request["body"]["messages"] if m["role"] == "user"]


async def test_a_long_conversation_keeps_working_within_max_turns(serve: ServeFn) -> None:
    server = serve({})
    conversation, log = Conversation("You are aish."), []
    budget = ContextBudget(max_turns=4, token_budget=100_000, counter=TokenCounter())
    statuses: list[str] = []
    for n in range(12):
        turn, frontend = _chat(conversation, server.url, budget, log)
        outcome = await turn.ask(f"question {n}")
        assert outcome.error is None and outcome.reply.text == f"You said: question {n}"
        statuses += frontend.statuses()
    requests = _chat_requests(server)
    assert len(requests) == 12
    assert all(len(_users(r)) <= 4 for r in requests)
    assert _users(requests[-1])[-1] == "question 11"
    evictions = [payload for kind, payload in log if kind == "evict"]
    # Down to three quarters of max_turns each time: every other turn, not every turn.
    assert [p["exchanges"] for p in evictions] == [2, 2, 2, 2]
    assert all("summary" not in payload for payload in evictions)
    dropped = [s for s in statuses if s.startswith("context: ")]
    assert len(dropped) == len(evictions)
    assert all(s.endswith("oldest exchange(s) dropped (max_turns 4)") for s in dropped)


async def test_the_rolling_summary_reaches_the_model(serve: ServeFn) -> None:
    scenario = {
        "models": ["testllm", "summ"],
        "rules": [
            {
                "name": "summary",
                "when": {"model": "^summ$"},
                "replies": [{"text": "SUM-1: asked q0 and q1"}, {"text": "SUM-2: q0 to q3"}],
            }
        ],
    }
    server = serve(scenario)
    summariser = _target(server.url, "summ")
    conversation, log = Conversation("You are aish."), []
    budget = ContextBudget(
        max_turns=3,
        token_budget=100_000,
        counter=TokenCounter(),
        summarize_on_evict=True,
        max_summary_chars=500,
        summarizer=lambda active: summariser,
    )
    statuses: list[str] = []
    events: list[AgentEvent] = []
    for n in range(6):
        turn, frontend = _chat(conversation, server.url, budget, log)
        await turn.ask(f"q{n}")
        statuses += frontend.statuses()
        events += frontend.events
    summaries = _chat_requests(server, "summ")
    assert len(summaries) == 2
    first = summaries[0]["body"]["messages"][-1]["content"]
    assert "user: q0" in first and "You said: q0" in first and "<summary_so_far>" not in first
    second = summaries[1]["body"]["messages"][-1]["content"]
    assert "<summary_so_far>\nSUM-1: asked q0 and q1\n</summary_so_far>" in second
    chats = _chat_requests(server)
    # The request right after each eviction tells the summary, in the newest user message.
    told = [r for r in chats if any(SUMMARY_START in u for u in _users(r))]
    assert told, "no chat request carried the summary"
    newest = _users(chats[-1])
    assert any("SUM-2: q0 to q3" in u for u in newest)
    assert chats[-1]["body"]["messages"][0] == {"role": "system", "content": "You are aish."}
    assert any("summarised (max_turns 3)" in s for s in statuses)
    usage = [e for e in events if isinstance(e, UsageRecorded) and e.category == "summarize"]
    assert [e.preset for e in usage] == ["summ", "summ"]
    evictions = [p for k, p in log if k == "evict"]
    assert evictions[-1]["summary"] == "SUM-2: q0 to q3"


async def test_a_failing_summariser_degrades_to_eviction(serve: ServeFn) -> None:
    scenario = {
        "models": ["testllm", "summ"],
        "rules": [{"when": {"model": "^summ$"}, "reply": {"status": 500}}],
    }
    server = serve(scenario)
    summariser = _target(server.url, "summ")
    conversation, log = Conversation("You are aish."), []
    budget = ContextBudget(
        max_turns=2,
        token_budget=100_000,
        summarize_on_evict=True,
        summarizer=lambda active: summariser,
    )
    statuses: list[str] = []
    for n in range(4):
        turn, frontend = _chat(conversation, server.url, budget, log)
        outcome = await turn.ask(f"q{n}")
        assert outcome.error is None
        statuses += frontend.statuses()
    failed = [s for s in statuses if s.startswith("summariser summ failed")]
    assert failed and all("dropped without a summary" in s for s in failed)
    assert not any(SUMMARY_START in u for r in _chat_requests(server) for u in _users(r))
    assert conversation.exchange_count() <= 2


async def test_a_slow_summariser_holds_the_request_only_for_its_timeout(
    serve: ServeFn, monkeypatch: pytest.MonkeyPatch
) -> None:
    from aish.agent import context_budget

    monkeypatch.setattr(context_budget, "SUMMARY_TIMEOUT_S", 0.5)
    scenario = {
        "models": ["testllm", "summ"],
        # The preset's idle timeout is a minute: only the summary's own bound can end it.
        "rules": [
            {"when": {"model": "^summ$"}, "reply": {"text": "late", "first_delay_ms": 30_000}}
        ],
    }
    server = serve(scenario)
    summariser = _target(server.url, "summ", idle_timeout_s=60)
    conversation, log = Conversation("You are aish."), []
    budget = ContextBudget(
        max_turns=1, token_budget=100_000, summarize_on_evict=True, summarizer=lambda a: summariser
    )
    turn, _ = _chat(conversation, server.url, budget, log)
    await turn.ask("q0")
    turn, frontend = _chat(conversation, server.url, budget, log)
    started = time.monotonic()
    outcome = await turn.ask("q1")
    # Not a speed claim: the turn did not wait for the summariser. It takes about a second (the
    # 0.5 s bound and the reply); 10 s is generous on a busy machine and still well below the
    # summariser's 30 s.
    assert time.monotonic() - started < 10
    assert outcome.reply.text == "You said: q1"
    assert any(
        s.startswith("summariser summ failed (no answer within 0.5s)") for s in frontend.statuses()
    )


async def test_an_unreachable_summariser_preset_is_said_and_eviction_goes_on(
    serve: ServeFn,
) -> None:
    from aish.errors import ConfigError

    server = serve({})

    def summariser(active: ModelTarget) -> ModelTarget:
        raise ConfigError("model preset 'fast': environment variable FAST_KEY is not set")

    conversation, log = Conversation("You are aish."), []
    budget = ContextBudget(
        max_turns=1, token_budget=100_000, summarize_on_evict=True, summarizer=summariser
    )
    for n in range(2):
        turn, frontend = _chat(conversation, server.url, budget, log)
        await turn.ask(f"q{n}")
    assert any("FAST_KEY is not set" in s for s in frontend.statuses())
    assert conversation.exchange_count() == 1


async def test_a_token_budget_evicts_the_oldest_exchanges(serve: ServeFn) -> None:
    server = serve({})
    conversation, log = Conversation("You are aish."), []
    budget = ContextBudget(max_turns=100, token_budget=2_000, counter=TokenCounter())
    for n in range(8):
        turn, _ = _chat(conversation, server.url, budget, log)
        conversation.note_command(CommandRun(f"cat part{n}", 0, "/", "/", 0.1, "x" * 2400))
        await turn.ask(f"q{n}")
    requests = _chat_requests(server)
    assert any(kind == "evict" and "token_budget" in p["reason"] for kind, p in log)
    prompts = [len(json.dumps(r["body"]["messages"])) for r in requests]
    # Without eviction the last request would hold all eight outputs (~20,000 characters);
    # it stays within the budget (≈4 characters a token).
    assert prompts[-1] < 2_000 * 4, prompts


async def test_norris_steps_evict_without_summarising(serve: ServeFn) -> None:
    from aish.agent.norris import INSTRUCTIONS, NorrisBounds, NorrisRun

    scenario = {
        "models": ["testllm", "summ"],
        "rules": [
            {"when": {"model": "^summ$"}, "reply": {"text": "never used"}},
            {"when": {"user": "Step 6 of"}, "reply": {"text": "GOAL: complete"}},
        ],
        "default": {"text": "CMD: true"},
    }
    server = serve(scenario)
    summariser = _target(server.url, "summ")
    conversation, log = Conversation("You are aish."), []
    budget = ContextBudget(
        max_turns=3, token_budget=100_000, summarize_on_evict=True, summarizer=lambda a: summariser
    )
    frontend = ScriptedFrontend()

    async def run(
        authorization: gate.Authorization,
        timeout_s: float,
        *,
        record: Record,
        on_input: object = None,  # nothing here waits for terminal input
    ) -> CommandRun:
        approved = gate.redeem(authorization)
        result = CommandRun(approved.command, 0, "/w", "/w", 0.01, "", "model", asked=False)
        conversation.note_command(result)
        record(result)  # as the agent's shell does: the run's own record step
        return result

    norris = NorrisRun(
        "finish the job",
        conversation,
        _target(server.url),
        frontend,  # type: ignore[arg-type]
        run,
        lambda: "/w",
        lambda kind, payload: log.append((kind, dict(payload))),
        gate.Policy("norris"),
        NorrisBounds(max_steps=8),
        budget=budget,
        shell_facts=_plain_shell,  # no shell runs here: `true` is judged in a plain one
    )
    result = await norris.run()
    assert result.status == "done"
    assert _chat_requests(server, "summ") == []
    assert any(kind == "evict" and "summary" not in p for kind, p in log)
    # Every step's request still has the full instructions, though step 1 was evicted.
    for request in _chat_requests(server):
        assert any(INSTRUCTIONS in u for u in _users(request))


async def test_chat_turns_calibrate_the_budgets_token_counter(serve: ServeFn) -> None:
    from aish.conversation.tokens import model_key

    server = serve({"chars_per_token": 2.5})
    conversation, log = Conversation("You are aish."), []
    counter = TokenCounter()
    budget = ContextBudget(max_turns=40, token_budget=100_000, counter=counter)
    target = _target(server.url)
    for n in range(3):
        turn, _ = _chat(conversation, server.url, budget, log)
        await turn.ask(f"q{n} " * 50)
    assert counter.calibrated_from(model_key(target)) == 3
    newest = conversation.user_message("q3 " * 200)
    estimate = budget.estimate(conversation, newest, target)
    uncalibrated = TokenCounter().estimate(model_key(target), conversation.request(newest)).tokens
    turn, _ = _chat(conversation, server.url, budget, log)
    await turn.ask("q3 " * 200)
    reported = _chat_requests(server)[-1]
    [usage] = [e for e in turn.frontend.events if isinstance(e, UsageRecorded)]  # type: ignore[attr-defined]
    assert abs(estimate - usage.prompt_tokens) <= 0.1 * usage.prompt_tokens
    # Uncalibrated (4 characters a token against the server's 2.5) it would be well off.
    assert abs(uncalibrated - usage.prompt_tokens) > 0.3 * usage.prompt_tokens
    assert reported["body"]["messages"][-1]["content"].startswith("q3")


async def test_a_request_over_budget_on_its_own_keeps_its_history(serve: ServeFn) -> None:
    server = serve({})
    conversation, log = Conversation("You are aish."), []
    budget = ContextBudget(max_turns=40, token_budget=1_000, counter=TokenCounter())
    for n in range(3):
        turn, _ = _chat(conversation, server.url, budget, log)
        await turn.ask(f"q{n}")
    turn, frontend = _chat(conversation, server.url, budget, log)
    await turn.ask("paste: " + "y" * 6_000)  # ~1,500 tokens by itself
    assert not any(kind == "evict" for kind, _ in log)
    assert len(_users(_chat_requests(server)[-1])) == 4
    [warning] = [s for s in frontend.statuses() if "token_budget" in s]
    assert warning.endswith(
        "over context.token_budget 1,000, even without older exchanges: sending it anyway"
    )


async def _plain_shell(command: str) -> ShellFacts:
    return ShellFacts(builtins=frozenset(("true",)), locate=shutil.which)
