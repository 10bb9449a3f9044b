"""`aish memory export|import` as a real process against the real store in an XDG home."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from aish.store import Store, default_store_path

AISH = [sys.executable, "-m", "aish"]

SEED = [
    {"id": 1, "ts": "2026-05-13T19:01:01Z", "kind": "fact", "content": "User prefers terse."},
    {"id": 2, "ts": "2026-05-13T19:01:35Z", "kind": "pref", "content": "Use :model deep."},
    {"id": 3, "ts": "2026-05-13T19:02:00Z", "kind": "context", "content": "Project: aish."},
    {"id": 4, "ts": "2026-05-13T20:00:00Z", "kind": "forget", "target": 2},
]


def _aish(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*AISH, "memory", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        env=os.environ.copy(),
    )


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def test_export_import_round_trip_between_homes(
    xdg_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Store.open(default_store_path()) as store:
        store.add_memory("fact", "données ✓", tags=["x"], source="session 1")
        gone = store.add_memory("pref", "terse")
        store.add_memory("context", "aish")
        store.forget_memory(gone.id)
        active = store.active_memory()

    exported = _aish("export")
    assert exported.returncode == 0, exported.stderr
    assert exported.stderr == ""
    lines = exported.stdout.splitlines()
    assert len(lines) == 4 and json.loads(lines[-1])["kind"] == "forget"
    to_file = _aish("export", str(tmp_path / "memory.jsonl"))
    assert to_file.returncode == 0 and to_file.stdout == ""
    assert (tmp_path / "memory.jsonl").read_text(encoding="utf-8") == exported.stdout

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "other-data"))  # an empty store
    imported = _aish("import", "--yes", str(tmp_path / "memory.jsonl"))
    assert imported.returncode == 0, imported.stderr
    assert imported.stdout.splitlines()[-2:] == [
        "3 new, 0 already known, 0 refused",
        "imported 3 items, 1 forgotten",
    ]
    with Store.open(default_store_path()) as store:
        assert store.active_memory() == active
    assert _aish("export").stdout == exported.stdout


def test_the_phase4_example_and_renumbering(xdg_home: Path, tmp_path: Path) -> None:
    seed = _write(tmp_path / "seed.jsonl", [json.dumps(line) for line in SEED])
    first = _aish("import", "--yes", str(seed))
    assert first.returncode == 0, first.stderr
    assert first.stdout.splitlines()[-1] == "imported 3 items, 1 forgotten"
    # The same file again: nothing new.
    again = _aish("import", "--yes", "-", stdin=seed.read_text())
    assert again.returncode == 0, again.stderr
    assert again.stdout.splitlines()[-2:] == [
        "0 new, 3 already known, 0 refused",
        "nothing to import",
    ]
    # Another file, partly the same: its new items get new ids, its tombstone follows them.
    other = [
        {"id": 1, "ts": "2026-06-01T00:00:00Z", "kind": "fact", "content": "User prefers terse."},
        {"id": 2, "ts": "2026-06-01T00:00:01Z", "kind": "fact", "content": "Uses fish."},
        {"id": 3, "ts": "2026-06-01T00:00:02Z", "kind": "fact", "content": "Uses zsh."},
        {"id": 4, "ts": "2026-06-01T00:00:03Z", "kind": "forget", "target": 3},
    ]
    third = _aish("import", "--yes", "-", stdin="".join(json.dumps(x) + "\n" for x in other))
    assert third.returncode == 0, third.stderr
    assert third.stdout.splitlines()[-2:] == [
        "2 new, 1 already known, 0 refused",
        "imported 2 items, 1 forgotten (new ids: the store already had items)",
    ]
    with Store.open(default_store_path()) as store:
        active = store.active_memory()
    assert [(i.id, i.content) for i in active] == [
        (1, "User prefers terse."),
        (3, "Project: aish."),
        (4, "Uses fish."),
    ]
    tombstones = [json.loads(x) for x in _aish("export").stdout.splitlines() if "forget" in x]
    assert [t["target"] for t in tombstones] == [2, 5]


def test_a_corrupt_line_is_reported_and_the_rest_imported(xdg_home: Path, tmp_path: Path) -> None:
    lines = [json.dumps(line) for line in SEED[:3]]
    lines.insert(1, '{"id": 9, "ts": "2026-05-13T19:01:01Z", "kind": "fact", "content": "cut')
    result = _aish("import", "--yes", str(_write(tmp_path / "bad.jsonl", lines)))
    assert result.returncode == 1
    assert result.stderr.splitlines() == ["aish: skipped 1 line"]
    assert result.stdout.splitlines()[-3:] == [
        "  ! line 2: not JSON (Unterminated string starting at: column 68)",
        "3 new, 0 already known, 1 refused",
        "imported 3 items, 0 forgotten",
    ]


def test_usage_and_missing_files(xdg_home: Path, tmp_path: Path) -> None:
    assert _aish().returncode == 2
    assert _aish("import").returncode == 2
    missing = _aish("import", "--yes", str(tmp_path / "nope.jsonl"))
    assert missing.returncode == 1
    assert missing.stderr.startswith("aish: cannot read ")


def test_two_imports_at_once_keep_every_item(xdg_home: Path, tmp_path: Path) -> None:
    seeds = []
    for name in ("a", "b"):
        items = [
            {"id": i, "ts": 1_700_000_000 + i, "kind": "fact", "content": f"{name} item {i}"}
            for i in range(1, 501)
        ]
        tombstones = [
            {"kind": "forget", "target": i, "ts": 1_700_001_000} for i in range(1, 501, 5)
        ]
        lines = [json.dumps(x) for x in items + tombstones]
        seeds.append(_write(tmp_path / f"{name}.jsonl", lines))
    children = [
        subprocess.Popen(
            [*AISH, "memory", "import", "--yes", str(seed)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=os.environ.copy(),
        )
        for seed in seeds
    ]
    outs = sorted(child.communicate(timeout=120)[0].splitlines()[-1] for child in children)
    assert [child.returncode for child in children] == [0, 0]
    # Whichever came second found items already there and renumbered its own.
    assert outs == [
        "imported 500 items, 100 forgotten",
        "imported 500 items, 100 forgotten (new ids: the store already had items)",
    ]
    with Store.open(default_store_path()) as store:
        active = store.active_memory()
    assert len(active) == len({item.id for item in active}) == 800
    contents = sorted(item.content for item in active)
    kept = [f"{name} item {i}" for name in "ab" for i in range(1, 501) if i % 5 != 1]
    assert contents == sorted(kept)


def test_the_same_file_twice_at_once_is_added_once(xdg_home: Path, tmp_path: Path) -> None:
    items = [
        {"id": i, "ts": 1_700_000_000 + i, "kind": "fact", "content": f"item {i}"}
        for i in range(1, 301)
    ]
    seed = _write(tmp_path / "seed.jsonl", [json.dumps(x) for x in items])
    children = [
        subprocess.Popen(
            [*AISH, "memory", "import", "--yes", str(seed)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=os.environ.copy(),
        )
        for _ in range(2)
    ]
    for child in children:
        child.communicate(timeout=120)
    assert [child.returncode for child in children] == [0, 0]
    with Store.open(default_store_path()) as store:
        assert sorted(i.content for i in store.active_memory()) == sorted(
            x["content"] for x in items
        )


def test_without_a_terminal_it_asks_for_yes_and_adds_nothing(
    xdg_home: Path, tmp_path: Path
) -> None:
    seed = _write(tmp_path / "seed.jsonl", [json.dumps(line) for line in SEED])
    for args in (("import", str(seed)), ("import", "-")):
        refused = _aish(*args, stdin=seed.read_text())
        assert refused.returncode == 2
        assert refused.stdout == ""
        assert refused.stderr.splitlines() == [
            "aish: memory import asks before it adds anything: "
            "pass --yes to import without a terminal"
        ]
    with Store.open(default_store_path()) as store:
        assert store.active_memory() == []


def test_a_time_from_the_future_is_clamped_and_said(xdg_home: Path, tmp_path: Path) -> None:
    lines = [
        {"id": 1, "ts": "2026-01-01T00:00:00Z", "kind": "fact", "content": "older"},
        {"id": 2, "ts": "2099-01-01T00:00:00Z", "kind": "fact", "content": "from the future"},
    ]
    seed = _write(tmp_path / "seed.jsonl", [json.dumps(line) for line in lines])
    before = time.time()
    result = _aish("import", "--yes", str(seed))
    assert result.returncode == 0, result.stderr
    shown = result.stdout.splitlines()
    assert shown[0] == "  + fact     2026-01-01 00:00 UTC  older"
    assert shown[1].startswith("  + fact     now (the file said 2099-01-01 00:00)  from the future")
    assert shown[2] == "2 new, 0 already known, 0 refused; 1 time in the future clamped to now"
    with Store.open(default_store_path()) as store:
        stored = {i.content: i.ts for i in store.active_memory()}
    assert before - 1 <= stored["from the future"] <= time.time() + 1
    # Remembered later, an item is newer than the clamped one: it no longer wins forever.
    with Store.open(default_store_path()) as store:
        store.add_memory("fact", "added afterwards")
        newest = max(store.active_memory(), key=lambda item: (item.ts, item.id))
    assert newest.content == "added afterwards"
