"""`aish cost` as a real process against a real store in an XDG home, filled by the API."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

from aish.store import Store, UsageRow, default_store_path

AISH = [sys.executable, "-m", "aish", "cost"]
DAY = 86400.0


def _aish(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "120"}
    return subprocess.run(
        [*AISH, *args], capture_output=True, text=True, timeout=60, env=env, check=False
    )


def _cells(output: str, first: str) -> list[str]:
    """The cells of the table row whose first cell is `first`."""
    for line in output.splitlines():
        cells = line.split()
        if cells and cells[0] == first:
            return cells
    raise AssertionError(f"no row {first!r} in:\n{output}")


def _fill() -> float:
    """Two sessions, old and new calls, known, unknown and local costs. Returns 'recent'."""
    now = time.time()
    old = now - 10 * DAY
    with Store.open(default_store_path()) as store:
        first = store.start_session(name="first").id
        second = store.start_session().id
        rows = [
            (first, UsageRow(category="chat", model="gpt-4o", prompt_tokens=1000,
                             completion_tokens=100, cached_tokens=400, cost_usd=0.01,
                             cost_source="table", ts=now - 60)),
            (first, UsageRow(category="safety", model="gpt-4o-mini", prompt_tokens=200,
                             completion_tokens=5, cost_usd=0.0005, cost_source="provider",
                             ts=now - 50)),
            (second, UsageRow(category="chat", model="gpt-4o", prompt_tokens=3000,
                              completion_tokens=300, cost_usd=None, cost_source="unknown",
                              ts=now - 40)),
            (second, UsageRow(category="norris", model="llama3", prompt_tokens=500,
                              completion_tokens=50, cost_usd=0.0, cost_source="local",
                              ts=now - 30)),
            (None, UsageRow(category="chat", model="gpt-4o", prompt_tokens=10_000,
                            completion_tokens=1000, cost_usd=1.5, cost_source="config", ts=old)),
        ]  # fmt: skip
        for session_id, row in rows:
            store.record_usage(session_id, row)
    return old


def test_by_model_across_sessions(xdg_home: Path) -> None:
    old = _fill()
    result = _aish()
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert result.stdout.splitlines()[0] == "Model calls, all recorded, by model"
    assert _cells(result.stdout, "gpt-4o") == [
        "gpt-4o", "3", "14,000", "1,400", "400", "$1.51", "+", "1", "unknown",
    ]  # fmt: skip
    assert _cells(result.stdout, "gpt-4o-mini") == [
        "gpt-4o-mini", "1", "200", "5", "0", "$0.0005",
    ]  # fmt: skip
    assert _cells(result.stdout, "llama3") == ["llama3", "1", "500", "50", "0", "$0", "(local)"]
    assert _cells(result.stdout, "total") == [
        "total", "5", "14,700", "1,455", "400", "$1.51", "+", "1", "unknown",
    ]  # fmt: skip

    recent = _aish("--since", "7d")
    assert recent.returncode == 0, recent.stderr
    assert recent.stdout.splitlines()[0].endswith("(7d), by model")
    assert _cells(recent.stdout, "gpt-4o")[1:3] == ["2", "4,000"]
    assert _cells(recent.stdout, "total") == [
        "total", "4", "4,700", "455", "400", "$0.0105", "+", "1", "unknown",
    ]  # fmt: skip

    since = datetime.fromtimestamp(old + 1).isoformat(timespec="seconds")
    assert _cells(_aish("--since", since).stdout, "total")[1] == "4"


def test_by_category_and_by_day(xdg_home: Path) -> None:
    old = _fill()
    categories = _aish("--by", "category")
    assert categories.returncode == 0, categories.stderr
    assert _cells(categories.stdout, "chat")[1:3] == ["3", "14,000"]
    assert _cells(categories.stdout, "safety")[1] == "1"
    assert _cells(categories.stdout, "norris")[-2:] == ["$0", "(local)"]

    days = _aish("--by", "day")
    assert days.returncode == 0, days.stderr
    old_day = datetime.fromtimestamp(old).date().isoformat()
    assert _cells(days.stdout, old_day)[1:] == ["1", "10,000", "1,000", "0", "$1.50"]
    assert _cells(days.stdout, "total")[1] == "5"


def test_an_empty_store_says_so(xdg_home: Path) -> None:
    result = _aish("--since", "24h")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[1:] == ["no model calls recorded"]


def test_bad_arguments_are_usage_errors(xdg_home: Path) -> None:
    bad = _aish("--since", "last week")
    assert bad.returncode == 2
    assert bad.stdout == ""
    assert bad.stderr.count("\n") == 1 and bad.stderr.startswith("aish cost: bad --since value")
    assert _aish("--by", "colour").returncode == 2
