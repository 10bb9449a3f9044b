"""Cost and secrets as a person meets them: `:cost`, `:cost detail`, the spending stop, a
confirm prompt that shows a secret's placeholder and reveals the value with [v]iew, and
`:secrets`."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from aish.safety.secrets.scrubber import SecretVault, sensitive_environment

from ..conftest import ServeFn
from .conftest import AishTerminal, spawn_aish

TOKEN = "ghp_" + "Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Jh1Gf0EdCbAa"[:36]


def _config(url: str, extra: str = "") -> str:
    # A "cloud" preset that is really the local test server: scrubbed and priced like one.
    return (
        'default_model = "cloud"\n[models.cloud]\n'
        f'endpoint = "{url}/v1"\nmodel = "testllm"\nmax_retries = 0\n'
        'secrets = "scrub"\nprice = { input = 1000.0, output = 1000.0 }\n' + extra
    )


def _sent(server: Any) -> str:
    return json.dumps([r.get("body") for r in server.requests])


def test_a_placeholder_is_shown_viewed_run_and_listed(
    serve: ServeFn, aish_home: Path, terminals: list[AishTerminal]
) -> None:
    question = f"is my token {TOKEN} still valid?"
    vault = SecretVault()
    vault.learn(sensitive_environment({"GITHUB_TOKEN": TOKEN}))
    placeholder = vault.scrub(TOKEN)
    server = serve({"default": {"text": f"Try this:\nCMD: echo tok={placeholder}"}})
    aish = spawn_aish(aish_home, config=_config(server.url), extra_env={"GITHUB_TOKEN": TOKEN})
    terminals.append(aish)
    aish.wait_prompt()
    aish.type_line(f"?{question}")
    shown = aish.expect(r"\[d\]escribe / \[v\]iew", timeout=30)
    assert f"echo tok={placeholder}" in shown and TOKEN not in shown.split("Try this")[-1]
    aish.child.send("v")
    aish.expect(re.escape(f"echo tok={TOKEN}"))  # revealed on the terminal, then asked again
    aish.expect(r"\[v\]iew")
    aish.child.send("y")
    shown = aish.wait_prompt(timeout=30)
    assert f"tok={TOKEN}" in shown  # it ran with the real value
    assert TOKEN not in _sent(server)
    listed = aish.run(":secrets")
    assert "AISH_SECRET_" in listed and TOKEN not in listed
    assert "cost: $" in aish.run(":cost") and "1 call" in aish.run(":cost")


def test_the_spending_stop_refuses_paid_calls_until_raised(
    serve: ServeFn, aish_home: Path, terminals: list[AishTerminal]
) -> None:
    server = serve({"default": {"text": "ok", "usage": {"cost": 0.5}}})
    config = _config(server.url, "[cost]\nwarn_at_dollars = [0.25]\nstop_at_dollars = 0.75\n")
    aish = spawn_aish(aish_home, config=config)
    terminals.append(aish)
    aish.wait_prompt()
    shown = aish.run("?first", timeout=30)
    assert "ok" in shown and "past cost.warn_at_dollars $0.25" in shown
    assert "ok" in aish.run("?second", timeout=30)
    shown = aish.run("?third", timeout=30)
    assert "cost.stop_at_dollars reached: this session spent $1.0000 of $0.75" in shown
    assert len([r for r in server.requests if r.get("body")]) == 2
    assert "spending stop: $5" in aish.run(":cost limit 5")
    assert "ok" in aish.run("?fourth", timeout=30)
    detail = aish.run(":cost detail")
    assert "testllm" in detail and "chat" in detail and "context:" in detail
    assert "$1.5" in aish.run(":cost")
