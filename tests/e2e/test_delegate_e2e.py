"""`DELEGATE:` in the real REPL, with two model servers: the user's yes starts a bounded Norris
sub-run on the other preset, its summary reaches the next request; a refusal says why."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pexpect

from ..conftest import ServeFn
from .conftest import AishTerminal, spawn_aish


def _config(main: str, helper: str) -> str:
    return (
        'default_model = "main"\n'
        f'[models.main]\nendpoint = "{main}/v1"\nmodel = "testllm"\n'
        f'[models.helper]\nendpoint = "{helper}/v1"\nmodel = "testllm"\n'
        '[norris]\nsandbox = "off"\ndelegate_max_steps = 3\n'
    )


def _asked(server: Any) -> list[str]:
    return [
        json.dumps(r["body"]["messages"])
        for r in server.requests
        if r["path"].endswith("/chat/completions")
    ]


def test_a_delegation_runs_on_the_other_preset_after_the_yes(
    serve: ServeFn, aish_home: Path, terminals: list[AishTerminal]
) -> None:
    main = serve(
        {
            "rules": [
                {"when": {"user": "hand it"}, "reply": {"text": "DELEGATE: helper: greet"}},
                {"when": {"user": "elsewhere"}, "reply": {"text": "DELEGATE: nope: greet"}},
                {"when": {"user": "and"}, "reply": {"text": "Done."}},
            ]
        }
    )
    helper = serve(
        {
            "rules": [
                {
                    "when": {},
                    "replies": [
                        {"text": "CMD: echo helper-ran"},
                        {"text": "GOAL: complete greeted once"},
                    ],
                }
            ]
        }
    )
    aish = spawn_aish(aish_home, config=_config(main.url, helper.url))
    terminals.append(aish)
    aish.wait_prompt()

    aish.type_line("hand it over")
    aish.expect("hands this sub-goal to a Norris run on preset helper")
    aish.expect(r"\[d\]escribe")
    aish.child.send("y")
    aish.expect("Norris: greet")
    aish.expect("helper-ran")
    aish.expect(r"It ended done after 2 step\(s\)")
    aish.wait_prompt()
    aish.run("and now")
    told = _asked(main)[-1]
    assert "[aish] delegated to helper" in told and "greeted once" in told
    # The helper saw the sub-goal only, not the user's conversation.
    assert "hand it over" not in _asked(helper)[0]

    shown = aish.run("elsewhere")
    assert "delegation to nope not run: unknown model preset 'nope'" in shown
    aish.run("and again")
    assert "unknown model preset 'nope'" in _asked(main)[-1]
    assert len(_asked(helper)) == 2
    aish.type_line(":quit")
    aish.child.expect(pexpect.EOF, timeout=10)
