"""`DELEGATE: <preset>: <sub-goal>` from a Norris step, against two real model servers (the
parent's preset and the helper's) and a real agent shell: the sub-run is bounded, runs through
the same gate and shell, and its summary reaches the parent model; refusals say why."""

from __future__ import annotations

import base64
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
    parent_scrubs: bool = False,
) -> NorrisResult:
    config = tmp_path / "config.toml"
    # A loopback endpoint does not scrub unless told: `secrets = "scrub"` stands for a cloud one.
    secrets = 'secrets = "scrub"\n' if parent_scrubs else ""
    config.write_text(
        'default_model = "main"\n'
        f'[models.main]\nendpoint = "{parent_url}/v1"\nmodel = "testllm"\nmax_retries = 0\n'
        f"{secrets}"
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
        (
            # No placeholder, no value the session knows: a key's format, as the scrubber finds.
            "DELEGATE: helper: push with ghp_" + "Zq9" * 12,
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


_SECRET = "ghp_" + "A1b2C3d4E5f6G7h8J9k0L1m2N3p4Q5r6S7t8"
_DOT_ENV = f"GITHUB_TOKEN={_SECRET}\n"


def _leaked_forms() -> list[str]:
    """The planted token as the helper could pass it on: literal, split into words, base64."""
    words = " ".join(_SECRET[i : i + 4] for i in range(0, len(_SECRET), 4))
    encoded = [base64.b64encode(_DOT_ENV.encode()).decode()]
    # The token's own base64 at each of the three alignments it can have inside other text.
    for pad in range(3):
        chunk = base64.b64encode(b"x" * pad + _SECRET.encode()).decode()
        encoded.append(chunk[4:-4])
    return [_SECRET, _SECRET[4:], words, words.split(" ", 1)[1], *encoded]


@pytest.mark.parametrize(("mode", "answer"), [("norris", "skip"), ("headless", None)])
async def test_a_local_helper_of_a_scrubbing_run_reads_no_secret_and_passes_none_back(
    serve: ServeFn, tmp_path: Path, mode: str, answer: str | None
) -> None:
    # The attack: the helper (local, not scrubbed) reads .env unasked and hands the token back
    # in its own words, split so no scrubber pattern matches, to the cloud parent.
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / ".env").write_text(_DOT_ENV)
    words = " ".join(_SECRET[i : i + 4] for i in range(0, len(_SECRET), 4))
    parent = serve(_steps("DELEGATE: helper: check the project setup", "GOAL: complete"))
    helper = serve(_steps("CMD: base64 -w0 .env", f"GOAL: complete the token is {words}"))
    frontend = ScriptedFrontend(*([answer] if answer else []))
    await _goal(tmp_path, parent.url, helper.url, frontend, mode=mode, parent_scrubs=True)

    # The sub-run's gate judged the read as the parent's would: it HALTs (headless: the run
    # ends there), since what it prints would make its way to a scrubbed model.
    if answer:
        [(action, verdict)] = frontend.halted
        assert action == "base64 -w0 .env" and not frontend.script
        assert any("what it prints goes to the model" in why for why in verdict.reasons)
    else:
        [halt] = frontend.of(Halt)
        assert halt.action == "base64 -w0 .env"
    assert all(_SECRET not in request for request in _asked(helper))  # it never ran

    asked = _asked(parent)
    assert len(asked) == 2 and "[aish] delegated to helper" in asked[1]
    # Facts only: how it ended, not the helper's words.
    assert "own words are not passed on" in asked[1] and "the token is" not in asked[1]
    for request in asked:
        for form in _leaked_forms():
            assert form not in request, form


async def test_a_scrubbing_parent_hears_which_programs_the_local_helper_ran(
    serve: ServeFn, tmp_path: Path
) -> None:
    parent = serve(_steps("DELEGATE: helper: count the files", "GOAL: complete"))
    helper = serve(_steps("CMD: echo counted", "CMD: no-such-program-x", "GOAL: complete 3 x"))
    frontend = ScriptedFrontend("proceed")  # the unknown program HALTs
    await _goal(tmp_path, parent.url, helper.url, frontend, parent_scrubs=True)
    told = _asked(parent)[1]
    assert "It ended done after 3 step(s)" in told
    # A name no program has is the helper's words too: it is not passed on.
    assert "it ran 2 command(s): echo (exit 0), (a command not found) (exit 127)" in told
    assert "no-such-program-x" not in told and "3 x" not in told
