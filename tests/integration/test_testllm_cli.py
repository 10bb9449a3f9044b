"""The real ``aish-testllm`` console script, run as a subprocess."""

from __future__ import annotations

import json
import select
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

SCRIPT = Path(sys.executable).with_name("aish-testllm")


def _start(*args: str) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [str(SCRIPT), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], 10)
    assert ready, "no URL line within 10 s"
    return proc, proc.stdout.readline()


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_prints_its_url_serves_and_exits_quietly_on_signal(
    tmp_path: Path, signum: signal.Signals
) -> None:
    scenario = tmp_path / "scenario.json"
    scenario.write_text(json.dumps({"default": {"text": "from the script"}}))
    log = tmp_path / "requests.jsonl"
    proc, line = _start("--scenario", str(scenario), "--port", "0", "--log", str(log))
    try:
        assert line.startswith("http://127.0.0.1:") and line.endswith("\n")
        url = line.strip()
        body = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
        reply = httpx.post(f"{url}/v1/chat/completions", json=body, timeout=5).json()
        assert reply["choices"][0]["message"]["content"] == "from the script"
        records = [json.loads(x) for x in log.read_text().splitlines()]
        assert [(r["n"], r["path"], r["rule"]) for r in records] == [
            (1, "/v1/chat/completions", "default")
        ]
    finally:
        proc.send_signal(signum)
        out, err = proc.communicate(timeout=10)
    assert proc.returncode == 0
    assert (out, err) == ("", "")


def test_builtin_scenario_without_arguments() -> None:
    proc, line = _start()
    try:
        body = {"messages": [{"role": "user", "content": "hi"}]}
        reply = httpx.post(f"{line.strip()}/v1/chat/completions", json=body, timeout=5).json()
        assert reply["choices"][0]["message"]["content"].startswith("Hello from aish-testllm.")
    finally:
        proc.terminate()
        proc.communicate(timeout=10)
    assert proc.returncode == 0


def test_bad_scenario_is_one_line_and_exit_2(tmp_path: Path) -> None:
    scenario = tmp_path / "broken.json"
    scenario.write_text(json.dumps({"rules": [{"reply": {"txt": "typo"}}]}))
    result = subprocess.run(
        [str(SCRIPT), "--scenario", str(scenario)], capture_output=True, text=True, timeout=10
    )
    assert result.returncode == 2 and result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1
    assert str(scenario) in lines[0] and "rules[0].reply: unknown key 'txt'" in lines[0]
