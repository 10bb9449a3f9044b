"""aish with a stopwatch on each phase of a question: bench/question_overhead.py's second pass.

    python bench/question_probe.py OUT.json   (then as `aish`, in a terminal)

Wraps, before aish imports them, the functions each phase runs through, and sums their time per
line (one `Repl._handle`: routing, then the question). At exit writes OUT.json: per phase,
what it covers and the median of its per-line totals over the lines after the bench's warm-up.
Nested
phases are timed separately (the budget's time includes the context build it calls). Nothing in
aish changes: the wrappers call the originals.
"""

from __future__ import annotations

import atexit
import functools
import json
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

OUT = sys.argv.pop(1)
WARM_UP = 30  # the bench's ten `:remember` lines and 20 turns of history

PHASES: dict[str, tuple[str, str, str]] = {
    # name: (module, attribute path, what it covers)
    "routing": ("aish.agent.routing.router", "route_line", "`route_line` on the typed line"),
    "memory": ("aish.session.memory", "SessionMemory.refresh", "memory block up to date"),
    "context build": (
        "aish.conversation.context",
        "Conversation.request",
        "history + context + newest message as the request's messages",
    ),
    "budget": (
        "aish.agent.context_budget",
        "ContextBudget.make_room",
        "token estimate and eviction (includes its context builds)",
    ),
    "scrubbing": ("aish.agent.outbound", "Outbound.prepare", "secrets scrubbed from the request"),
    "request body": (
        "aish.llm.openai_protocol",
        "request_body",
        "the request's JSON body",
    ),
    "render": ("aish.ui.chat_view", "ChatView.render", "every event drawn (deltas, the end)"),
    "store writes": (
        "aish.store.api",
        "Store.append_turn",
        "session-log turns written to SQLite",
    ),
    "usage write": ("aish.store.api", "Store.record_usage", "the ledger's row"),
    "commit": ("aish.conversation.context", "Conversation.commit", "the exchange joins history"),
}

_current: dict[str, float] | None = None
_questions: list[dict[str, float]] = []


def _add(name: str, started: float) -> None:
    if _current is not None:
        _current[name] = _current.get(name, 0.0) + (time.perf_counter() - started) * 1000


def _timed(name: str, original: Callable[..., Any]) -> Callable[..., Any]:
    import inspect

    if inspect.iscoroutinefunction(original):

        @functools.wraps(original)
        async def timed_async(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return await original(*args, **kwargs)
            finally:
                _add(name, started)

        return timed_async

    @functools.wraps(original)
    def timed(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            _add(name, started)

    return timed


def _install() -> None:
    import importlib

    for name, (module_name, path, _what) in PHASES.items():
        module = importlib.import_module(module_name)
        owner: Any = module
        *parents, attribute = path.split(".")
        for parent in parents:
            owner = getattr(owner, parent)
        setattr(owner, attribute, _timed(name, getattr(owner, attribute)))
    from aish.ui.repl.loop import Repl

    original_handle = Repl._handle

    @functools.wraps(original_handle)
    async def handle(self: Repl, line: str) -> None:
        global _current
        _current = {"question": 0.0}
        started = time.perf_counter()
        try:
            await original_handle(self, line)
        finally:
            _current["question"] = (time.perf_counter() - started) * 1000
            _questions.append(_current)
            _current = None

    Repl._handle = handle  # type: ignore[method-assign]


def _write() -> None:
    measured = _questions[WARM_UP:]
    phases = {}
    for name, (_module, _path, what) in PHASES.items():
        totals = [q.get(name, 0.0) for q in measured] or [0.0]
        phases[name] = {"what": what, "median_ms": statistics.median(totals)}
    totals = [q["question"] for q in measured] or [0.0]
    phases["whole line"] = {
        "what": "`Repl._handle`: routing, the question, its request and stream",
        "median_ms": statistics.median(totals),
    }
    with open(OUT, "w") as out:
        json.dump({"questions": len(measured), "phases": phases}, out)


_install()
atexit.register(_write)

from aish.cli import main  # noqa: E402  (after the wrappers are in place)

sys.argv = ["aish"]
status = main()
sys.exit(status)
