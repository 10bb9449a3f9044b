"""Issue 25's bars, all measured in one run: the table at the top of bench/RESULTS.md.

- time to the first prompt against `python -c "import prompt_toolkit"` (the floor: aish's
  prompt cannot come before its line editor is imported), both under a PTY;
- `aish ask` against `llm` and `sgpt` on the same aish_testllm reply (peers installed by
  bench/peers.py into bench/.peers/), and aish's peak RSS;
- a question in the REPL: Enter → request, last byte → prompt (bench/question_overhead.py);
- no regressions: per-command overhead, the classifier, rendering, scrubbing, and RSS growth
  over a 500-question session.

Each figure is a median of interleaved runs; ratios are taken within this run only. The other
benches have the full tables in their own sections.

    .venv/bin/python bench/speed.py [--runs 15] [--long 500]
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

import first_prompt
import peers
import question_overhead
from aish_testllm.server import TestLLMServer
from results import RESULTS

AISH_BIN = Path(sys.executable).parent
TITLE = "## Speed at a glance (bench/speed.py, issue 25)"
START, END = "<!-- speed:start -->", "<!-- speed:end -->"


def first_prompt_ratio(env: dict[str, str], runs: int) -> tuple[float, float, float]:
    aish = str(AISH_BIN / "aish")
    floor_args = ["-c", "import prompt_toolkit"]
    for _ in range(2):  # bytecode, page cache, the validated config kept
        first_prompt._until(aish, [], r"\[aish:local\]", env)
        first_prompt._until(sys.executable, floor_args, None, env)
    ours, floor = [], []
    for _ in range(runs):
        ours.append(first_prompt._until(aish, [], r"\[aish:local\]", env))
        floor.append(first_prompt._until(sys.executable, floor_args, None, env))
    a, f = statistics.median(ours), statistics.median(floor)
    return a, f, a / f


def one_shots(env: dict[str, str], cwd: Path, runs: int) -> dict[str, tuple[float, float]]:
    """Tool name → (median one-shot wall ms, median peak RSS MiB)."""
    tools = peers.tools()
    for tool in tools:
        peers.run_once(tool.one_shot, env, cwd)
    samples: dict[str, tuple[list[float], list[float]]] = {t.name: ([], []) for t in tools}
    for _ in range(runs):
        for tool in tools:
            wall, rss = peers.run_once(tool.one_shot, env, cwd)
            samples[tool.name][0].append(wall)
            samples[tool.name][1].append(rss)
    return {n: (statistics.median(w), statistics.median(r)) for n, (w, r) in samples.items()}


def no_regressions(quick: bool) -> list[tuple[str, str, str]]:
    import classify
    import scrub
    import shell_overhead
    from aish.safety import classifier

    rows: list[tuple[str, str, str]] = []
    with tempfile.TemporaryDirectory() as tmp:
        plain = asyncio.run(shell_overhead._plain(100, Path(tmp)))
        ran, _starts = asyncio.run(shell_overhead._aish(100, Path(tmp)))
    added = statistics.median(ran) - statistics.median(plain)
    rows.append(("per-command overhead over bash", f"{added:.2f} ms", "≤ 5 ms"))
    corpus = classify._corpus()
    classifier.classify("ls")
    per: list[float] = []
    for _label, command in corpus:
        classifier._classify_cached.cache_clear()
        began = time.perf_counter()
        classifier.classify(command)
        per.append((time.perf_counter() - began) * 1e6)
    rows.append(("classifier per command, cold", f"{statistics.median(per):.0f} µs", "≤ 200 µs"))
    _label, render_text = peers.render_row(quick)
    ratio = render_text.split("(")[1].split("×")[0] + "×" if "×" in render_text else render_text
    rows.append(("render, streamed, rendered / raw (5k tokens)", ratio, "≤ 2×"))
    rate, cpu_rate = scrub._rate("shell output", 3)
    shown = f"{rate:.2f} MB/s ({cpu_rate:.2f} MB/s of CPU time)"
    rows.append(("scrubber on shell output", shown, "≥ 3 MB/s"))
    return rows


def write_top(rows: list[str]) -> None:
    """The section goes right under the file's title, where a reader looks first."""
    section = "\n".join([START, TITLE, "", *rows, END])
    text = RESULTS.read_text() if RESULTS.exists() else "# Benchmark results\n"
    if START in text and END in text:
        text = text[: text.index(START)] + section + text[text.index(END) + len(END) :]
    else:
        title, _, rest = text.partition("\n")
        text = f"{title}\n\n{section}\n{rest}"
    RESULTS.write_text(text)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--questions", type=int, default=15)
    parser.add_argument("--long", type=int, default=500)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    for name, requirements in peers.VENVS.items():
        if name != "_bench":
            peers.ensure_venv(name, requirements)
    load_before = os.getloadavg()
    started = time.perf_counter()
    last = question_overhead.LastByte()
    scenario = {"rules": [], "default": {"text": peers.REPLY, "chunk_size": 16}}
    with tempfile.TemporaryDirectory() as tmp, TestLLMServer(scenario) as server:
        home = Path(tmp)
        env = peers.make_home(home, server.url)
        env.pop("NO_COLOR")  # the REPL and the prompt as a person sees them
        fp_aish, fp_floor, fp_ratio = first_prompt_ratio(env, args.runs)
        shots = one_shots({**env, "NO_COLOR": "1"}, home / "work", args.runs)
        wire, prompt = question_overhead.measure(
            [str(AISH_BIN / "aish")], env, home, server, last, args.questions
        )
        rss = question_overhead.long_session(env, home, args.long) if args.long else None
    regressions = no_regressions(args.quick)
    elapsed = time.perf_counter() - started
    load_after = os.getloadavg()

    aish_ms, aish_rss = shots["aish"]
    llm_ms, sgpt_ms = shots["llm"][0], shots["sgpt"][0]
    wire_ms, prompt_ms = statistics.median(wire), statistics.median(prompt)

    def mark(ok: bool) -> str:
        return "yes" if ok else "**no**"

    rows = [
        f"Run {dt.datetime.now().strftime('%Y-%m-%d %H:%M')} on {peers.machine()}, Python "
        f"{platform.python_version()}, {elapsed:.0f} s in all; load average "
        f"{load_before[0]:.2f} before, {load_after[0]:.2f} after (a shared machine: the ratios "
        f"hold better than the absolutes). {args.runs} interleaved runs per start-up figure, "
        f"{args.questions} questions after 20 turns of history with memory on.",
        "",
        "| bar | measured | target | met |",
        "|---|---|---|---|",
        f'| first prompt / `python -c "import prompt_toolkit"` | {fp_ratio:.2f}× '
        f"({fp_aish:.0f} ms / {fp_floor:.0f} ms) | ≤ 1.8× | {mark(fp_ratio <= 1.8)} |",
        f"| `llm` one-shot / `aish ask` | {llm_ms / aish_ms:.2f}× ({llm_ms:.0f} ms / "
        f"{aish_ms:.0f} ms) | ≥ 4× | {mark(llm_ms / aish_ms >= 4)} |",
        f"| `sgpt` one-shot / `aish ask` | {sgpt_ms / aish_ms:.2f}× ({sgpt_ms:.0f} ms) | ≥ 6× "
        f"| {mark(sgpt_ms / aish_ms >= 6)} |",
        f"| `aish ask` peak RSS | {aish_rss:.0f} MiB | ≤ 50 MiB | {mark(aish_rss <= 50)} |",
        f"| REPL: Enter → request on the wire | {wire_ms:.1f} ms | ≤ 15 ms "
        f"| {mark(wire_ms <= 15)} |",
        f"| REPL: reply's last byte → prompt back | {prompt_ms:.1f} ms | ≤ 15 ms "
        f"| {mark(prompt_ms <= 15)} |",
    ]
    if rss is not None:
        growth = rss[1] - rss[0]
        rows.append(
            f"| RSS growth over {args.long} questions | {growth:+.1f} MB ({rss[0]:.0f} → "
            f"{rss[1]:.0f} MB) | ≤ 20 MB | {mark(growth <= 20)} |"
        )
    for name, value, target in regressions:
        number = float(value.split()[0].rstrip("×"))
        limit = float(target.split()[1].rstrip("×"))
        ok = number >= limit if target.startswith("≥") else number <= limit
        rows.append(f"| {name} | {value} | {target} | {mark(ok)} |")
    write_top(rows)
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
