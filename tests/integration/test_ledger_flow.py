"""The usage ledger fed by real model calls: every call of a chat turn — the reply, a
description, a summary — becomes one row with its category and the usage the server reported,
priced from the best source; the spending stop refuses the next paid call.

Real parts: aish-testllm over HTTP (usage scripted per reply), a real SQLite store, the real
`SessionSpending` behind the agent's events, the real `Outbound` in front of every call.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from aish.agent import gate, outbound
from aish.agent.chat import ChatTurn
from aish.agent.context_budget import ContextBudget
from aish.agent.events import AgentEvent, UsageRecorded
from aish.agent.outbound import Outbound, SpendingStopped
from aish.config.schema import CostConfig
from aish.conversation.context import CommandRun, Conversation
from aish.llm.types import ModelTarget, Rates
from aish.store import Store
from aish.ui.spending import SessionSpending
from tests.support import ScriptedFrontend

from ..conftest import ServeFn

PRICE = Rates(input=1000.0, output=2000.0)  # dollars per million tokens


def _frontend(spending: SessionSpending, *answers: gate.Answer) -> ScriptedFrontend:
    """Forwards usage to the ledger, as the REPL's view does; answers the confirm prompt."""

    def forward(event: AgentEvent) -> None:
        if isinstance(event, UsageRecorded):
            spending.record(event)

    return ScriptedFrontend(*answers, forward=forward)


@pytest.fixture
def session(monkeypatch: pytest.MonkeyPatch) -> Outbound:
    box = Outbound(environment={})
    monkeypatch.setattr(outbound, "SESSION", box)
    return box


@pytest.fixture
def store(tmp_path: Path) -> Any:
    with Store.open(tmp_path / "aish.db") as opened:
        yield opened


def _target(url: str, model: str, price: Rates | None = PRICE) -> ModelTarget:
    # Loopback, but priced like a paid model: the ledger and the stop treat it as one.
    return ModelTarget(model, f"{url}/v1", model, max_retries=0, price=price)


async def _never(authorization: gate.Authorization) -> CommandRun:
    raise AssertionError("nothing runs")


async def test_categories_and_sums_match_the_scripted_usage(
    serve: ServeFn, store: Store, session: Outbound
) -> None:
    server = serve(
        {
            "models": ["chat", "summ"],
            "rules": [
                {
                    "when": {"model": "^summ$"},
                    "reply": {
                        "text": "summary",
                        "usage": {"prompt_tokens": 300, "completion_tokens": 30},
                    },
                },
                {
                    "when": {"user": "Explain briefly"},
                    "reply": {
                        "text": "it lists",
                        "usage": {"prompt_tokens": 200, "completion_tokens": 20},
                    },
                },
                {
                    "when": {},
                    "reply": {
                        "text": "CMD: ls",
                        "usage": {
                            "prompt_tokens": 100,
                            "completion_tokens": 10,
                            "cached_tokens": 40,
                        },
                    },
                },
            ],
        }
    )
    sid = store.start_session(cwd="/w", model="chat").id
    spending = SessionSpending(store, sid, CostConfig(), say=lambda text: None)
    conversation = Conversation("You are aish.")
    budget = ContextBudget(
        max_turns=1,
        token_budget=100_000,
        summarize_on_evict=True,
        summarizer=lambda active: _target(server.url, "summ", None),
    )
    for answers in (("describe", "no"), ("no",)):
        turn = ChatTurn(
            conversation,
            _target(server.url, "chat"),
            _frontend(spending, *answers),
            _never,
            lambda kind, payload: None,
            budget=budget,
        )
        await turn.ask("what is here?")
    rows = {row.key: row for row in store.usage_totals(sid, by=("category", "model"))}
    assert set(rows) == {("chat", "chat"), ("describe", "chat"), ("summarize", "summ")}
    chat, describe, summary = (
        rows["chat", "chat"],
        rows["describe", "chat"],
        rows["summarize", "summ"],
    )
    assert (chat.calls, chat.prompt_tokens, chat.completion_tokens, chat.cached_tokens) == (
        2,
        200,
        20,
        80,
    )
    assert (describe.calls, describe.prompt_tokens, describe.completion_tokens) == (1, 200, 20)
    assert (summary.calls, summary.prompt_tokens, summary.completion_tokens) == (1, 300, 30)
    # Priced by the preset: (prompt − cached) and cached at the input rate, output at its own.
    assert chat.cost_usd == pytest.approx(2 * (100 * 1000 + 10 * 2000) / 1e6)
    # The summariser's loopback preset has no price: local and free, never unknown.
    assert summary.cost_usd == 0.0 and summary.unknown_calls == 0
    assert spending.total == pytest.approx(store.session_cost(sid))


async def test_a_provider_cost_overrides_the_price(
    serve: ServeFn, store: Store, session: Outbound
) -> None:
    server = serve({"default": {"text": "ok", "usage": {"prompt_tokens": 100, "cost": 0.0123}}})
    sid = store.start_session(cwd="/w", model="chat").id
    spending = SessionSpending(store, sid, CostConfig(), say=lambda text: None)
    turn = ChatTurn(
        Conversation("s"),
        _target(server.url, "chat"),
        _frontend(spending),
        _never,
        lambda kind, payload: None,
    )
    await turn.ask("hi")
    [row] = store.usage_totals(sid, by=("source",))
    assert row.key == ("provider",) and row.cost_usd == pytest.approx(0.0123)


async def test_the_spending_stop_refuses_the_next_paid_call(
    serve: ServeFn, store: Store, session: Outbound
) -> None:
    server = serve({"default": {"text": "ok", "usage": {"prompt_tokens": 100, "cost": 0.6}}})
    sid = store.start_session(cwd="/w", model="chat").id
    said: list[str] = []
    spending = SessionSpending(
        store, sid, CostConfig(stop_at_dollars=1.0, warn_at_dollars=[0.5]), say=said.append
    )
    session.refuse = spending.refuse
    conversation = Conversation("s")

    def turn() -> ChatTurn:
        return ChatTurn(
            conversation,
            _target(server.url, "chat"),
            _frontend(spending),
            _never,
            lambda kind, payload: None,
        )

    assert (await turn().ask("one")).error is None
    assert said == ["this session has spent $0.6000, past cost.warn_at_dollars $0.5"]
    assert (await turn().ask("two")).error is None
    outcome = await turn().ask("three")
    assert isinstance(outcome.error, SpendingStopped)
    assert "cost.stop_at_dollars reached: this session spent $1.2000 of $1" in str(outcome.error)
    assert len([r for r in server.requests if r.get("body")]) == 2
    # A model on this machine without a price costs nothing: it is never refused.
    free = ChatTurn(
        conversation,
        _target(server.url, "chat", None),
        _frontend(spending),
        _never,
        lambda kind, payload: None,
    )
    assert (await free.ask("four")).error is None
    spending.limit = 5.0
    assert (await turn().ask("five")).error is None
