"""What undo costs: milliseconds per megabyte to snapshot a command's targets before it runs,
to record their state after, and to restore them; and the blast-radius prediction's time.

Two trees in a scratch directory (`--dir`, default the system temp dir; the filesystem decides
whether snapshots are reflinks): one 64 MB file, and 2,000 files of 16 KB (31 MB) in 20
directories. Each is snapshotted, fingerprinted and restored several rounds (the median counts)
through `SnapshotStore`, exactly as `:undo` does. Results go into bench/RESULTS.md between this
bench's markers, unless `--no-write`.

    .venv/bin/python bench/snapshot.py [--rounds 5] [--dir /path/on/btrfs] [--no-write]
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from aish.run.undo import SnapshotStore, predict, tree_state
from results import write_section  # bench/ is the script directory, so this resolves

MB = 1024 * 1024


def _big_file(root: Path) -> Path:
    target = root / "big"
    target.mkdir()
    with open(target / "blob.bin", "wb") as file:
        for _ in range(64):
            file.write(os.urandom(MB))
    return target


def _small_files(root: Path) -> Path:
    target = root / "small"
    for group in range(20):
        (target / f"d{group}").mkdir(parents=True)
        for number in range(100):
            (target / f"d{group}" / f"f{number}").write_bytes(os.urandom(16 * 1024))
    return target


def _timed(action: Callable[[], object]) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def _measure(tree: Path, store: SnapshotStore, rounds: int) -> dict[str, float]:
    size = sum(p.stat().st_size for p in tree.rglob("*") if p.is_file())
    takes, finishes, restores = [], [], []
    reflinked = 0
    for _ in range(rounds):
        started = time.perf_counter()
        snapshot = store.take([str(tree)], f"rm -r {tree.name}")
        takes.append(time.perf_counter() - started)
        reflinked = snapshot.reflinked
        shutil.rmtree(tree)  # what the command does
        finishes.append(_timed(lambda s=snapshot: store.finish(s)))
        restores.append(_timed(lambda s=snapshot: store.restore(s.id)))
        store.remove(snapshot.id)
    fingerprint = statistics.median(_timed(lambda: tree_state(str(tree))) for _ in range(rounds))
    megabytes = size / MB
    return {
        "mb": megabytes,
        "take": statistics.median(takes) * 1000 / megabytes,
        "finish": statistics.median(finishes) * 1000,
        "fingerprint": fingerprint * 1000,
        "restore": statistics.median(restores) * 1000 / megabytes,
        "reflinked": float(reflinked),
    }


def _filesystem(path: Path) -> str:
    done = subprocess.run(
        ["stat", "-f", "-c", "%T", str(path)], capture_output=True, text=True, check=False
    )
    return done.stdout.strip() or "unknown"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--dir", default=tempfile.gettempdir())
    parser.add_argument("--no-write", action="store_true")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=options.dir) as scratch:
        root = Path(scratch)
        store = SnapshotStore(root / "store", max_snapshot_bytes=1024 * MB)
        big, small = _big_file(root), _small_files(root)
        predictions = [
            _timed(lambda: predict("rm -r small", str(root), budget_s=5.0)) for _ in range(5)
        ]
        results = {
            "one 64 MB file": _measure(big, store, options.rounds),
            "2,000 files of 16 KB": _measure(small, store, options.rounds),
        }
        filesystem = _filesystem(root)
    title = "## Undo snapshots: cost per MB (bench/snapshot.py)"
    when = dt.date.today().isoformat()
    rows = [
        f"Run {when} on {platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}; scratch filesystem `{filesystem}`; median of "
        f"{options.rounds} rounds.",
        "",
        "| tree | MB | snapshot (ms/MB) | state after `rm -r` (ms) | state of the whole tree (ms) "
        "| restore (ms/MB) | reflinked files |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, figures in results.items():
        rows.append(
            f"| {name} | {figures['mb']:.1f} | {figures['take']:.2f} | {figures['finish']:.1f} "
            f"| {figures['fingerprint']:.1f} | {figures['restore']:.2f} "
            f"| {int(figures['reflinked'])} |"
        )
    rows += [
        "",
        f"Blast radius of `rm -r small` (2,000 files, counted whole): "
        f"{statistics.median(predictions) * 1000:.1f} ms median.",
    ]
    print("\n".join([title, "", *rows]))
    if not options.no_write:
        write_section("snapshot", title, rows)


if __name__ == "__main__":
    main()
