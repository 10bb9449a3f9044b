"""Memory in a real REPL object against aish-testllm over HTTP and a real SQLite store:
`:memory summarize` (accept, reject, edit; never its own earlier reply), and the
`[background]` block in the request bodies (after `:remember`, not again, not in Norris steps).

The user's keys are the scripted part (the UI boundary); the store, model server and
conversation are real.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from aish.agent.events import UsageRecorded
from aish.agent.routing import KnownCommands
from aish.config.loader import load_config
from aish.session import Session
from aish.store import Store
from aish.ui.repl.loop import Repl

from ..conftest import ServeFn

SUMMARY = (
    "Here is what I found:\n"
    "1. **fact:** the project uses uv for packaging\n"
    "- pref: answers in French\n"
    "* context: works on the billing service\n"
)


class Keys:
    """The user's answers to single-key questions and the edit line, in order."""

    def __init__(self, *answers: str | None, edits: tuple[str, ...] = ()) -> None:
        self.answers = list(answers)
        self.edits = list(edits)
        self.asked: list[str] = []

    async def ask_key(self, question: str, keys: dict[str, str]) -> str | None:
        self.asked.append(question)
        return self.answers.pop(0)

    async def edit_line(self, text: str) -> str | None:
        assert self.edits, f"unexpected edit of {text!r}"
        return self.edits.pop(0).replace("{}", text)


def make_repl(tmp_path: Path, url: str, keys: Keys) -> tuple[Repl, Store]:
    config = tmp_path / "config.toml"
    config.write_text(
        f'[models.local]\nendpoint = "{url}/v1"\nmodel = "m"\nmax_retries = 0\n'
        f'[models.fast]\nendpoint = "{url}/v1"\nmodel = "summarizer"\nmax_retries = 0\n'
    )
    loaded = load_config(config_path=config, autodetect=False)
    store = Store.open(tmp_path / "aish.db")
    session = store.start_session(cwd=str(tmp_path), model="local")
    repl = Repl(Session(loaded, model="local", store=store, info=session))
    repl._known = KnownCommands(frozenset())
    repl.ask_key = keys.ask_key  # type: ignore[method-assign]
    repl.edit_line = keys.edit_line  # type: ignore[method-assign]
    return repl, store


@pytest.fixture
def said(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """What the REPL printed; stdin is no terminal (the REPL leaves its modes alone)."""
    with open(os.devnull) as stdin:
        monkeypatch.setattr(sys, "stdin", stdin)
        yield lambda: capsys.readouterr().out


def chat_requests(server: Any) -> list[dict[str, Any]]:
    return [r for r in server.requests if r["path"].endswith("/chat/completions")]


def bodies(server: Any, model: str) -> list[str]:
    return [json.dumps(r["body"]) for r in chat_requests(server) if r["body"]["model"] == model]


def last_user(request: dict[str, Any]) -> str:
    return str([m for m in request["body"]["messages"] if m["role"] == "user"][-1]["content"])


async def test_summarize_keeps_rejects_and_edits_and_never_reads_its_own_reply(
    serve: ServeFn, tmp_path: Path, xdg_home: Path, said: Any
) -> None:
    server = serve(
        {
            "models": ["m", "summarizer"],
            "rules": [
                {"when": {"model": "summarizer"}, "reply": {"text": SUMMARY}},
                {"when": {}, "reply": {"text": "Sure, uv it is."}},
            ],
        }
    )
    keys = Keys("yes", "no", "edit", edits=("{} and payments",))
    repl, store = make_repl(tmp_path, server.url, keys)
    events: list[object] = []
    shown = repl._view.render
    repl._view.render = lambda event: (events.append(event), shown(event))[1]  # type: ignore[method-assign]
    await repl._handle("?we package this project with uv")
    await repl._handle(":memory summarize")

    items = store.active_memory()
    assert [(i.kind, i.content, i.source) for i in items] == [
        ("fact", "the project uses uv for packaging", f"session {repl._info.id}"),
        ("context", "works on the billing service and payments", f"session {repl._info.id}"),
    ]
    assert keys.asked == ["keep? [y/N/edit] "] * 3
    usage = [e for e in events if isinstance(e, UsageRecorded)]
    assert [(u.preset, u.category) for u in usage][-1] == ("fast", "memory-summarize")
    out = said()
    assert "[memory] candidate (pref): answers in French" in out
    assert "memory: added 2 candidates" in out

    (first,) = bodies(server, "summarizer")
    assert "we package this project with uv" in first and "Sure, uv it is." in first
    keys.answers = ["no", "no", "no"]
    await repl._handle(":memory summarize")
    second = bodies(server, "summarizer")[1]
    assert "billing service" not in second  # the first summarize's reply is not read again
    assert "Sure, uv it is." in second
    store.close()


async def test_summarize_of_a_session_with_nothing_in_it_asks_nothing(
    serve: ServeFn, tmp_path: Path, xdg_home: Path, said: Any
) -> None:
    server = serve({"models": ["m", "summarizer"], "rules": [], "default": {"text": "x"}})
    repl, store = make_repl(tmp_path, server.url, Keys())
    await repl._handle(":memory summarize")
    assert chat_requests(server) == []
    assert "memory: no candidates in this session" in said()
    store.close()


async def test_summarize_that_fails_costs_one_line(
    tmp_path: Path, xdg_home: Path, said: Any
) -> None:
    repl, store = make_repl(tmp_path, "http://127.0.0.1:9", Keys())
    await repl._handle(":memory summarize")
    out = said()
    assert out.count("\n") <= 2 and "memory:" in out
    assert store.active_memory() == []
    store.close()


async def test_remember_reaches_the_next_request_once_and_never_norris_steps(
    serve: ServeFn, tmp_path: Path, xdg_home: Path, said: Any
) -> None:
    server = serve(
        {
            "models": ["m", "summarizer"],
            "rules": [
                {"when": {"user": "(?i)goal"}, "reply": {"text": "GOAL: complete"}},
                {"when": {}, "reply": {"text": "ok"}},
            ],
        }
    )
    repl, store = make_repl(tmp_path, server.url, Keys())
    await repl._handle("?first question")
    await repl._handle(":remember the staging host is stage3")
    await repl._handle("?second question")
    await repl._handle("?third question")
    await repl._handle(":norris a small goal")
    await repl._handle(":remember deploys happen on Fridays")
    await repl._handle(":norris another goal")
    requests = chat_requests(server)
    texts = [last_user(r) for r in requests]
    assert "[background]" not in texts[0]  # nothing remembered yet
    assert texts[1].startswith('[background]\n- (fact) "the staging host is stage3"\n')
    assert texts[1].endswith("second question")
    assert texts[2] == "third question"
    norris = texts[3:]
    assert norris and not any("[background]" in t for t in norris)
    # Remembered during Norris mode's gap, told to no step: only the next chat turn gets it.
    assert "Fridays" not in json.dumps(requests[-1]["body"])
    store.close()


async def test_a_resumed_session_replays_the_block_and_does_not_tell_it_again(
    serve: ServeFn, tmp_path: Path, xdg_home: Path, said: Any
) -> None:
    server = serve({"models": ["m", "summarizer"], "rules": [], "default": {"text": "ok"}})
    repl, store = make_repl(tmp_path, server.url, Keys())
    await repl._handle(":remember the staging host is stage3")
    await repl._handle("?first")
    first = chat_requests(server)[-1]["body"]["messages"]
    again = Repl(Session(repl.session.loaded, model="local", store=store, info=repl._info))
    again._known = KnownCommands(frozenset())
    again.resume()
    await again._handle("?second")
    resumed = chat_requests(server)[-1]["body"]["messages"]
    assert resumed[: len(first)] == first  # the prefix is rebuilt byte for byte
    assert last_user(chat_requests(server)[-1]).endswith("second")
    assert "[background]" not in last_user(chat_requests(server)[-1])
    store.close()
