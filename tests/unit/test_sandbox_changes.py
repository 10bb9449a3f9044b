"""The change set read from an overlay's upper directory, built here by hand the way the kernel
writes it (whiteouts as 0/0 character devices, opaque directories by xattr), its conflicts with
the live real tree, apply with its backup and restore, picking by number, and what the sandbox
refused read from command output. The namespaces themselves are tested in
tests/integration/test_sandbox_isolation.py."""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

import pytest

from aish.run.sandbox import Sandbox, apply_changes, scan_changes
from aish.run.sandbox.refusals import refusals
from aish.run.undo import SnapshotStore, UndoRecorder
from aish.ui.sandbox_review import parse_picks

from ..sandbox_trees import tree_state


def _whiteout(path: Path) -> None:
    try:
        os.mknod(path, stat.S_IFCHR | 0o600, os.makedev(0, 0))
    except PermissionError:
        pytest.skip("mknod of a whiteout needs CAP_MKNOD")


@pytest.fixture
def layers(tmp_path: Path) -> tuple[Path, Path]:
    tree, upper = tmp_path / "tree", tmp_path / "upper"
    (tree / "dir" / "inner").mkdir(parents=True)
    (tree / "same.txt").write_text("same\n")
    (tree / "edit.txt").write_text("one\ntwo\n")
    (tree / "gone.txt").write_text("gone\n")
    (tree / "tool.sh").write_text("echo\n")
    (tree / "dir" / "kept.txt").write_text("kept\n")
    (tree / "dir" / "inner" / "x.bin").write_bytes(b"\0" * 10)
    (tree / "replaced").mkdir()
    (tree / "replaced" / "old.txt").write_text("old\n")
    upper.mkdir()
    return tree, upper


def test_the_upper_dir_reads_as_created_modified_deleted_and_mode(
    layers: tuple[Path, Path],
) -> None:
    tree, upper = layers
    (upper / "same.txt").write_text("same\n")  # copied up, nothing changed: no change
    (upper / "edit.txt").write_text("one\n2\n")
    _whiteout(upper / "gone.txt")
    (upper / "tool.sh").write_text("echo\n")
    (upper / "tool.sh").chmod(0o755)
    (upper / "new.txt").write_text("new\n")
    (upper / "dir").mkdir()
    _whiteout(upper / "dir" / "inner")
    (upper / "replaced").mkdir()  # deleted and made again: opaque
    os.setxattr(upper / "replaced", "user.overlay.opaque", b"y")
    (upper / "replaced" / "fresh.txt").write_text("fresh\n")
    changes = scan_changes(tree, upper, 0)

    seen = {c.path: (c.change, c.kind, c.bytes) for c in changes.changes}
    assert seen == {
        "dir/inner": ("deleted", "dir", 10),
        "edit.txt": ("modified", "file", 6),
        "gone.txt": ("deleted", "file", 5),
        "new.txt": ("created", "file", 4),
        "replaced/fresh.txt": ("created", "file", 6),
        "replaced/old.txt": ("deleted", "file", 4),
        "tool.sh": ("mode", "file", 5),
    }
    assert changes.summary() == "2 created, 1 modified, 3 deleted, 1 mode changes"
    edit = next(c for c in changes.changes if c.path == "edit.txt")
    assert changes.diff(edit).splitlines()[2:] == ["@@ -1,2 +1,2 @@", " one", "-two", "+2"]
    mode = next(c for c in changes.changes if c.path == "tool.sh")
    assert mode.mode_text() == "0644 → 0755"


def test_apply_is_snapshotted_and_undo_puts_the_tree_back(
    layers: tuple[Path, Path], tmp_path: Path
) -> None:
    tree, upper = layers
    before = tree_state(tree)
    (upper / "edit.txt").write_text("edited\n")
    _whiteout(upper / "gone.txt")
    (upper / "sub").mkdir()
    (upper / "sub" / "new.txt").write_text("new\n")
    (upper / "dir").mkdir()
    _whiteout(upper / "dir" / "inner")
    changes = scan_changes(tree, upper, time.time_ns() + 10**9)
    undo = UndoRecorder(SnapshotStore(tmp_path / "snapshots"))
    result = apply_changes(changes, undo=undo)

    assert sorted(c.path for c in result.applied) == [
        "dir/inner",
        "edit.txt",
        "gone.txt",
        "sub",
        "sub/new.txt",
    ]
    assert (tree / "edit.txt").read_text() == "edited\n"
    assert not (tree / "gone.txt").exists() and not (tree / "dir" / "inner").exists()
    assert (tree / "sub" / "new.txt").read_text() == "new\n"
    assert result.snapshot is not None and undo.taken == [undo.store.get(result.snapshot.id)]
    assert result.undo_note.startswith(":undo puts back")
    # Applied, the same upper dir shows nothing left to do.
    assert not scan_changes(tree, upper, 0)
    undo.store.restore(result.snapshot.id)  # what `:undo` does
    assert tree_state(tree) == before


def test_only_the_chosen_paths_are_applied(layers: tuple[Path, Path], tmp_path: Path) -> None:
    tree, upper = layers
    (upper / "a.txt").write_text("a\n")
    (upper / "b.txt").write_text("b\n")
    changes = scan_changes(tree, upper, time.time_ns() + 10**9)
    result = apply_changes(changes, {"b.txt"}, undo=None)
    assert [c.path for c in result.applied] == ["b.txt"]
    assert not (tree / "a.txt").exists() and (tree / "b.txt").read_text() == "b\n"


def test_a_path_changed_in_the_real_tree_since_the_start_is_refused(
    layers: tuple[Path, Path], tmp_path: Path
) -> None:
    tree, _ = layers
    (tree / "edited-before.txt").write_text("written just before the sandbox\n")
    sandbox = Sandbox.create(tree)
    try:
        upper = sandbox.upper
        (upper / "edit.txt").write_text("sandbox\n")
        (upper / "edited-before.txt").write_text("sandbox\n")
        (upper / "raced.txt").write_text("sandbox\n")
        (upper / "dir").mkdir()
        _whiteout(upper / "dir" / "inner")
        (tree / "edit.txt").write_text("a person\n")  # after the start
        (tree / "raced.txt").write_text("a person\n")  # created meanwhile
        (tree / "dir" / "inner" / "x.bin").write_bytes(b"1")  # inside a deleted directory
        changes = sandbox.changes()
        assert changes.conflicts() == {
            "edit.txt": "changed in the real tree meanwhile",
            # The real tree is live: a file made there meanwhile makes the sandbox's a change
            # of it, refused like any other.
            "raced.txt": "changed in the real tree meanwhile",
            "dir/inner": "dir/inner/x.bin changed meanwhile",
        }
        result = apply_changes(changes, undo=UndoRecorder(SnapshotStore(tmp_path / "snaps")))
        assert [c.path for c in result.applied] == ["edited-before.txt"]
        assert (tree / "edit.txt").read_text() == "a person\n"
        assert (tree / "dir" / "inner" / "x.bin").read_bytes() == b"1"
    finally:
        sandbox.discard()


def test_picks() -> None:
    assert parse_picks("1 3, 5-7", 8) == [0, 2, 4, 5, 6]
    assert parse_picks("2 2", 3) == [1]
    assert parse_picks("9", 3) == "no such change: 9 (1-3)"
    assert parse_picks("x", 3) == "not a number or range: x"


def test_refusals_name_the_path_or_host() -> None:
    output = (
        "touch: cannot touch '/etc/zz': Read-only file system\n"
        "OSError: [Errno 30] Read-only file system: '/home/u/.cache/x'\n"
        "curl: (6) Could not resolve host: example.com\n"
    )
    assert refusals(output) == [
        "sandbox: writes outside the tree are refused: /etc/zz, /home/u/.cache/x",
        "sandbox: no network (sandbox_network = false): example.com",
    ]
    assert refusals("ssh: connect to host git.example port 22: Network is unreachable") == [
        "sandbox: no network (sandbox_network = false): git.example"
    ]
    assert refusals("all fine\n") == []
    assert refusals("Could not resolve host: x.org", network=True) == []
