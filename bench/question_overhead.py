"""What aish itself adds to a question in the REPL, end to end and phase by phase.

aish runs under a PTY against `aish_testllm` in this process (zero model delay, the same
197-character reply every time). Memory is on (ten remembered items) and the conversation has
20 turns before anything is measured; then each measured question gives two figures:

- **Enter → request**: from the `\\r` written to the PTY to the request fully read by the
  server (routing, memory, context build, budget, scrubbing, the request's serialisation,
  the HTTP round to the socket);
- **last byte → prompt**: from the server writing the reply's last chunk to the next prompt
  on screen (the rest of the stream, rendering, the exchange's store writes, the prompt).

A second pass runs aish under `question_probe.py`, which times the phases inside aish
(routing, memory, context build, budget, scrubbing, render, store writes) with the same
questions; the probe's own cost is a few microseconds a call, so its pass is reported apart.
Then a long session: RSS after 500 questions against RSS after the warm-up. Results go into
bench/RESULTS.md between this bench's markers.

    .venv/bin/python bench/question_overhead.py [--questions 20] [--long 500]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pexpect

from aish_testllm import streaming
from aish_testllm.server import TestLLMServer
from results import write_section  # bench/ is the script directory, so this resolves

HERE = Path(__file__).resolve().parent
AISH_BIN = Path(sys.executable).parent
BUDGET_MS = 15.0
HISTORY_TURNS = 20
RSS_BUDGET_MB = 20.0

REPLY = (
    "Sort everything below here by size and keep the ten largest:\n\n"
    "    du -ah . | sort -rh | head -n 10\n\n"
    "`du -a` lists files as well as directories, `sort -rh` orders human-readable sizes "
    "largest first."
)
QUESTIONS = [
    "how do I list the 10 biggest files here?",
    "and only files, not directories?",
    "how do I exclude the .git directory?",
    "what does -h do in sort?",
    "can I do the same with find?",
]
MEMORIES = [f"the project {i} builds with make -j{i}, tests run with pytest -x" for i in range(10)]
PROMPT = r"\[aish:[^\]]+\] [^\r\n]*?>"
NEW_PROMPT = r"\n[^\n]*?" + PROMPT


class LastByte:
    """When the server wrote the end of each streamed reply (`ChunkedWriter.finish`)."""

    def __init__(self) -> None:
        self.times: list[float] = []
        self._lock = threading.Lock()
        original = streaming.ChunkedWriter.finish
        recorder = self

        def finish(writer: streaming.ChunkedWriter) -> None:
            original(writer)
            with recorder._lock:
                recorder.times.append(time.time())

        streaming.ChunkedWriter.finish = finish  # type: ignore[method-assign]


def make_home(home: Path, url: str) -> dict[str, str]:
    config = home / ".config" / "aish"
    config.mkdir(parents=True)
    (config / "config.toml").write_text(
        f'default_model = "local"\n[models.local]\nendpoint = "{url}/v1"\nmodel = "testllm"\n'
    )
    (home / "work").mkdir()
    return {
        "HOME": str(home),
        "PATH": os.environ.get("PATH", os.defpath),
        "SHELL": "/bin/bash",
        "LANG": "C.UTF-8",
        "TERM": "xterm-256color",
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_STATE_HOME": str(home / ".state"),
        "XDG_DATA_HOME": str(home / ".data"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "PROMPT_TOOLKIT_NO_CPR": "1",
    }


@contextmanager
def repl(cmd: list[str], env: dict[str, str], home: Path) -> Iterator[pexpect.spawn]:
    child = pexpect.spawn(
        cmd[0],
        cmd[1:],
        cwd=str(home / "work"),
        env=env,
        encoding="utf-8",
        codec_errors="replace",
        dimensions=(40, 120),
        timeout=60,
    )
    child.delaybeforesend = None  # pexpect sleeps 50 ms before each send otherwise
    try:
        child.expect(PROMPT)
        yield child
        child.send("exit\r")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)


def ask(child: pexpect.spawn, question: str) -> tuple[float, float]:
    """Send one question; (time Enter was written, time the next prompt was seen)."""
    child.send(f"?{question}")
    child.expect_exact(question[-12:])  # the line is typed (and drawn) before Enter
    time.sleep(0.02)  # and the line editor is idle again
    entered = time.time()
    child.send("\r")
    child.expect(NEW_PROMPT)
    return entered, time.time()


def prepare(child: pexpect.spawn) -> None:
    for memory in MEMORIES:
        child.send(f":remember {memory}\r")
        child.expect(NEW_PROMPT)
    for i in range(HISTORY_TURNS):
        ask(child, QUESTIONS[i % len(QUESTIONS)])


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def measure(
    cmd: list[str], env: dict[str, str], home: Path, server: TestLLMServer, last: LastByte, n: int
) -> tuple[list[float], list[float]]:
    to_wire, to_prompt = [], []
    with repl(cmd, env, home) as child:
        prepare(child)
        for i in range(n):
            before = len(server.requests)
            entered, prompted = ask(child, QUESTIONS[i % len(QUESTIONS)])
            request = server.requests[before]
            to_wire.append((request["ts"] - entered) * 1000)
            to_prompt.append((prompted - last.times[-1]) * 1000)
    return to_wire, to_prompt


def long_session(
    env: dict[str, str], home: Path, turns: int
) -> tuple[float, float, float, list[tuple[int, float]]]:
    """RSS (MB) after the warm-up and after `turns` more questions; per-question time (ms)."""
    marks: list[tuple[int, float]] = []
    with repl([str(AISH_BIN / "aish")], env, home) as child:
        prepare(child)
        start = rss_kib(child.pid) / 1024
        started = time.perf_counter()
        for i in range(turns):
            ask(child, QUESTIONS[i % len(QUESTIONS)])
            if (i + 1) % 100 == 0:
                marks.append((i + 1, rss_kib(child.pid) / 1024))
        per_question = (time.perf_counter() - started) * 1000 / turns - 20  # minus the pause
        end = rss_kib(child.pid) / 1024
    return start, end, per_question, marks


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--questions", type=int, default=20)
    parser.add_argument("--long", type=int, default=500)
    args = parser.parse_args()
    last = LastByte()
    scenario = {"rules": [], "default": {"text": REPLY, "chunk_size": 16}}
    with tempfile.TemporaryDirectory() as tmp, TestLLMServer(scenario) as server:
        env = make_home(Path(tmp) / "home", server.url)
        home = Path(tmp) / "home"
        plain = [str(AISH_BIN / "aish")]
        probe_file = Path(tmp) / "phases.json"
        probed = [sys.executable, str(HERE / "question_probe.py"), str(probe_file)]
        wire, prompt = measure(plain, env, home, server, last, args.questions)
        measure(probed, env, home, server, last, args.questions)
        phases: dict[str, Any] = json.loads(probe_file.read_text())
        rss = long_session(env, home, args.long) if args.long else None
    rows = report(args, wire, prompt, phases, rss)
    write_section(
        "question_overhead", "## Question overhead in the REPL (bench/question_overhead.py)", rows
    )
    print("\n".join(rows))
    return 0


def report(
    args: argparse.Namespace,
    wire: list[float],
    prompt: list[float],
    phases: dict[str, Any],
    rss: tuple[float, float, float, list[tuple[int, float]]] | None,
) -> list[str]:
    per_question = phases["questions"]
    rows = [
        f"Run {dt.datetime.now().strftime('%Y-%m-%d %H:%M')} on {platform.machine()}, "
        f"{os.cpu_count()} cores, Python {platform.python_version()}; aish under a PTY against "
        f"aish_testllm (zero delay, a {len(REPLY)}-character reply in 16-character chunks), "
        f"memory on ({len(MEMORIES)} items), {HISTORY_TURNS} turns of history before "
        f"{args.questions} measured questions (medians).",
        "",
        "| measure | median | 90th percentile | budget |",
        "|---|---|---|---|",
        f"| Enter → request read by the server | {statistics.median(wire):.1f} ms | "
        f"{_p90(wire):.1f} ms | {BUDGET_MS:.0f} ms |",
        f"| reply's last byte → next prompt on screen | {statistics.median(prompt):.1f} ms | "
        f"{_p90(prompt):.1f} ms | {BUDGET_MS:.0f} ms |",
        "",
        f"Inside aish, per question (a second pass under bench/question_probe.py, {per_question} "
        "questions after the same warm-up; median of each phase's total per question):",
        "",
        "| phase | what runs | median per question |",
        "|---|---|---|",
        *(
            f"| {name} | {phase['what']} | {phase['median_ms']:.2f} ms |"
            for name, phase in phases["phases"].items()
        ),
    ]
    if rss is not None:
        start, end, per, marks = rss
        rows += [
            "",
            f"Long session: {args.long} more questions in one REPL after the warm-up.",
            "",
            "| measure | value | budget |",
            "|---|---|---|",
            f"| RSS after the warm-up | {start:.1f} MB | |",
            *(f"| RSS after {n} questions | {mb:.1f} MB | |" for n, mb in marks),
            f"| growth | {end - start:+.1f} MB | ≤ {RSS_BUDGET_MB:.0f} MB |",
            f"| mean time per question (Enter to prompt, typing excluded) | {per:.1f} ms | |",
        ]
    return rows


def _p90(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]


if __name__ == "__main__":
    raise SystemExit(main())
