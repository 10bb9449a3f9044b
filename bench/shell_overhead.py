"""What aish's persistent shell adds to each command.

Runs `true` many times through `ShellSession.run` (markers, echo cut, capture, typeahead
flush) and the same number of times typed into a plain `bash -i` on a PTY, waiting for a
sentinel prompt, with the same asyncio reader harness; reports the medians and the difference.
Also the time `ShellSession.start` takes to reach its first prompt. Results go into
bench/RESULTS.md between this bench's markers, so other benches can share the file.

    .venv/bin/python bench/shell_overhead.py [--runs 200]
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
from pathlib import Path

from aish.shell.session import ShellSession
from results import write_section  # bench/ is the script directory, so this resolves

BUDGET_MS = 5.0
SENTINEL = b"__BENCH_READY__> "


def _env(home: Path) -> dict[str, str]:
    return {
        "HOME": str(home),
        "PATH": os.environ.get("PATH", os.defpath),
        "TERM": "xterm-256color",
        "LANG": "C.UTF-8",
        "SHELL": shutil.which("bash") or "/bin/bash",
    }


async def _aish(runs: int, home: Path) -> tuple[list[float], list[float]]:
    starts = []
    for _ in range(20):
        began = time.perf_counter()
        session = await ShellSession.start(env=_env(home), cwd=str(home))
        starts.append((time.perf_counter() - began) * 1000)
        await session.close()
    session = await ShellSession.start(env=_env(home), cwd=str(home))
    try:
        for _ in range(20):  # warm up
            await session.run("true")
        times = []
        for _ in range(runs):
            began = time.perf_counter()
            await session.run("true")
            times.append((time.perf_counter() - began) * 1000)
    finally:
        await session.close()
    return times, starts


async def _plain(runs: int, home: Path) -> list[float]:
    """Plain interactive bash on a PTY: type `true`, wait for the sentinel prompt."""
    loop = asyncio.get_running_loop()
    master, slave = os.openpty()
    bash = shutil.which("bash") or "/bin/bash"
    proc = subprocess.Popen(
        [bash, "--norc", "--noprofile", "-i"],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=_env(home),
        cwd=home,
        start_new_session=True,
    )
    os.close(slave)
    os.set_blocking(master, False)
    buffer = bytearray()
    arrived = asyncio.Event()

    def on_readable() -> None:
        try:
            buffer.extend(os.read(master, 65536))
        except OSError:
            loop.remove_reader(master)
        arrived.set()

    async def until_prompt() -> None:
        while SENTINEL not in buffer:
            arrived.clear()
            await arrived.wait()
        del buffer[: buffer.index(SENTINEL) + len(SENTINEL)]

    loop.add_reader(master, on_readable)
    try:
        # Quoted in two halves, so that the echo of this line does not contain the sentinel.
        half = len(SENTINEL) // 2
        os.write(
            master,
            b"bind 'set enable-bracketed-paste off'; PS1='"
            + SENTINEL[:half]
            + b"''"
            + SENTINEL[half:]
            + b"'\r",
        )
        await until_prompt()
        for _ in range(20):
            os.write(master, b"true\r")
            await until_prompt()
        times = []
        for _ in range(runs):
            began = time.perf_counter()
            os.write(master, b"true\r")
            await until_prompt()
            times.append((time.perf_counter() - began) * 1000)
    finally:
        loop.remove_reader(master)
        os.close(master)
        proc.kill()
        proc.wait()
    return times


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        plain = asyncio.run(_plain(args.runs, home))
        aish, starts = asyncio.run(_aish(args.runs, home))
    med_plain, med_aish = statistics.median(plain), statistics.median(aish)
    added = med_aish - med_plain
    bash_version = subprocess.run(
        ["bash", "-c", "echo $BASH_VERSION"], capture_output=True, text=True, check=False
    ).stdout.strip()
    rows = [
        f"Run {dt.date.today().isoformat()} on {platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}, bash {bash_version}; {args.runs} × `true` each, "
        "after 20 warm-up commands.",
        "",
        "| measure | median |",
        "|---|---|",
        f"| plain `bash -i` on a PTY, `true` until the sentinel prompt | {med_plain:.2f} ms |",
        f"| `ShellSession.run('true')` | {med_aish:.2f} ms |",
        f"| added by aish per command | {added:.2f} ms (budget {BUDGET_MS:.0f} ms) |",
        f"| `ShellSession.run`, 90th percentile | {statistics.quantiles(aish, n=10)[-1]:.2f} ms |",
        f"| `ShellSession.start` to the first ready prompt (20 runs) | "
        f"{statistics.median(starts):.1f} ms |",
    ]
    title = "## Shell per-command overhead (bench/shell_overhead.py)"
    write_section("shell_overhead", title, rows)
    print("\n".join(rows))
    return 0 if added <= BUDGET_MS else 1


if __name__ == "__main__":
    raise SystemExit(main())
