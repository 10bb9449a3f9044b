"""Snapshots and undo on real files with a real bash: predict what a command touches, snapshot
it, run the command, then restore — the tree is byte-identical to before (contents, modes,
symlinks, deleted directories), and a file changed after the command makes undo ask."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from aish.run.undo import ChangedSince, SnapshotStore, TooLarge, UndoRecorder, predict

from ..file_trees import bash, listing, make_tree


@pytest.fixture
def work(tmp_path: Path) -> Path:
    root = tmp_path / "work"
    root.mkdir()
    make_tree(root)
    (root / "notes.txt").write_text("twelve bytes")
    (root / "src").mkdir()
    for name in ("a.py", "b.py"):
        (root / "src" / name).write_text(f"name = {name!r}\n")
    (root / "src" / "a.py").chmod(0o600)
    (root / "src" / "tool").symlink_to("a.py")
    return root


@pytest.fixture
def store(tmp_path: Path) -> SnapshotStore:
    return SnapshotStore(tmp_path / "data" / "snapshots")


def _run_undoably(command: str, cwd: Path, store: SnapshotStore) -> int:
    """What the executor does around an approved command; the snapshot's number."""
    recorder = UndoRecorder(store)
    snapshot, notice = recorder.before(predict(command, str(cwd)), command)
    assert snapshot is not None, notice
    done = bash(command, cwd)
    assert done.returncode == 0, done.stderr
    recorder.after(snapshot)
    return snapshot.id


@pytest.mark.parametrize(
    "command",
    [
        "rm -rf build",
        "rm -rf build/d0 src/tool notes.txt",
        "mv notes.txt src/a.py",
        "mv build src",
        "echo x > notes.txt",
        "sed -i 's/name/NAME/' src/*.py",
        "sed -i 's/name/NAME/' src/tool",  # replaces the symlink with a file
        "chmod -R 700 build",
        "find build -name '*.log' -delete",
        "echo new > created.txt; mkdir -p made/deeper",
        "cp -r build copy-of-build",
    ],
)
def test_undo_restores_the_tree_byte_for_byte(
    work: Path, store: SnapshotStore, command: str
) -> None:
    before = listing(work)
    number = _run_undoably(command, work, store)
    assert listing(work) != before  # the command did something
    restored = store.restore(number)
    assert restored.restored_at is not None
    assert listing(work) == before


def test_undo_asks_when_files_changed_after_the_command(work: Path, store: SnapshotStore) -> None:
    before = listing(work)
    number = _run_undoably("rm -rf build", work, store)
    assert store.changed_since(number) == []
    (work / "build").mkdir()
    (work / "build" / "new-work.txt").write_text("written after the rm")

    with pytest.raises(ChangedSince) as refused:
        store.restore(number)
    changes = dict(refused.value.changes)
    assert changes[str(work / "build")] == "created"
    assert changes[str(work / "build" / "new-work.txt")] == "created"
    assert (work / "build" / "new-work.txt").exists()  # nothing was touched

    store.restore(number, force=True)
    assert listing(work) == before


def test_an_edit_after_sed_counts_as_a_change(work: Path, store: SnapshotStore) -> None:
    number = _run_undoably("sed -i 's/name/NAME/' src/a.py", work, store)
    (work / "src" / "a.py").write_text("NAME = 'edited by hand'\n")
    with pytest.raises(ChangedSince) as refused:
        store.restore(number)
    assert refused.value.changes == [(str(work / "src" / "a.py"), "changed")]


def test_last_list_and_restored_snapshots(work: Path, store: SnapshotStore) -> None:
    first = _run_undoably("echo one > notes.txt", work, store)
    second = _run_undoably("rm src/b.py", work, store)
    assert [s.id for s in store.list()] == [second, first]
    last = store.last()
    assert last is not None and last.id == second and last.label == "rm src/b.py"
    store.restore(second)
    after = store.last()
    assert after is not None and after.id == first
    assert (work / "src" / "b.py").exists()


def test_over_the_size_limit_nothing_is_kept(work: Path, tmp_path: Path) -> None:
    small = SnapshotStore(tmp_path / "small", max_snapshot_bytes=1024)
    recorder = UndoRecorder(small)
    snapshot, notice = recorder.before(predict("rm -rf build", str(work)), "rm -rf build")
    assert snapshot is None and notice == "not undoable: more than 1.0 KB to snapshot"
    with pytest.raises(TooLarge):
        small.take([str(work / "build")], "rm -rf build")
    assert small.list() == [] and not [n for n in os.listdir(small.root) if n.isdigit()]


def test_retention_by_total_size_and_by_age(work: Path, tmp_path: Path) -> None:
    for name in ("one", "two", "three"):
        (work / name).write_bytes(os.urandom(40_000))
    sized = SnapshotStore(tmp_path / "sized", max_total_bytes=100_000)
    taken = [sized.take([str(work / name)], f"rm {name}").id for name in ("one", "two", "three")]
    # 3 x 40 kB is over 100 kB: the oldest went, the newest is always kept.
    assert [s.id for s in sized.list()] == [taken[2], taken[1]]
    assert not (sized.root / str(taken[0])).exists()

    aged = SnapshotStore(tmp_path / "aged", max_age_s=1e-9)
    old = aged.take([str(work / "one")], "rm one").id
    new = aged.take([str(work / "two")], "rm two").id
    assert [s.id for s in aged.list()] == [new]
    assert not (aged.root / str(old)).exists()


def test_a_command_that_was_not_predicted_is_not_snapshotted(
    work: Path, store: SnapshotStore
) -> None:
    recorder = UndoRecorder(store)
    assert recorder.before(predict("bash cleanup.sh", str(work)), "bash cleanup.sh") == (None, "")
    assert recorder.before(None, "ls") == (None, "")
    assert store.list() == []
