"""What Norris's copy-on-write sandbox costs.

- per command: `AgentShell` running `true` and a small append (`echo x >> f`, an overlay
  copy-up the first time) in a sandboxed shell and in a plain one, medians and the difference
  (budget ≤ 5 ms);
- start: the launcher building the sandbox (namespaces, overlay, read-only remounts, tmpfs,
  socket covers, /proc) and running `/bin/true`, against `/bin/true` through the same Python
  interpreter's start-up; and the agent shell to its first prompt, sandboxed and not
  (budget ≤ 100 ms for the sandbox itself);
- apply: scanning and applying a change set of 1,000 modified files (backup included).

Results go into bench/RESULTS.md between this bench's markers.

    .venv/bin/python bench/sandbox.py [--runs 200]
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from aish.run.agent_shell import AgentShell
from aish.run.sandbox import Sandbox, apply_changes, sandbox_support
from results import write_section  # bench/ is the script directory, so this resolves

COMMAND_BUDGET_MS = 5.0
START_BUDGET_MS = 100.0
FILES = 1000


def _env(home: Path) -> dict[str, str]:
    return {
        "HOME": str(home),
        "PATH": os.environ.get("PATH", os.defpath),
        "TERM": "xterm-256color",
        "LANG": "C.UTF-8",
        "SHELL": "/bin/bash",
    }


async def _commands(
    home: Path, runs: int, sandboxed: bool
) -> tuple[list[float], list[float], float]:
    tree = home / ("boxed" if sandboxed else "plain")
    tree.mkdir()
    sandbox = Sandbox.create(tree) if sandboxed else None
    began = time.perf_counter()
    agent = await AgentShell.start(str(tree), env=_env(home), sandbox=sandbox)
    start_ms = (time.perf_counter() - began) * 1000
    try:
        for _ in range(20):
            await agent.session.run("true")
        trues, appends = [], []
        for index in range(runs):
            began = time.perf_counter()
            await agent.session.run("true")
            trues.append((time.perf_counter() - began) * 1000)
            began = time.perf_counter()
            await agent.session.run(f"echo x >> f{index % 50}")
            appends.append((time.perf_counter() - began) * 1000)
    finally:
        await agent.close()
        if sandbox is not None:
            sandbox.discard()
    return trues, appends, start_ms


def _launcher_start(home: Path, runs: int) -> tuple[list[float], list[float]]:
    """The launcher running /bin/true in a fresh sandbox, and the same interpreter running
    /bin/true without building one (what the sandbox adds is the difference)."""
    tree = home / "start"
    tree.mkdir()
    boxed, bare = [], []
    for _ in range(runs):
        sandbox = Sandbox.create(tree)
        argv = sandbox.launch_prefix(str(tree), _env(home))
        began = time.perf_counter()
        subprocess.run([*argv, "/bin/true"], check=True)
        boxed.append((time.perf_counter() - began) * 1000)
        sandbox.discard()
        began = time.perf_counter()
        subprocess.run(
            [sys.executable, "-I", "-S", "-c", "import os; os.execv('/bin/true', ['true'])"],
            check=True,
        )
        bare.append((time.perf_counter() - began) * 1000)
    return boxed, bare


def _apply(home: Path) -> tuple[float, float, int]:
    tree = home / "many"
    tree.mkdir()
    for index in range(FILES):
        (tree / f"file{index:04}.txt").write_text(f"line {index}\n")
    sandbox = Sandbox.create(tree)
    argv = sandbox.launch_prefix(str(tree), _env(home))
    script = 'for f in file*.txt; do echo changed >> "$f"; done'
    subprocess.run([*argv, "/bin/sh", "-c", script], check=True)
    began = time.perf_counter()
    changes = sandbox.changes()
    scan_ms = (time.perf_counter() - began) * 1000
    began = time.perf_counter()
    result = apply_changes(changes, backups=home / "backups")
    apply_ms = (time.perf_counter() - began) * 1000
    sandbox.discard()
    return scan_ms, apply_ms, len(result.applied)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args()
    support = sandbox_support()
    if not support.available:
        print(f"no sandbox on this machine: {support.reason}")
        return 1
    with tempfile.TemporaryDirectory(dir="/var/tmp") as tmp:
        home = Path(tmp)
        plain_true, plain_append, plain_start = asyncio.run(_commands(home, args.runs, False))
        boxed_true, boxed_append, boxed_start = asyncio.run(_commands(home, args.runs, True))
        launched, bare = _launcher_start(home, 20)
        scan_ms, apply_ms, applied = _apply(home)
    med = statistics.median
    added_true = med(boxed_true) - med(plain_true)
    added_append = med(boxed_append) - med(plain_append)
    sandbox_start = med(launched) - med(bare)
    rows = [
        f"Run {dt.date.today().isoformat()} on {platform.machine()}, {os.cpu_count()} cores "
        f"(shared with other jobs), Python {platform.python_version()}, kernel "
        f"{platform.release()}; {args.runs} commands each after 20 warm-up ones.",
        "",
        "| measure | median |",
        "|---|---|",
        f"| agent shell `true`, plain | {med(plain_true):.2f} ms |",
        f"| agent shell `true`, sandboxed | {med(boxed_true):.2f} ms |",
        f"| added by the sandbox per command (`true`) | {added_true:.2f} ms "
        f"(budget {COMMAND_BUDGET_MS:.0f} ms) |",
        f"| agent shell `echo x >> f`, plain / sandboxed | {med(plain_append):.2f} / "
        f"{med(boxed_append):.2f} ms |",
        f"| added by the sandbox per command (append) | {added_append:.2f} ms |",
        f"| launcher + `/bin/true` (20 runs) | {med(launched):.1f} ms |",
        f"| the same Python start + `/bin/true`, no sandbox | {med(bare):.1f} ms |",
        f"| sandbox start (namespaces, mounts) | {sandbox_start:.1f} ms "
        f"(budget {START_BUDGET_MS:.0f} ms) |",
        f"| agent shell start to first prompt, plain / sandboxed (1 run) | {plain_start:.0f} / "
        f"{boxed_start:.0f} ms |",
        f"| scan a change set of {FILES:,} modified files | {scan_ms:.0f} ms |",
        f"| apply it ({applied:,} files, backup included) | {apply_ms:.0f} ms |",
    ]
    write_section("sandbox", "## Norris sandbox (bench/sandbox.py)", rows)
    print("\n".join(rows))
    ok = added_true <= COMMAND_BUDGET_MS and sandbox_start <= START_BUDGET_MS
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
