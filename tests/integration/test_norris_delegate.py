"""`DELEGATE: <preset>: <sub-goal>` from a Norris step, against two real model servers (the
parent's preset and the helper's) and a real agent shell: the sub-run is bounded, runs through
the same gate and shell, and its summary reaches the parent model; refusals say why."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from aish.agent.events import Halt, Status
from aish.agent.norris import NorrisModels, NorrisResult
from aish.agent.shell_facts import ShellFactsSource
from aish.config.loader import load_config
from aish.llm.types import ModelTarget
from aish.run.agent_shell import AgentShell
from aish.session import Session
from tests.support import ScriptedFrontend

from ..conftest import ServeFn


def _steps(*texts: str) -> dict[str, Any]:
    return {"rules": [{"when": {}, "replies": [{"text": t} for t in texts]}]}


def _asked(server: Any) -> list[str]:
    return [
        json.dumps(r["body"]["messages"])
        for r in server.requests
        if r["path"].endswith("/chat/completions")
    ]


async def _goal(
    tmp_path: Path,
    parent_url: str,
    helper_url: str,
    frontend: ScriptedFrontend,
    *,
    norris: str = "delegate = true\n",
    mode: str = "norris",
) -> NorrisResult:
    config = tmp_path / "config.toml"
    config.write_text(
        'default_model = "main"\n'
        f'[models.main]\nendpoint = "{parent_url}/v1"\nmodel = "testllm"\nmax_retries = 0\n'
        f'[models.helper]\nendpoint = "{helper_url}/v1"\nmodel = "testllm"\nmax_retries = 0\n'
        f'[norris]\nsandbox = "off"\n{norris}'
    )
    session = Session(load_config(config_path=config, autodetect=False), model="main")
    main = session.resolve()
    assert isinstance(main, ModelTarget)
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    agent = await AgentShell.start(str(work))
    try:
        run = session.norris_run(
            "tidy up",
            frontend,
            NorrisModels(main),
            agent.run_authorized,
            lambda: agent.cwd,
            mode=mode,  # type: ignore[arg-type]
            shell_facts=ShellFactsSource(agent.session.state_report),
            tools={},
            jobs=agent,
        )
        return await run.run()
    finally:
        await agent.close()


async def test_a_delegated_sub_goal_runs_on_the_other_preset_and_its_summary_comes_back(
    serve: ServeFn, tmp_path: Path
) -> None:
    parent = serve(_steps("DELEGATE: helper: list the files", "GOAL: complete"))
    helper = serve(_steps("CMD: echo helper-was-here", "GOAL: complete listed 0 files"))
    frontend = ScriptedFrontend()
    result = await _goal(tmp_path, parent.url, helper.url, frontend)

    assert result.status == "done"
    _, second = _asked(parent)
    helped = _asked(helper)
    # The helper got the sub-goal in a fresh conversation: not the parent's goal.
    assert "list the files" in helped[0] and "tidy up" not in helped[0]
    assert "helper-was-here" in helped[1]  # its step ran through the agent shell
    # The parent reads the summary.
    assert "[aish] delegated to helper" in second
    assert "It ended done after 2 step(s)" in second and "listed 0 files" in second
    # The sub-run's steps count as the parent's: 1 + 2 + the last one.
    assert result.steps == 4
    assert not frontend.of(Halt)


async def test_the_sub_run_is_bounded_within_its_caps(serve: ServeFn, tmp_path: Path) -> None:
    parent = serve(_steps("DELEGATE: helper: loop forever", "GOAL: blocked it did not finish"))
    helper = serve(_steps(*[f"CMD: echo round-{n}" for n in range(10)]))
    result = await _goal(
        tmp_path,
        parent.url,
        helper.url,
        ScriptedFrontend(),
        norris="delegate = true\ndelegate_max_steps = 2\n",
    )
    assert result.status == "blocked"
    assert len(_asked(helper)) == 2
    assert "It ended budget_exhausted after 2 step(s)" in _asked(parent)[1]


@pytest.mark.parametrize(
    ("line", "why"),
    [
        ("DELEGATE: nope: do it", "unknown model preset 'nope' (known: main, helper)"),
        (
            "DELEGATE: helper: push with AISH_SECRET_GITHUB_TOKEN_1",
            "the sub-goal carries a secret and preset 'helper' does not scrub secrets",
        ),
    ],
)
async def test_refused_delegations_say_why(
    serve: ServeFn, tmp_path: Path, line: str, why: str
) -> None:
    parent = serve(_steps(line, "GOAL: blocked refused"))
    helper = serve(_steps("GOAL: complete"))
    frontend = ScriptedFrontend()
    await _goal(tmp_path, parent.url, helper.url, frontend)
    assert why in _asked(parent)[1]
    assert any(why in event.text for event in frontend.of(Status))
    assert not _asked(helper)


async def test_a_delegated_run_cannot_delegate_again(serve: ServeFn, tmp_path: Path) -> None:
    parent = serve(_steps("DELEGATE: helper: go deeper", "GOAL: complete"))
    helper = serve(_steps("DELEGATE: main: and deeper", "GOAL: blocked cannot"))
    await _goal(tmp_path, parent.url, helper.url, ScriptedFrontend())
    assert "cannot delegate again" in _asked(helper)[1]
    assert len(_asked(parent)) == 2  # the parent was never asked to be its own sub-run


async def test_without_delegate_true_it_halts_for_a_yes_and_headless_refuses(
    serve: ServeFn, tmp_path: Path
) -> None:
    parent = serve(_steps("DELEGATE: helper: list", "GOAL: complete"))
    helper = serve(_steps("GOAL: complete none"))
    frontend = ScriptedFrontend("proceed")
    result = await _goal(tmp_path, parent.url, helper.url, frontend, norris="")
    assert result.status == "done" and not frontend.script
    [halt] = frontend.of(Halt)
    assert halt.action == "DELEGATE: helper: list"
    assert len(_asked(helper)) == 1

    parent = serve(_steps("DELEGATE: helper: list", "GOAL: blocked no"))
    helper = serve(_steps("GOAL: complete none"))
    await _goal(tmp_path, parent.url, helper.url, ScriptedFrontend(), norris="", mode="headless")
    assert "it needs the user's yes" in _asked(parent)[1]
    assert not _asked(helper)
