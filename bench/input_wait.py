"""How soon a step that waits for terminal input is noticed, and what noticing costs.

Runs commands that wait for input (a hidden password prompt, a `[y/N]` question, a pager, a
Python `input()`) in the agent's shell (`AgentShell`, a real bash on a PTY) with a handler
that answers "stop", and measures the time from the command's start to the handler's
question (issue 24's bar: under 2 s). Also: the time one look at the terminal takes
(`ShellSession.terminal_read`, a `/proc` scan, done every 100 ms while a step is quiet), and
that slow commands that wait for nothing (`sleep`) are never taken for a wait. Results go
into bench/RESULTS.md between this bench's markers.

    .venv/bin/python bench/input_wait.py [--runs 5]
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import os
import platform
import statistics
import tempfile
import time

from aish.agent import gate
from aish.run.agent_shell import AgentShell
from aish.run.input_wait import InputAnswer, InputWait, Secret
from results import write_section  # bench/ is the script directory, so this resolves

BUDGET_S = 2.0
WAITING = {
    "password (`read -s -p 'Password: '`)": "read -s -p 'Password: ' pw",
    "question (`read -p '[y/N] '`)": "read -p 'Continue? [y/N] ' a",
    "pager (`less`)": "seq 1000 | less",
    "Python `input()`": "python3 -c 'input(\"name? \")'",
}
NOT_WAITING = ("sleep 3", "for i in 1 2 3; do sleep 0.5; echo $i; done")


class _Clock:
    """Answers "stop" and notes when it was asked."""

    def __init__(self) -> None:
        self.asked_at: float | None = None

    async def needs_input(self, wait: InputWait) -> InputAnswer:
        self.asked_at = time.perf_counter()
        return "stop"

    async def password(self, wait: InputWait) -> Secret | InputAnswer | None:
        return None


async def _run(shell: AgentShell, command: str) -> tuple[float | None, float]:
    """(seconds until the handler was asked, or None; seconds the command took)."""
    # An unknown step (`python3 -c`) halts: the bench says proceed itself.
    authorization = await gate.authorize(
        gate.ProposedCommand(command), gate.Policy("norris"), halt=_Proceed()
    )
    clock = _Clock()
    began = time.perf_counter()
    await shell.run_authorized(authorization, 60, on_input=clock)
    took = time.perf_counter() - began
    return (clock.asked_at - began if clock.asked_at is not None else None), took


class _Proceed:
    async def halt_action(self, action: str, verdict: gate.Verdict) -> gate.HaltAnswer:
        return "proceed"


async def _bench(runs: int, cwd: str) -> tuple[dict[str, list[float]], list[str], list[float]]:
    shell = await AgentShell.start(cwd)
    noticed: dict[str, list[float]] = {name: [] for name in WAITING}
    false_alarms: list[str] = []
    looks: list[float] = []
    try:
        for _ in range(runs):
            for name, command in WAITING.items():
                seconds, _ = await _run(shell, command)
                noticed[name].append(seconds if seconds is not None else float("inf"))
            for command in NOT_WAITING:
                seconds, _ = await _run(shell, command)
                if seconds is not None:
                    false_alarms.append(command)
        for _ in range(200):
            began = time.perf_counter()
            shell.session.terminal_read()
            looks.append((time.perf_counter() - began) * 1000)
    finally:
        await shell.close()
    return noticed, false_alarms, looks


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        noticed, false_alarms, looks = asyncio.run(_bench(args.runs, tmp))
    processes = sum(name.isdigit() for name in os.listdir("/proc"))
    worst = max(max(times) for times in noticed.values())
    rows = [
        f"Run {dt.date.today().isoformat()} on {platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}, {processes} processes in /proc; "
        f"{args.runs} runs of each command in the agent's shell.",
        "",
        "| step waiting for input | noticed after (median) | worst |",
        "|---|---|---|",
        *(
            f"| {name} | {statistics.median(times):.2f} s | {max(times):.2f} s |"
            for name, times in noticed.items()
        ),
        "",
        f"Budget {BUDGET_S:.0f} s (issue 24). One look at the terminal (`terminal_read`, a /proc "
        f"scan): median {statistics.median(looks):.2f} ms, done every 100 ms only while a step "
        f"has printed nothing for 0.3 s. Slow steps taken for a wait "
        f"({', '.join(f'`{c}`' for c in NOT_WAITING)}): {len(false_alarms)}.",
    ]
    write_section(
        "input_wait", "## Noticing a step that waits for input (bench/input_wait.py)", rows
    )
    print("\n".join(rows))
    return 0 if worst <= BUDGET_S and not false_alarms else 1


if __name__ == "__main__":
    raise SystemExit(main())
