"""What rendering markdown while it streams costs over printing the raw text.

A markdown reply of about 5,000, 10,000 and 20,000 tokens (headings, paragraphs with emphasis,
lists, quotes, tables, code fences, a `CMD:` line; 4 characters a token) is served by
`aish-testllm` with zero delay and streamed through the real path (`stream_reply`, httpx, SSE)
into the REPL's `ChatView` writing to a sink that counts what it is given: once in colour
(markdown rendered, `MarkdownStream`) and once plain (the raw text). The deltas are also
recorded and fed to both views without the network, which isolates the renderer. Reports
medians, the rendered/raw ratio, and time per 1,000 tokens at each size (flat = linear).

    .venv/bin/python bench/render.py [--runs 5]
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import io
import os
import platform
import statistics
import time

from aish.agent.events import AgentEvent, AssistantDelta, ReplyFinished
from aish.agent.streaming import stream_reply
from aish.llm.types import Message, ModelTarget, Reply
from aish.ui.chat_view import ChatView
from aish_testllm.server import TestLLMServer
from results import write_section  # bench/ is the script directory, so this resolves

SIZES = (5_000, 10_000, 20_000)
CHARS_PER_TOKEN = 4
RATIO_BUDGET = 2.0
# The same bench before blocks were drawn straight to ANSI text (rich's Markdown, Table and
# Syntax per block, then a second `console.print` pass), kept for comparison.
BEFORE = [
    "Before (2026-11-25, every block through rich's renderers, medians of 3):",
    "",
    "| reply | streamed raw | streamed rendered | ratio | renderer alone: raw | rendered | ratio |",
    "|---|---|---|---|---|---|---|",
    "| 5k tokens | 187 ms | 454 ms | 2.42× | 58 ms | 305 ms | 5.3× |",
    "| 10k tokens | 235 ms | 749 ms | 3.18× | 63 ms | 362 ms | 5.7× |",
    "| 20k tokens | 473 ms | 1202 ms | 2.54× | 129 ms | 766 ms | 5.9× |",
]


class CountingSink(io.TextIOBase):
    """A terminal that only counts: what the views write, nothing more."""

    def __init__(self) -> None:
        self.chars = 0

    def write(self, text: str) -> int:
        self.chars += len(text)
        return len(text)

    def isatty(self) -> bool:
        return True


def _section(n: int) -> str:
    return (
        f"## Step {n}: find what fills the disk\n\n"
        f"Paragraph {n} says *why* this matters, with **bold advice**, `inline code` and a "
        "sentence long enough to wrap on an ordinary terminal, as model replies do.\n\n"
        f"1. Measure the directories under /var/{n}\n"
        "2. Sort them by size\n"
        "   and keep the ten biggest\n"
        "- a bullet with a [link](https://example.org)\n\n"
        f"> Note {n}: measure before you delete anything.\n\n"
        "| directory | size | owner |\n|---|---|---|\n"
        f"| /var/log/{n} | {n} GB | root |\n| /var/cache/{n} | 1 GB | root |\n\n"
        "```python\n"
        f"def biggest_{n}(path):\n"
        '    """The ten biggest entries."""\n'
        "    return sorted(path.iterdir(), key=lambda p: p.stat().st_size)[-10:]\n"
        "```\n\n"
    )


def reply_of(tokens: int) -> str:
    parts = ["# Disk report\n\n"]
    n, size = 0, len(parts[0])
    while size < tokens * CHARS_PER_TOKEN - 40:
        n += 1
        parts.append(_section(n))
        size += len(parts[-1])
    parts.append("CMD: du -sh /var/* | sort -h\n")
    return "".join(parts)[: tokens * CHARS_PER_TOKEN]


class Recorder:
    def __init__(self, view: ChatView) -> None:
        self.view = view
        self.events: list[AgentEvent] = []

    def render(self, event: AgentEvent) -> None:
        self.events.append(event)
        self.view.render(event)


async def _streamed(url: str, question: str, color: bool) -> tuple[float, list[AgentEvent]]:
    target = ModelTarget("t", url + "/v1", "testllm")
    recorder = Recorder(ChatView(CountingSink(), color=color))
    started = time.perf_counter()
    await stream_reply(target, [Message("user", question)], recorder, Reply())
    return (time.perf_counter() - started) * 1000, recorder.events


def _replayed(events: list[AgentEvent], color: bool) -> float:
    view = ChatView(CountingSink(), color=color)
    started = time.perf_counter()
    for event in events:
        view.render(event)
    return (time.perf_counter() - started) * 1000


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    os.environ["COLUMNS"], os.environ["LINES"] = "120", "40"

    scenario = {
        "rules": [
            {"when": {"user": f"size {tokens}"}, "reply": {"text": reply_of(tokens)}}
            for tokens in SIZES
        ],
        "default": {"text": "ok"},
    }
    stream_ms: dict[tuple[int, bool], list[float]] = {}
    replay_ms: dict[tuple[int, bool], list[float]] = {}
    deltas: dict[int, int] = {}
    with TestLLMServer(scenario, log_path=None) as llm:
        asyncio.run(_streamed(llm.url, f"size {SIZES[0]}", True))  # warm imports and the server
        for tokens in SIZES:
            for _ in range(args.runs):  # interleaved so drift hits both alike
                for color in (False, True):
                    ms, events = asyncio.run(_streamed(llm.url, f"size {tokens}", color))
                    stream_ms.setdefault((tokens, color), []).append(ms)
                    replay_ms.setdefault((tokens, color), []).append(_replayed(events, color))
                    text = "".join(e.text for e in events if isinstance(e, AssistantDelta))
                    assert text == reply_of(tokens) and isinstance(events[-1], ReplyFinished)
                    deltas[tokens] = sum(isinstance(e, AssistantDelta) for e in events)

    def med(table: dict[tuple[int, bool], list[float]], tokens: int, color: bool) -> float:
        return statistics.median(table[(tokens, color)])

    rows = [
        f"Run {dt.date.today().isoformat()} on {platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}; medians of {args.runs} interleaved runs, "
        "terminal 120×40, zero model delay, 16-character chunks.",
        "",
        "| reply | deltas | streamed raw | streamed rendered | ratio | per 1k tokens, rendered "
        "| renderer alone: raw | rendered | ratio |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    worst = 0.0
    for tokens in SIZES:
        raw, shown = med(stream_ms, tokens, False), med(stream_ms, tokens, True)
        replay_raw, replay_shown = med(replay_ms, tokens, False), med(replay_ms, tokens, True)
        worst = max(worst, shown / raw)
        rows.append(
            f"| {tokens // 1000}k tokens | {deltas[tokens]} | {raw:.0f} ms | {shown:.0f} ms "
            f"| {shown / raw:.2f}× | {shown / tokens * 1000:.1f} ms "
            f"| {replay_raw:.0f} ms | {replay_shown:.0f} ms | {replay_shown / replay_raw:.1f}× |"
        )
    first, last = SIZES[0], SIZES[-1]
    growth = med(stream_ms, last, True) / med(stream_ms, first, True)
    rows += [
        "",
        f"Rendered, {last // 1000}k against {first // 1000}k tokens: {growth:.2f}× the time for "
        f"{last // first}× the text (linear: {last / first:.0f}×). Worst streamed ratio "
        f"{worst:.2f}× (budget {RATIO_BUDGET:.0f}×).",
        "",
        *BEFORE,
    ]
    write_section("render", "## Markdown rendered while it streams (bench/render.py)", rows)
    print("\n".join(rows))
    return 0 if worst < RATIO_BUDGET else 1


if __name__ == "__main__":
    raise SystemExit(main())
