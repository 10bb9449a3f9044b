"""One reply, hundreds of `CMD:` lines: at most `safety.max_commands_per_reply` run, and the
model is told the rest did not. `aish goal` as a script runs it — a real process, real bash,
aish-testllm over HTTP — counting what really ran."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ..conftest import ServeFn

AISH = [sys.executable, "-m", "aish"]


def _flood(step: int, count: int = 400) -> str:
    return "Running them all.\n" + "".join(f"CMD: echo ran-{step}-{n}\n" for n in range(count))


def _config(home: Path, url: str, extra: str) -> None:
    path = home / "config" / "aish" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        f'default_model = "local"\n{extra}\n[models.local]\nendpoint = "{url}/v1"\n'
        'model = "testllm"\ntimeout_s = 10\nmax_retries = 0\n'
    )


@pytest.mark.parametrize(("extra", "cap"), [("", 10), ("[safety]\nmax_commands_per_reply = 3", 3)])
def test_a_flood_of_commands_runs_at_most_the_cap_per_step(
    serve: ServeFn, xdg_home: Path, tmp_path: Path, extra: str, cap: int
) -> None:
    server = serve({"rules": [{"when": {}, "replies": [{"text": _flood(1)}, {"text": _flood(2)}]}]})
    _config(xdg_home, server.url, extra)
    result = subprocess.run(
        [*AISH, "goal", "--json", "--yes-safe", "--max-steps", "2", "say hello a lot"],
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=180,
        env=os.environ.copy(),
    )
    events: list[dict[str, Any]] = [json.loads(line) for line in result.stdout.splitlines()]
    ran = [e["output"].strip() for e in events if e["type"] == "command_end"]
    # Two steps, each its first `cap` commands, and they really ran in bash.
    assert ran == [f"ran-{step}-{n}" for step in (1, 2) for n in range(cap)]
    assert f"{cap} commands per step" in events[0]["bounds"]
    dropped = (
        f"[aish] {400 - cap} more proposed commands not run: only the first {cap} of a reply "
        "are taken (safety.max_commands_per_reply); propose fewer at a time"
    )
    statuses = [e["text"] for e in events if e["type"] == "status"]
    assert statuses.count(dropped) == 2
    assert events[-1]["status"] == "budget_exhausted"
    # The next request tells the model the rest were not run.
    requests = [r for r in server.requests if r["path"].endswith("/chat/completions")]
    assert len(requests) == 2
    second = requests[1]["body"]["messages"][-1]["content"]
    assert dropped in second
    assert f"ran-1-{cap - 1}" in second and f"ran-1-{cap}\n" not in second
