"""A full disk is reported as a full disk, never as a corrupted store to move aside, and loses
nothing: real SQLite files and real `aish` processes on a tiny tmpfs that fills up (mounted in
a user namespace, see `tests/tiny_disk.py`)."""

from __future__ import annotations

import json
import os
import sqlite3
import sys
import textwrap
from pathlib import Path

from aish.store import Store

from ..tiny_disk import on_tiny_disk

# Runs inside the namespace, where the tmpfs exists: fills it, then does what the test says.
_DRIVER = textwrap.dedent(
    """
    import json, os, subprocess, sys
    from pathlib import Path

    disk = Path(sys.argv[1])
    steps = json.loads(sys.argv[2])
    report = []

    def fill():
        try:
            with open(disk / "filler", "wb") as filler:
                while True:
                    filler.write(b"\\0" * 4096)
                    filler.flush()
        except OSError as error:
            return error.errno

    for step in steps:
        if step == "fill":
            report.append({"filled": fill()})
        elif step == "free":
            os.unlink(disk / "filler")
            report.append({"freed": True})
        else:
            done = subprocess.run(step, capture_output=True, text=True, timeout=60)
            report.append({"argv": step, "status": done.returncode,
                           "stdout": done.stdout, "stderr": done.stderr})
    print(json.dumps(report))
    """
)

STORE_SCRIPT = textwrap.dedent(
    """
    import json, sys
    from pathlib import Path
    from aish.store import Store, StoreError
    path = Path(sys.argv[1])
    try:
        with Store.open(path) as store:
            store.start_session(cwd="/" + "x" * 5000, model=sys.argv[2])
        print(json.dumps({"ok": True}))
    except StoreError as error:
        print(json.dumps({"error": str(error)}))
    """
)


def _in_tiny_disk(disk: Path, steps: list[object]) -> list[dict[str, object]]:
    done = on_tiny_disk(disk, [sys.executable, "-c", _DRIVER, str(disk), json.dumps(steps)])
    assert done.returncode == 0, done.stderr
    report: list[dict[str, object]] = json.loads(done.stdout)
    return report


def _store_step(disk: Path, model: str) -> list[str]:
    return [sys.executable, "-c", STORE_SCRIPT, str(disk / "aish.sqlite3"), model]


def _said(step: dict[str, object]) -> dict[str, str]:
    said: dict[str, str] = json.loads(str(step["stdout"]))
    return said


def test_the_store_on_a_full_disk_says_disk_full_and_keeps_its_sessions(tmp_path: Path) -> None:
    disk = tmp_path / "disk"
    copy = tmp_path / "after.sqlite3"
    report = _in_tiny_disk(
        disk,
        [
            _store_step(disk, "before"),  # a store with one session, while there is room
            "fill",
            _store_step(disk, "opened-full"),  # opening needs room for its WAL index
            "free",
            _store_step(disk, "after"),  # the same store works again
            ["cp", str(disk / "aish.sqlite3"), str(copy)],
        ],
    )
    assert _said(report[0]) == {"ok": True}
    assert report[1] == {"filled": 28}  # ENOSPC
    error = _said(report[2])["error"]
    assert error == (
        f"cannot open the store {disk / 'aish.sqlite3'}: disk full: no space left on the file "
        "system that holds it (nothing in the store is lost; free some space)"
    )
    assert "corrupt" not in error and "aside" not in error
    assert _said(report[4]) == {"ok": True}
    with sqlite3.connect(copy) as copied:
        models = [row[0] for row in copied.execute("SELECT model FROM sessions ORDER BY id")]
    assert models == ["before", "after"]  # nothing lost, nothing half-written


def test_a_write_on_a_full_disk_says_disk_full(tmp_path: Path) -> None:
    disk = tmp_path / "disk"
    script = textwrap.dedent(
        """
        import json, sys
        from pathlib import Path
        from aish.store import Store, StoreError
        disk = Path(sys.argv[1])
        said = []
        with Store.open(disk / "aish.sqlite3") as store:
            store.start_session(cwd="/first", model="first")
            try:
                with open(disk / "filler", "wb") as filler:
                    while True:
                        filler.write(b"\\0" * 4096)
                        filler.flush()
            except OSError:
                pass
            try:
                for n in range(1000):
                    store.start_session(cwd="/" + "x" * 4000, model=f"more-{n}")
            except StoreError as error:
                said.append(str(error))
            (disk / "filler").unlink()
            store.start_session(cwd="/last", model="last")
        print(json.dumps(said))
        """
    )
    done = on_tiny_disk(disk, [sys.executable, "-c", script, str(disk)])
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [
        f"cannot write the store {disk / 'aish.sqlite3'}: disk full: no space left on the file "
        "system that holds it (nothing in the store is lost; free some space)"
    ]


def test_aish_commands_on_a_full_data_dir_say_so_in_one_line(tmp_path: Path) -> None:
    disk = tmp_path / "disk"
    items = tmp_path / "items.jsonl"
    items.write_text(
        '{"id": 1, "ts": "2026-05-13T19:01:01Z", "kind": "fact", '
        '"content": "the build needs make 4"}\n'
    )
    env = {**os.environ, "XDG_DATA_HOME": str(disk), "XDG_STATE_HOME": str(disk / "state")}
    aish = [sys.executable, "-m", "aish"]
    done = on_tiny_disk(
        disk,
        [
            sys.executable,
            "-c",
            _DRIVER,
            str(disk),
            json.dumps(
                [
                    [*aish, "memory", "import", "--yes", str(items)],
                    "fill",
                    [*aish, "cost"],
                    [*aish, "memory", "export"],
                    "free",
                    [*aish, "memory", "export"],
                ]
            ),
        ],
        env=env,
    )
    assert done.returncode == 0, done.stderr
    imported, _, cost, export_full, _, export_after = json.loads(done.stdout)
    assert imported["status"] == 0, imported
    store = disk / "aish" / "aish.sqlite3"
    one_line = (
        f"aish: cannot open the store {store}: disk full: no space left on the file system "
        "that holds it (nothing in the store is lost; free some space)\n"
    )
    for full in (cost, export_full):
        assert (full["status"], full["stderr"], full["stdout"]) == (1, one_line, "")
    assert export_after["status"] == 0
    assert "the build needs make 4" in str(export_after["stdout"])


def test_a_store_that_is_not_a_database_still_says_move_it_aside(tmp_path: Path) -> None:
    path = tmp_path / "aish.sqlite3"
    path.write_bytes(b"this is not SQLite at all, but it is long enough to have a header" * 64)
    try:
        Store.open(path)
    except Exception as error:
        assert "move it aside" in str(error) and "disk full" not in str(error)
    else:
        raise AssertionError("a file that is not a database opened as a store")
