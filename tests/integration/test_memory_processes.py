"""Memory under real processes: two writers at once, and kill -9 in the middle of a write loop.

Each child is a `Writer` (tests/support) running the script below; nothing is shared with the
test but the file.
"""

from __future__ import annotations

import itertools
import sqlite3
from pathlib import Path

from aish.store import Store
from tests.support import Writer, integrity, start_together

# argv: path, item count (0: forever), tag. Prints "ok <id>" after each committed add (every
# third item is forgotten again), then "done <ids>".
CHILD = """
import sys
import time
from pathlib import Path
from aish.store import Store
path, count, tag = Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
store = Store.open(path)
ids = []
i = 0
while count == 0 or i < count:
    item = store.add_memory("fact", f"{tag} {i} données ✓", tags=[tag], source=f"i={i}")
    ids.append(item.id)
    print("ok", item.id, flush=True)
    if i % 3 == 2:
        assert store.forget_memory(item.id) == "forgotten"
    i += 1
    time.sleep(0.0005)
store.close()
print("done", ids, flush=True)
"""


def _child(path: Path, count: int, tag: str) -> Writer:
    return Writer(CHILD, path, count, tag)


def _all_items(path: Path) -> list[tuple[int, str, str]]:
    with sqlite3.connect(path) as connection:
        rows = connection.execute("SELECT id, content, source FROM memory ORDER BY id")
        return [(int(r[0]), str(r[1]), str(r[2])) for r in rows]


def test_two_processes_add_500_items_each(tmp_path: Path) -> None:
    path = tmp_path / "new" / "aish.sqlite3"  # both children create the file at once
    per_child = 500
    children = [_child(path, per_child, tag) for tag in ("a", "b")]
    start_together(*children)
    results = {
        tag: child.finish(timeout_s=180) for tag, child in zip(("a", "b"), children, strict=True)
    }

    all_ids = results["a"] + results["b"]
    assert len(all_ids) == len(set(all_ids)) == 2 * per_child
    rows = _all_items(path)
    assert [r[0] for r in rows] == sorted(all_ids)
    for tag, ids in results.items():
        mine = [r for r in rows if r[1].startswith(tag + " ")]
        assert [r[0] for r in mine] == ids
        assert [r[2] for r in mine] == [f"i={i}" for i in range(per_child)]
    tags = [r[1][0] for r in rows]
    assert sum(a != b for a, b in itertools.pairwise(tags)) > 2, "writers did not overlap"
    with Store.open(path) as store:
        active = store.active_memory()
        forgotten = {ids[i] for ids in results.values() for i in range(2, per_child, 3)}
        assert {item.id for item in active} == set(all_ids) - forgotten
        assert store.forget_memory(next(iter(forgotten))) == "already"
    assert integrity(path) == "ok"


def test_kill_9_in_a_write_loop_leaves_a_sound_store(tmp_path: Path) -> None:
    path = tmp_path / "aish.sqlite3"
    with Store.open(path) as store:
        before = store.add_memory("pref", "written before")
    child = _child(path, 0, "killed")
    start_together(child)
    acked = child.acknowledged(200)
    child.kill_9()  # it is still adding and forgetting as fast as it can

    assert integrity(path) == "ok"
    with Store.open(path) as store:
        rows = _all_items(path)
        assert set(acked) <= {r[0] for r in rows}
        # Whatever got committed is whole and in order.
        assert [r[2] for r in rows[1:]] == [f"i={i}" for i in range(len(rows) - 1)]
        assert before in store.active_memory()
        after = store.add_memory("fact", "after the crash")
        assert after.id > max(acked)
        assert store.forget_memory(acked[0]) == "forgotten"
    assert integrity(path) == "ok"
