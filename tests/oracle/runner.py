"""Run many cases through the oracle in parallel and describe what contradicts `safe`."""

from __future__ import annotations

import os
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor

from .cases import Case
from .sandbox import Outcome, Seeds

SHOWN = 6  # violations listed per command; the rest are counted


def jobs() -> int:
    """Sandboxes at once: `AISH_ORACLE_JOBS`, else one more than the cores (each run waits on
    bwrap and strace more than it computes)."""
    configured = os.environ.get("AISH_ORACLE_JOBS", "")
    return int(configured) if configured.isdigit() else (os.cpu_count() or 2) + 1


def check_all(cases: Iterable[Case], workers: int | None = None) -> dict[Case, Outcome]:
    seeds = Seeds()
    try:
        with ThreadPoolExecutor(max_workers=workers or jobs()) as pool:
            pending = {case: pool.submit(seeds.check, case.command, case.cwd) for case in cases}
            return {case: future.result() for case, future in pending.items()}
    finally:
        seeds.close()


def describe(case: Case, outcome: Outcome) -> str:
    lines = [f"`safe` contradicted [{case.source}]: {case.label}"]
    unique = list(dict.fromkeys(outcome.violations))
    lines += [f"    {violation}" for violation in unique[:SHOWN]]
    if len(unique) > SHOWN:
        lines.append(f"    … and {len(unique) - SHOWN} more")
    if outcome.timed_out:
        lines.append("    (stopped at the timeout)")
    return "\n".join(lines)
