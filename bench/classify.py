"""How long the classifier takes per command, over the whole labelled command corpus.

Every command is classified cold (the verdict cache cleared before each call), several rounds;
reports the median and the 95th percentile per command, the slowest command, and the corpus
figures the issue sets bars for. Results go into bench/RESULTS.md between this bench's markers.

    .venv/bin/python bench/classify.py [--rounds 5]
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import statistics
import time
from pathlib import Path

from aish.safety import classifier
from results import write_section  # bench/ is the script directory, so this resolves

BUDGET_US = 200.0


def _corpus() -> list[tuple[str, str]]:
    candidates = [Path(os.environ.get("AISH_CORPUS_DIR", "/nonexistent"))]
    candidates += [Path(__file__).resolve().parents[2] / "shared" / "corpus"]
    candidates += [Path("/work/shared/corpus")]
    path = next(p / "commands.tsv" for p in candidates if (p / "commands.tsv").is_file())
    rows = [line.split("\t") for line in path.read_text(encoding="utf-8").splitlines()[1:]]
    return [(row[0], row[1]) for row in rows if len(row) >= 2]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    rounds = parser.parse_args().rounds
    rows = _corpus()
    classifier.classify("ls")  # builds the parser once, as a session does at its first check
    per_command: dict[str, list[float]] = {}
    for _ in range(rounds):
        for _label, command in rows:
            classifier._classify_cached.cache_clear()
            start = time.perf_counter()
            classifier.classify(command)
            per_command.setdefault(command, []).append((time.perf_counter() - start) * 1e6)
    medians = sorted((statistics.median(v), c) for c, v in per_command.items())
    values = [m for m, _ in medians]
    median = statistics.median(values)
    p95 = values[int(0.95 * (len(values) - 1))]
    slowest_us, slowest = medians[-1]
    levels: dict[tuple[str, str], int] = {}
    for label, command in rows:
        key = (label, classifier.classify(command).level)
        levels[key] = levels.get(key, 0) + 1

    def count(label: str, level: str) -> int:
        return levels.get((label, level), 0)

    total = {label: sum(n for (lab, _), n in levels.items() if lab == label) for label, _ in rows}
    verdict = "within" if median <= BUDGET_US else "OVER"
    rows_out = [
        f"Run {dt.date.today().isoformat()} on {platform.machine()}, Python "
        f"{platform.python_version()}; {len(rows)} commands x {rounds} rounds, cold cache.",
        "",
        "| measure | value |",
        "|---|---|",
        f"| median per command | {median:.0f} µs ({verdict} the {BUDGET_US:.0f} µs budget) |",
        f"| 95th percentile | {p95:.0f} µs |",
        f"| slowest | {slowest_us:.0f} µs: `{slowest[:60]}` |",
        f"| destructive rows judged destructive | {count('destructive', 'destructive')}"
        f"/{total['destructive']} (bar ≥ 95%) |",
        f"| destructive or write rows judged safe | "
        f"{count('destructive', 'safe') + count('write', 'safe')} (bar 0) |",
        f"| safe rows judged safe | {count('safe', 'safe')}/{total['safe']} (bar ≥ 70%) |",
        f"| safe rows judged destructive | {count('safe', 'destructive')}/{total['safe']}"
        " (bar ≤ 5%) |",
        f"| write rows: unknown / destructive | {count('write', 'unknown')} / "
        f"{count('write', 'destructive')} |",
    ]
    write_section("classify", "## Safety classifier: time per command and corpus figures", rows_out)
    print("\n".join(rows_out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
