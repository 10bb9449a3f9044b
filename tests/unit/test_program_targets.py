"""How file programs' words are read: options, `--`, bundles, target directories — against a
real directory, since `mv a b` depends on whether `b` is one."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from aish.run.undo.git import git_touches
from aish.run.undo.programs import Disk, Unpredictable, program_touches


@pytest.fixture
def disk(tmp_path: Path) -> Disk:
    (tmp_path / "dir").mkdir()
    (tmp_path / "file").write_text("x")
    (tmp_path / "link").symlink_to("dir")
    return Disk(str(tmp_path))


@pytest.mark.parametrize(
    ("program", "words", "expected"),
    [
        ("rm", ["--", "-rf"], [("-rf", "delete")]),
        ("rm", ["dir", "file"], [("file", "delete")]),  # no -r: rm refuses the directory
        ("rm", ["-fr", "dir", "link"], [("dir", "delete"), ("link", "delete")]),
        ("rm", ["link"], [("link", "delete")]),  # a link to a directory is a file to rm
        ("cp", ["-t", "dir", "a", "b"], [("dir/a", "overwrite"), ("dir/b", "overwrite")]),
        ("cp", ["--target-directory=dir", "a"], [("dir/a", "overwrite")]),
        ("cp", ["-rT", "a", "dir"], [("dir", "overwrite")]),
        ("mv", ["a", "link"], [("link/a", "overwrite"), ("a", "move")]),
        ("ln", ["-s", "/usr/bin/python3"], [("./python3", "overwrite")]),
        ("install", ["-d", "-m", "755", "x", "y"], [("x", "create"), ("y", "create")]),
        ("install", ["-m", "644", "a", "dir"], [("dir/a", "overwrite")]),
        ("sed", ["-n", "-i", "s/a/b/p", "file"], [("file", "edit")]),
        ("sed", ["-i.bak", "-e", "s/a/b/", "f1", "f2"], [("f1", "edit"), ("f2", "edit")]),
        ("perl", ["-pi", "-e", "s/a/b/", "file"], [("file", "edit")]),
        ("perl", ["-i.bak", "-pe", "s/a/b/", "file"], [("file", "edit")]),
        ("chmod", ["-w", "file"], [("file", "mode")]),
        ("chmod", ["-R", "u+x", "dir"], [("dir", "mode")]),
        ("chown", ["--reference=file", "dir"], [("dir", "owner")]),
        ("truncate", ["-c", "-s", "0", "file", "missing"], [("file", "overwrite")]),
        ("tee", ["-a", "log"], [("log", "append")]),
        ("mkdir", ["-p", "new/deeper/still"], [("new", "create")]),
        ("mkdir", ["dir"], []),  # exists: mkdir fails, nothing is made
        ("dd", ["if=/dev/zero", "of=file", "conv=notrunc"], [("file", "edit")]),
        ("shred", ["-u", "file"], [("file", "delete")]),
    ],
)
def test_targets(
    disk: Disk, program: str, words: list[str], expected: list[tuple[str, str]]
) -> None:
    found = [(touch.path, touch.effect) for touch in program_touches(program, words, disk)]
    assert found == expected


@pytest.mark.parametrize(
    ("program", "words"),
    [
        ("rm", ["-rf", None]),
        ("cp", ["-t", None, "a"]),
        ("sed", ["s/a/b/", "file"]),  # no -i: only a script with `w` would write
        ("perl", ["-e", "unlink 'x'"]),
    ],
)
def test_unpredictable(disk: Disk, program: str, words: list[str | None]) -> None:
    with pytest.raises(Unpredictable):
        program_touches(program, words, disk)


def test_git_never_passes_an_option_as_a_revision(tmp_path: Path) -> None:
    with pytest.raises(Unpredictable, match="looks like an option"):
        git_touches(["restore", "--source=--output=x", "."], str(tmp_path), time.monotonic() + 5)
    assert not (tmp_path / "x").exists()
    with pytest.raises(Unpredictable, match="changes where or how git works"):
        git_touches(["-c", "core.pager=evil", "clean", "-f"], str(tmp_path), time.monotonic() + 5)
