"""The usage ledger under two real processes writing at once to one store file.

Each child is a `Writer` (tests/support) running the script below, so nothing is shared with the
test process but the database file.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from aish.store import Store
from tests.support import Writer, integrity, start_together

# argv: path, session id, row count, category, cost per call (or "none"). Records its rows (a
# short pause between them, as a real session has), and prints "done".
CHILD = """
import sys
import time
from pathlib import Path
from aish.store import Store, UsageRow
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


def test_two_processes_record_usage_at_once(tmp_path: Path) -> None:
    path = tmp_path / "aish.sqlite3"
    count = 300
    with Store.open(path) as store:
        first = store.start_session(name="first").id
        second = store.start_session(name="second").id
    children = [
        Writer(CHILD, path, first, count, "chat", "0.001"),
        Writer(CHILD, path, second, count, "norris", "none"),
    ]
    start_together(*children)
    for child in children:
        assert child.finish() is None  # a bare "done"

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
    assert integrity(path) == "ok"
