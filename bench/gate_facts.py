"""What judging a command against the live shell costs the gate.

Before each proposed command the gate asks the shell that will run it for its name tables
(aliases, functions, hashed paths, builtins, PATH, exported variables) and, for a command that
mentions git, asks git which configuration it would read there. This measures those asks on a
real bash (with 0, 200 and 1500 functions defined, as a shell with bash-completion has) and the
classifier with and without the facts, and writes the medians into bench/RESULTS.md.

    .venv/bin/python bench/gate_facts.py [--runs 30]
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import os
import platform
import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from aish.agent.shell_facts import ShellFactsSource
from aish.safety.classifier import classify
from aish.shell.session import ShellSession
from results import write_section  # bench/ is the script directory, so this resolves

# A function of bash-completion's size and shape.
_FUNCTION = (
    "_bench_f{i}() {{ local cur prev words cword; _init_completion || return; "
    'COMPREPLY=( $(compgen -W "a b c d e f" -- "$cur") ); }}'
)


async def _median_ms(runs: int, step: Callable[[], Awaitable[object]]) -> float:
    times = []
    for _ in range(runs):
        began = time.perf_counter()
        await step()
        times.append((time.perf_counter() - began) * 1000)
    return statistics.median(times)


async def _measure(runs: int, home: Path, functions: int) -> list[str]:
    env = {"HOME": str(home), "PATH": os.environ.get("PATH", os.defpath), "LANG": "C.UTF-8"}
    session = await ShellSession.start(env=env, cwd=str(home))
    try:
        if functions:
            await session.run(f'for i in $(seq {functions}); do eval "{_FUNCTION}"; done')
        source = ShellFactsSource(session.state_report)
        report = await _median_ms(runs, session.state_report)
        plain = await _median_ms(runs, lambda: source("ls -la"))
        git = await _median_ms(runs, lambda: source("git status"))
    finally:
        await session.close()
    return [
        f"| state report, {functions} functions | {report:.1f} ms |",
        f"| facts for `ls -la`, {functions} functions | {plain:.1f} ms |",
        f"| facts for `git status` (asks git), {functions} functions | {git:.1f} ms |",
    ]


def _classify_us(runs: int, facts: object | None) -> float:
    commands = [f"ls -la dir{i} | grep x{i} | wc -l" for i in range(runs)]  # no cache hits
    began = time.perf_counter()
    for command in commands:
        classify(command, None, facts)  # type: ignore[arg-type]
    return (time.perf_counter() - began) / runs * 1e6


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=30)
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        subprocess.run(["git", "init", "-q", str(home)], check=True)
        rows = ["| measure | median |", "|---|---|"]
        for functions in (0, 200, 1500):
            rows += await _measure(runs, home, functions)
        session = await ShellSession.start(cwd=str(home))
        try:
            facts = await ShellFactsSource(session.state_report)("ls")
        finally:
            await session.close()
    rows.append(f"| classify a pipeline, no facts | {_classify_us(2000, None):.0f} µs |")
    rows.append(f"| classify a pipeline, with facts | {_classify_us(2000, facts):.0f} µs |")
    bash = subprocess.run(
        [shutil.which("bash") or "bash", "-c", "echo $BASH_VERSION"], capture_output=True
    )
    title = (
        "## The gate's look at the live shell (bench/gate_facts.py)\n\n"
        f"Run {dt.date.today()} on {platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}, bash {bash.stdout.decode().strip()}; {runs} runs each."
    )
    write_section("gate_facts", title, rows)
    print("\n".join(rows))


if __name__ == "__main__":
    asyncio.run(main())
