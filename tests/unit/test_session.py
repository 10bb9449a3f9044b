"""The session: one outbound door shared by every part that calls a model or redeems a
placeholder, the spending stop on it, the model choice's one-line errors, and the turn and run
it assembles from the config."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from aish.agent import gate
from aish.agent.events import UsageRecorded
from aish.agent.norris import NorrisModels
from aish.agent.outbound import SpendingStopped
from aish.config.loader import LoadedConfig, load_config
from aish.conversation.context import CommandRun
from aish.llm.types import Message, ModelTarget
from aish.session import Session
from aish.store import Store
from tests.support import ScriptedFrontend


def _loaded(tmp_path: Path, extra: str = "") -> LoadedConfig:
    config = tmp_path / "config.toml"
    config.write_text(
        '[models.cloud]\nendpoint = "https://api.example.com/v1"\nmodel = "m"\n'
        'api_key = "k"\n' + extra
    )
    return load_config(config_path=config, autodetect=False, env={})


async def _never(authorization: gate.Authorization, *timeout: float) -> CommandRun:
    raise AssertionError("nothing runs")


def test_every_part_gets_the_sessions_one_door(tmp_path: Path) -> None:
    session = Session(_loaded(tmp_path), model="cloud")
    door = session.outbound
    assert session.policy.outbound is door
    assert session.second_opinion._outbound is door
    assert session.models.budget().outbound is door
    target = session.resolve()
    assert isinstance(target, ModelTarget) and target.name == "cloud"
    frontend = ScriptedFrontend()
    turn = session.chat_turn(
        target, frontend, _never, lambda: str(tmp_path), shell_facts=None, tools={}
    )
    assert turn.outbound is door and turn.policy.outbound is door
    assert turn.second_opinion is session.second_opinion
    run = session.norris_run(
        "a goal",
        frontend,
        NorrisModels(target),
        _never,
        lambda: str(tmp_path),
        mode="headless",
        shell_facts=None,
        tools={},
        sandboxed=True,
        yes_safe=True,
        max_steps=3,
    )
    assert run.outbound is door and run.policy.outbound is door
    assert (run.policy.mode, run.policy.yes_safe, run.policy.sandboxed) == ("headless", True, True)
    assert run.bounds.max_steps == 3 and run.conversation is session.conversation


def test_two_sessions_share_no_vault(tmp_path: Path) -> None:
    one, two = Session(_loaded(tmp_path), model="cloud"), Session(_loaded(tmp_path), model="x")
    one.outbound.environment = {"GITHUB_TOKEN": "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"}
    placeholder = one.outbound.scrub("ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8")
    assert placeholder.startswith("AISH_SECRET_")
    assert two.outbound.vault.placeholders() == {}


def test_a_preset_that_cannot_be_used_is_one_line(tmp_path: Path) -> None:
    session = Session(_loaded(tmp_path), model="gone")
    said = session.resolve()
    assert said == "unknown model preset 'gone' (known: cloud)"
    assert isinstance(session.resolve("cloud"), ModelTarget)
    assert session.switch_model("nope") == "unknown model preset 'nope' (known: cloud)"


def test_the_ledger_and_the_spending_stop_follow_the_attached_frontend(tmp_path: Path) -> None:
    loaded = _loaded(tmp_path, "[cost]\nstop_at_dollars = 0.5\n")
    with Store.open(tmp_path / "aish.db") as store:
        info = store.start_session(cwd=str(tmp_path), model="cloud")
        session = Session(loaded, model="cloud", store=store, info=info)
        frontend = ScriptedFrontend()
        said: list[str] = []
        session.attach(frontend, say=said.append)
        target = session.resolve()
        assert isinstance(target, ModelTarget)
        frontend.render(
            UsageRecorded("cloud", 10, 5, 0, 0.75, False, model="m", cost_source="provider")
        )
        assert store.session_cost(info.id) == pytest.approx(0.75)
        with pytest.raises(SpendingStopped, match=r"cost.stop_at_dollars reached"):
            session.outbound.prepare(target, [Message("user", "hi")])
        session.set_cost_limit(None)
        assert session.outbound.prepare(target, [Message("user", "hi")])
        # Another logged session (`:load`): its own ledger, the limit set here still holds.
        session.use_session(store.start_session(cwd=str(tmp_path), model="cloud"))
        assert session.spending is not None and session.spending.limit is None
        kinds = [t.kind for t in store.turns(info.id)]
        assert kinds == ["status"]  # "cost limit None"


def test_the_log_says_a_failure_once_and_goes_on(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "aish.db")
    info = store.start_session(cwd=str(tmp_path), model="cloud")
    session = Session(_loaded(tmp_path), model="cloud", store=store, info=info)
    said: list[str] = []
    session.attach(ScriptedFrontend(), say=said.append)
    store.close()
    payload: Mapping[str, Any] = {"text": "x"}
    session.log("status", payload)
    session.log("status", payload)
    assert len(said) == 1 and said[0].startswith("session log unavailable: ")


def test_without_a_config_scope_there_is_nothing_to_reload_or_follow(tmp_path: Path) -> None:
    session = Session(_loaded(tmp_path), model="cloud")
    assert session.reload(str(tmp_path)) is None
    assert session.follow(str(tmp_path)) is None
    assert session.policies("interactive", lambda: str(tmp_path)) is None


def test_a_reloaded_config_makes_the_policy_and_the_judge_again(tmp_path: Path) -> None:
    session = Session(_loaded(tmp_path), model="cloud")
    policy, judge = session.policy, session.second_opinion
    notes = session.use_config(_loaded(tmp_path, "[safety]\nconfirm_cmd = false\n"))
    assert notes == []
    assert session.policy is not policy and not session.policy.confirm_cmd
    assert session.second_opinion is not judge
    assert session.policy.outbound is session.outbound
