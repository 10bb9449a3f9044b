"""The store under real processes: kill -9 mid-write and two writers at once.

Each child is a `Writer` (tests/support) running the script below, so nothing is shared with the
test process but the database file.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from aish.store import Store
from tests.support import Writer, integrity, start_together

# argv: path, session id (0: start a new session), turn count (0: forever), tag, pause (s).
# Prints "ok <turn id>" after each committed append, then "done <json list of ids>".
CHILD = """
import sys
import time
from pathlib import Path
from aish.store import Store
path, session_id, count, tag = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
pause = float(sys.argv[5])
store = Store.open(path)
if session_id == 0:
    session_id = store.start_session(name=tag, cwd="/" + tag, model="m").id
ids = []
i = 0
while count == 0 or i < count:
    payload = {"tag": tag, "i": i, "text": "données ✓ " + "x" * (i % 50)}
    ids.append(store.append_turn(session_id, "user" if i % 2 else "command", payload))
    print("ok", ids[-1], flush=True)
    i += 1
    if pause:
        time.sleep(pause)
store.close()
print("done", ids, flush=True)
"""


def _child(path: Path, session_id: int, count: int, tag: str, pause: float = 0.0) -> Writer:
    """A writer process, started and waiting for `start_together`. A `pause` between appends (as
    a real session has) lets the two writers' transactions interleave instead of running in
    bursts."""
    return Writer(CHILD, path, session_id, count, tag, pause)


@pytest.mark.parametrize("acknowledged", [1, 37, 400])
def test_kill_9_loses_no_acknowledged_turn(tmp_path: Path, acknowledged: int) -> None:
    path = tmp_path / "aish.sqlite3"
    with Store.open(path) as store:
        session = store.start_session()
    child = _child(path, session.id, 0, "killed")
    start_together(child)
    acked = child.acknowledged(acknowledged)
    # The child is still writing as fast as it can: this lands in the middle of some write.
    child.kill_9()

    assert integrity(path) == "ok"
    with Store.open(path) as store:
        records = store.turns(session.id)
        by_id = {record.id: record for record in records}
        assert set(acked) <= set(by_id)
        for i, turn_id in enumerate(acked):
            assert by_id[turn_id].payload["i"] == i
        # Whatever else got committed is whole, in order, and the store still takes writes.
        assert [r.payload["i"] for r in records] == list(range(len(records)))
        store.append_turn(session.id, "status", {"text": "after the crash"})
    assert integrity(path) == "ok"


def test_two_processes_append_to_one_session(tmp_path: Path) -> None:
    path = tmp_path / "aish.sqlite3"
    per_child = 300
    with Store.open(path) as store:
        shared = store.start_session(name="shared")
    children = [_child(path, shared.id, per_child, tag, pause=0.0005) for tag in ("a", "b")]
    start_together(*children)
    results = {tag: child.finish() for tag, child in zip(("a", "b"), children, strict=True)}

    all_ids = results["a"] + results["b"]
    assert len(all_ids) == len(set(all_ids)) == 2 * per_child
    with Store.open(path) as store:
        records = store.turns(shared.id)
        assert [r.id for r in records] == sorted(all_ids)
        for tag, ids in results.items():
            mine = [r for r in records if r.payload["tag"] == tag]
            assert [r.id for r in mine] == ids
            assert [r.payload["i"] for r in mine] == list(range(per_child))
        assert store.last_session() == shared
        # The writers really ran at the same time: their turns interleave.
        tags = [r.payload["tag"] for r in records]
        assert sum(a != b for a, b in itertools.pairwise(tags)) > 2, "writers did not overlap"
    assert integrity(path) == "ok"


def test_two_processes_create_the_store_at_once(tmp_path: Path) -> None:
    path = tmp_path / "new" / "aish.sqlite3"
    per_child = 200
    children = [_child(path, 0, per_child, tag, pause=0.0005) for tag in ("first", "second")]
    start_together(*children)
    results = {
        tag: child.finish() for tag, child in zip(("first", "second"), children, strict=True)
    }

    with Store.open(path) as store:
        for tag, ids in results.items():
            session = store.find_session(tag)
            assert session is not None and session.cwd == "/" + tag
            assert [r.id for r in store.turns(session.id)] == ids
        summaries = store.list_sessions()
        assert sorted(s.turns for s in summaries) == [per_child, per_child]
        assert {s.first_text for s in summaries} == {"données ✓ x"}
    assert len(set(results["first"]) | set(results["second"])) == 2 * per_child
    assert integrity(path) == "ok"
