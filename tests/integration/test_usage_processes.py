"""The usage ledger under two real processes writing at once to one store file.

Each child is `python -c` with the script below, so nothing is shared with the test process but
the database file.
"""

from __future__ import annotations

import itertools
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from aish.store import Store

SRC = str(Path(__file__).resolve().parents[2] / "src")

# argv: path, session id, row count, category, cost per call (or "none"). Prints "ready", waits
# for a line on stdin, records its rows (a short pause between them, as a real session has), and
# prints "done".
CHILD = """
import sys
import time
from pathlib import Path
from aish.store import Store, UsageRow
print("ready", flush=True)
sys.stdin.readline()
path, session_id, count = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
category = sys.argv[4]
cost = None if sys.argv[5] == "none" else float(sys.argv[5])
with Store.open(path) as store:
    for i in range(count):
        store.record_usage(session_id, UsageRow(
            category=category, model="m-" + category, prompt_tokens=100 + i % 7,
            completion_tokens=10, cached_tokens=i % 3, cost_usd=cost,
            cost_source="unknown" if cost is None else "provider",
        ))
        time.sleep(0.0005)
print("done", flush=True)
"""


def _child(
    path: Path, session_id: int, count: int, category: str, cost: str
) -> subprocess.Popen[str]:
    inherited = os.environ.get("PYTHONPATH")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, (SRC, inherited)))}
    process = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(path), str(session_id), str(count), category, cost],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert process.stdout is not None
    assert process.stdout.readline() == "ready\n"
    return process


def test_two_processes_record_usage_at_once(tmp_path: Path) -> None:
    path = tmp_path / "aish.sqlite3"
    count = 300
    with Store.open(path) as store:
        first = store.start_session(name="first").id
        second = store.start_session(name="second").id
    children = [
        _child(path, first, count, "chat", "0.001"),
        _child(path, second, count, "norris", "none"),
    ]
    for child in children:
        assert child.stdin is not None
        child.stdin.write("go\n")
        child.stdin.flush()
    for child in children:
        out, err = child.communicate(timeout=120)
        assert child.returncode == 0, err
        assert out.strip().splitlines()[-1] == "done"

    expected_prompt = sum(100 + i % 7 for i in range(count))
    expected_cached = sum(i % 3 for i in range(count))
    with Store.open(path) as store:
        (chat,) = store.usage_totals(session_id=first)
        assert (chat.key, chat.calls, chat.unknown_calls) == (("m-chat", "chat"), count, 0)
        assert chat.prompt_tokens == expected_prompt
        assert chat.cached_tokens == expected_cached
        assert store.session_cost(first) == pytest.approx(count * 0.001)
        (norris,) = store.usage_totals(session_id=second, by=("category",))
        assert (norris.key, norris.calls, norris.unknown_calls) == (("norris",), count, count)
        assert store.session_cost(second) == 0.0
        (everything,) = store.usage_totals(by=())
        assert everything.calls == 2 * count
        assert everything.completion_tokens == 2 * count * 10
        # The writers really ran at the same time: their rows interleave in id order.
        sessions = [
            row[0] for row in store.db._live().execute("SELECT session_id FROM usage ORDER BY id")
        ]
        switches = sum(a != b for a, b in itertools.pairwise(sessions))
        assert switches > 2, "writers did not overlap"
    with sqlite3.connect(path) as connection:
        assert connection.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
