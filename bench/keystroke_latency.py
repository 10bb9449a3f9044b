"""Does ghost text delay a keystroke? Time from a key written to the PTY until aish's line
editor draws something in answer, with `ui.suggest` off, "history" (a 10,000-line history, no
line matching: the whole history is searched after every key) and "model" with a request in
flight (the local model takes 20 s to answer, and each key is typed after a pause longer than
the debounce, so every measured key lands on a pending request and cancels it).

A real aish under a PTY (pexpect), a real aish-testllm on 127.0.0.1. Results go into
bench/RESULTS.md between this bench's markers.

    .venv/bin/python bench/keystroke_latency.py [--keys 40]
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

import pexpect

from aish.ui.repl.history import open_line_history
from aish.ui.repl.suggest.model import PAUSE_S
from aish_testllm.server import TestLLMServer
from results import write_section  # bench/ is the script directory, so this resolves

HISTORY_LINES = 10_000
SLOW_MS = 20_000
PROMPT = r"\[aish:[^\]]+\] [^\r\n]*?>"


def _spawn(home: Path, suggest: str, url: str) -> pexpect.spawn:
    config = home / ".config" / "aish" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        f'default_model = "fast"\n[models.fast]\nendpoint = "{url}/v1"\nmodel = "testllm"\n'
        f'[ui]\nsuggest = "{suggest}"\n'
    )
    env = {
        "HOME": str(home),
        "PATH": os.environ["PATH"],
        "SHELL": "/bin/bash",
        "TERM": "xterm-256color",
        "NO_COLOR": "1",
        "LANG": "C.UTF-8",
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_STATE_HOME": str(home / ".state"),
        "XDG_DATA_HOME": str(home / ".data"),
        "PROMPT_TOOLKIT_NO_CPR": "1",
    }
    child = pexpect.spawn(
        sys.executable, ["-m", "aish"], cwd=str(home), env=env, dimensions=(40, 200), timeout=30
    )
    child.expect(PROMPT)
    return child


def _drain(child: pexpect.spawn) -> None:
    while True:
        try:
            child.read_nonblocking(65536, timeout=0.05)
        except pexpect.TIMEOUT:
            return


def _latencies(child: pexpect.spawn, keys: int, pause_s: float) -> list[float]:
    """Milliseconds from each key written until the first bytes drawn in answer."""
    child.send("qz")  # a start no history line has
    found: list[float] = []
    for index in range(keys):
        time.sleep(pause_s)  # past the debounce: a model request is now in flight
        _drain(child)
        key = "abcdefghijklmnopqrstuvwxy"[index % 25]
        started = time.perf_counter()
        os.write(child.child_fd, key.encode())
        child.read_nonblocking(65536, timeout=10)
        found.append((time.perf_counter() - started) * 1000)
    child.send("\x15")  # Ctrl-U
    return found


def _measure(suggest: str, keys: int, server: TestLLMServer) -> tuple[list[float], int]:
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        history = open_line_history(home / ".state" / "aish" / "history", print, lambda: tmp)
        for number in range(HISTORY_LINES):
            history.store_string(f"echo line-{number} --flag value-{number % 97}")
        before = len(server.requests)
        child = _spawn(home, suggest, server.url)
        try:
            pause = PAUSE_S + 0.2
            return _latencies(child, keys, pause), len(server.requests) - before
        finally:
            child.sendline("exit 0")
            child.terminate(force=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--keys", type=int, default=40)
    args = parser.parse_args()
    scenario = {"default": {"text": "qz never", "first_delay_ms": SLOW_MS}}
    rows = ["| `ui.suggest` | keys | median | 90th percentile | max | model requests |"]
    rows.append("|---|---|---|---|---|---|")
    with TestLLMServer(scenario) as server:
        for suggest in ("off", "history", "model"):
            found, asked = _measure(suggest, args.keys, server)
            deciles = statistics.quantiles(found, n=10)
            rows.append(
                f"| {suggest} | {len(found)} | {statistics.median(found):.1f} ms | "
                f"{deciles[-1]:.1f} ms | {max(found):.1f} ms | {asked} |"
            )
            print(rows[-1])
    today = dt.date.today().isoformat()
    cores = os.cpu_count()
    python = platform.python_version()
    note = (
        f"Run {today} on {platform.machine()}, {cores} cores, Python {python}; "
        f"a {HISTORY_LINES:,}-line history, each key typed {PAUSE_S + 0.2:.1f} s after the "
        f"last (past the {PAUSE_S:.1f} s debounce); the model answers after "
        f"{SLOW_MS / 1000:.0f} s, so in `model` every key lands on a request in flight and "
        "cancels it."
    )
    write_section(
        "keystroke_latency",
        "## A keystroke with ghost text pending (bench/keystroke_latency.py)",
        [note, "", *rows],
    )


if __name__ == "__main__":
    main()
