"""How much `aish ask` costs on top of the HTTP request it makes.

Runs `aish ask` against `aish-testllm` (zero model delay) side by side with `curl` posting the
same request, many times, and reports medians and the ratio; then `python -X importtime` totals
for `aish --version` and `aish ask`. Results go into bench/RESULTS.md between this bench's
markers, so other benches can share the file.

    .venv/bin/python bench/ask_overhead.py [--runs 40]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from results import write_section  # bench/ is the script directory, so this resolves

BIN = Path(sys.executable).parent
BUDGET_MS = 300.0


def _timed(cmd: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    return (time.perf_counter() - started) * 1000


def _import_total_ms(cmd: list[str], env: dict[str, str]) -> tuple[float, set[str]]:
    """Sum of self import times reported by -X importtime, and the top modules imported."""
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", *cmd],
        env=env,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    total_us = 0
    modules: set[str] = set()
    for line in proc.stderr.splitlines():
        match = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|(\s*)(\S+)", line)
        if match:
            total_us += int(match.group(1))
            modules.add(match.group(4).split(".")[0])
    return total_us / 1000, modules


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=40)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        scenario = home / "scenario.json"
        scenario.write_text(json.dumps({"rules": [], "default": {"text": "ok", "usage": {}}}))
        server = subprocess.Popen(
            [str(BIN / "aish-testllm"), "--scenario", str(scenario), "--port", "0"],
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert server.stdout is not None
            url = server.stdout.readline().strip()
            env = {
                **os.environ,
                "XDG_CONFIG_HOME": str(home / "c"),
                "XDG_STATE_HOME": str(home / "s"),
            }
            env.pop("AISH_CONFIG", None)
            (home / "c" / "aish").mkdir(parents=True)
            (home / "c" / "aish" / "config.toml").write_text(
                f'default_model = "t"\n[models.t]\nendpoint = "{url}/v1"\nmodel = "testllm"\n'
            )
            from aish.agent.oneshot import build_ask_messages
            from aish.conversation.system_prompt import PromptFacts
            from aish.llm.openai_protocol import request_body
            from aish.llm.types import ModelTarget

            messages = build_ask_messages("hi", None, PromptFacts(platform.system(), "bash"))
            body = json.dumps(
                request_body(ModelTarget("t", url + "/v1", "testllm"), messages, None)
            )
            curl = [
                "curl", "-sS", "-N", "-o", "/dev/null", "-H", "Content-Type: application/json",
                "-d", body, f"{url}/v1/chat/completions",
            ]  # fmt: skip
            aish = [str(BIN / "aish"), "ask", "hi"]
            for cmd in (curl, aish):  # warm the page cache and the server
                _timed(cmd, env)
            curl_ms, aish_ms = [], []
            for _ in range(args.runs):  # interleaved so drift hits both alike
                curl_ms.append(_timed(curl, env))
                aish_ms.append(_timed(aish, env))
            version_ms = [_timed([str(BIN / "aish"), "--version"], env) for _ in range(args.runs)]
            imp_version, mods_version = _import_total_ms(["-m", "aish", "--version"], env)
            imp_ask, _ = _import_total_ms(["-m", "aish", "ask", "hi"], env)
        finally:
            server.terminate()
            server.wait(timeout=5)

    med_curl, med_aish = statistics.median(curl_ms), statistics.median(aish_ms)
    overhead = med_aish - med_curl
    rows = [
        f"Run {dt.date.today().isoformat()} on {platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}, {args.runs} interleaved runs each.",
        "",
        "| measure | median |",
        "|---|---|",
        f"| `curl` same request | {med_curl:.1f} ms |",
        f"| `aish ask` start to exit | {med_aish:.1f} ms |",
        f"| overhead of aish over curl | {overhead:.1f} ms (budget {BUDGET_MS:.0f} ms) |",
        f"| ratio aish / curl | {med_aish / med_curl:.1f}× |",
        f"| `aish --version` start to exit | {statistics.median(version_ms):.1f} ms |",
        f"| imports, `aish --version` (-X importtime, sum of self) | {imp_version:.1f} ms |",
        f"| imports, `aish ask` (-X importtime, sum of self) | {imp_ask:.1f} ms |",
        "",
        "`aish --version` imports: "
        + ", ".join(f"{m}: {'yes' if m in mods_version else 'no'}" for m in ("httpx", "mcp"))
        + ".",
    ]
    write_section("ask_overhead", "## `aish ask` overhead (bench/ask_overhead.py)", rows)
    print("\n".join(rows))
    return 0 if overhead < BUDGET_MS else 1


if __name__ == "__main__":
    raise SystemExit(main())
