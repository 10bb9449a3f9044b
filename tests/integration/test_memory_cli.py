"""`aish memory export|import` as a real process against the real store in an XDG home."""

from __future__ import annotations

import json
import os
import subprocess
import sys
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
    imported = _aish("import", str(tmp_path / "memory.jsonl"))
    assert imported.returncode == 0, imported.stderr
    assert imported.stdout == "imported 3 items, 1 forgotten\n"
    with Store.open(default_store_path()) as store:
        assert store.active_memory() == active
    assert _aish("export").stdout == exported.stdout


def test_the_phase4_example_and_renumbering(xdg_home: Path, tmp_path: Path) -> None:
    seed = _write(tmp_path / "seed.jsonl", [json.dumps(line) for line in SEED])
    first = _aish("import", str(seed))
    assert (first.returncode, first.stdout) == (0, "imported 3 items, 1 forgotten\n")
    again = _aish("import", "-", stdin=seed.read_text())
    assert again.returncode == 0, again.stderr
    assert "new ids" in again.stdout
    with Store.open(default_store_path()) as store:
        active = store.active_memory()
    assert [(i.id, i.content) for i in active] == [
        (1, "User prefers terse."),
        (4, "User prefers terse."),
        (3, "Project: aish."),
        (6, "Project: aish."),
    ]
    tombstones = [json.loads(x) for x in _aish("export").stdout.splitlines() if "forget" in x]
    assert [t["target"] for t in tombstones] == [2, 5]


def test_a_corrupt_line_is_reported_and_the_rest_imported(xdg_home: Path, tmp_path: Path) -> None:
    lines = [json.dumps(line) for line in SEED[:3]]
    lines.insert(1, '{"id": 9, "ts": "2026-05-13T19:01:01Z", "kind": "fact", "content": "cut')
    result = _aish("import", str(_write(tmp_path / "bad.jsonl", lines)))
    assert result.returncode == 1
    assert result.stderr.splitlines() == [
        "aish: line 2: not JSON (Unterminated string starting at: column 68)",
        "aish: skipped 1 line",
    ]
    assert result.stdout == "imported 3 items, 0 forgotten\n"


def test_usage_and_missing_files(xdg_home: Path, tmp_path: Path) -> None:
    assert _aish().returncode == 2
    assert _aish("import").returncode == 2
    missing = _aish("import", str(tmp_path / "nope.jsonl"))
    assert missing.returncode == 1
    assert missing.stderr.startswith("aish: cannot read ")


def test_two_imports_at_once_keep_every_item(xdg_home: Path, tmp_path: Path) -> None:
    items = [
        {"id": i, "ts": 1_700_000_000 + i, "kind": "fact", "content": f"item {i}"}
        for i in range(1, 501)
    ]
    tombstones = [{"kind": "forget", "target": i, "ts": 1_800_000_000} for i in range(1, 501, 5)]
    seed = _write(tmp_path / "seed.jsonl", [json.dumps(x) for x in items + tombstones])
    children = [
        subprocess.Popen(
            [*AISH, "memory", "import", str(seed)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=os.environ.copy(),
        )
        for _ in range(2)
    ]
    outs = sorted(child.communicate(timeout=120)[0] for child in children)
    assert [child.returncode for child in children] == [0, 0]
    # Whichever came second found items already there and renumbered its own.
    assert outs == [
        "imported 500 items, 100 forgotten\n",
        "imported 500 items, 100 forgotten (new ids: the store already had items)\n",
    ]
    with Store.open(default_store_path()) as store:
        active = store.active_memory()
    assert len(active) == len({item.id for item in active}) == 800
    contents = sorted(item.content for item in active)
    kept = sorted(f"item {i}" for i in range(1, 501) if i % 5 != 1)
    assert contents == sorted(kept * 2)
