"""The blast radius against real files: what `predict` says a command touches is what is on disk
(counted independently with os.walk, listed by find/git themselves), and the command, run in a
real bash, touches exactly that."""

from __future__ import annotations

import fnmatch
import os
import shutil
from pathlib import Path

import pytest

from aish.run.undo import predict, radius_lines, undo_line

from ..file_trees import bash, disk_count, git, listing, make_tree

MB = 1024 * 1024
pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


@pytest.fixture
def work(tmp_path: Path) -> Path:
    root = tmp_path / "work"
    root.mkdir()
    make_tree(root)
    (root / "notes.txt").write_text("twelve bytes")
    src = root / "src"
    src.mkdir()
    for name in ("a.py", "b.py", "c.py"):
        (src / name).write_text(f"name = {name!r}\n")
    return root


def test_rm_r_counts_match_the_disk_and_rm_deletes_exactly_that(work: Path) -> None:
    files, size = disk_count(work / "build")
    radius = predict("rm -r build", str(work))
    assert radius.predictable and radius.complete
    [target] = radius.targets
    assert (target.path, target.effect) == (str(work / "build"), "delete")
    assert (target.now.files, target.now.bytes) == (files, size)
    lines = radius_lines(radius)
    assert lines == [f"deletes {files:,} files, {_human(size)} under build/"]
    assert undo_line(radius, 256 * MB) == "undoable with :undo"

    before = set(listing(work))
    assert bash("rm -r build", work).returncode == 0
    gone = before - set(listing(work))
    # Everything that went is under the predicted target, and all of it went.
    assert gone == {name for name in before if name == "build" or name.startswith("build/")}


def test_find_delete_lists_exactly_what_find_deletes(work: Path) -> None:
    expected = {
        os.path.join(directory, name)
        for directory, _dirs, names in os.walk(work / "build")
        for name in names
        if fnmatch.fnmatch(name, "*.log")
    }
    radius = predict("find build -name '*.log' -delete", str(work))
    assert {t.path for t in radius.targets} == expected
    assert sum(t.now.bytes for t in radius.targets) == sum(os.path.getsize(p) for p in expected)
    assert f"deletes {len(expected):,} files" in radius_lines(radius)[0]

    assert bash("find build -name '*.log' -delete", work).returncode == 0
    assert not any(os.path.lexists(path) for path in expected)
    assert all(t.now.exists for t in radius.targets)


def test_find_exec_rm_counts_too(work: Path) -> None:
    radius = predict("find src -name '*.py' -exec rm -f {} +", str(work))
    assert {t.path for t in radius.targets} == {str(p) for p in (work / "src").glob("*.py")}


@pytest.mark.parametrize("flags", ["-f", "-fd", "-fdx"])
def test_git_clean_removes_exactly_what_it_predicted(work: Path, flags: str) -> None:
    git(work, "init", "-q")
    (work / ".gitignore").write_text("*.o\n")
    git(work, "add", "src", ".gitignore")
    git(work, "commit", "-qm", "first")
    (work / "src" / "untracked.py").write_text("x = 1\n")

    radius = predict(f"git clean {flags}", str(work))
    assert radius.predictable and radius.targets
    build_on_disk = disk_count(work / "build")
    before = listing(work)
    assert bash(f"git clean {flags}", work).returncode == 0
    gone = set(before) - set(listing(work))
    predicted = {os.path.relpath(t.path, work) for t in radius.targets}
    # What went is what was predicted, with everything under a predicted directory.
    assert {name for name in gone if not _under_any(name, predicted - {name})} == predicted
    assert all(_under_any(name, predicted) for name in gone)
    if flags == "-fdx":  # build/ goes whole: its counts are the disk's
        build = next(t for t in radius.targets if t.path == str(work / "build"))
        assert (build.now.files, build.now.bytes) == build_on_disk


def _under_any(name: str, roots: set[str]) -> bool:
    return any(name == root or name.startswith(root + "/") for root in roots)


def test_git_reset_hard_lists_the_files_it_would_put_back(work: Path) -> None:
    git(work, "init", "-q")
    git(work, "add", "src", "notes.txt")
    git(work, "commit", "-qm", "first")
    (work / "src" / "a.py").write_text("changed\n")
    (work / "notes.txt").write_text("changed too")
    radius = predict("git reset --hard", str(work))
    assert {t.path for t in radius.targets} == {str(work / "src/a.py"), str(work / "notes.txt")}
    assert all(t.effect == "revert" for t in radius.targets)
    assert predict("git checkout -- src", str(work)).paths == (str(work / "src/a.py"),)
    assert predict("git restore notes.txt", str(work)).paths == (str(work / "notes.txt"),)


@pytest.mark.parametrize(
    "command",
    ["git -C {repo} restore .", "git -C {repo} checkout -- .", "git -C {repo} clean -fd"],
)
def test_a_hostile_repositorys_programs_do_not_run_while_its_radius_is_computed(
    tmp_path: Path, command: str
) -> None:
    # A work tree from a tarball brings its own .git/config: a filter driver every changed file
    # is read through, an fsmonitor hook, a pager. The radius is shown before the yes, and the
    # repository is named with -C, so the gate never read that config: git must run none of it.
    repo, ran = tmp_path / "unpacked", tmp_path / "ran"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "data.txt").write_text("committed\n")
    git(repo, "add", "data.txt")
    git(repo, "commit", "-qm", "first")
    for key in ("filter.x.clean", "filter.x.process", "core.fsmonitor", "core.pager"):
        git(repo, "config", key, f"touch {ran}/{key}; cat")
    git(repo, "config", "filter.x.required", "true")
    (repo / ".gitattributes").write_text("* filter=x\n")
    (repo / "data.txt").write_text("changed, so git must read it again\n")
    ran.mkdir()

    radius = predict(command.format(repo=repo), str(tmp_path), git=True)
    assert list(ran.iterdir()) == []
    if "clean" in command:
        assert radius.paths == (str(repo / ".gitattributes"),)
    else:  # still listed, without its filter: the content differs either way
        assert radius.paths == (str(repo / "data.txt"),)


def test_redirections_overwrite_append_and_create(work: Path) -> None:
    radius = predict("echo hi > notes.txt; date >> new.log 2>/dev/null", str(work))
    assert {(t.path, t.effect, t.now.exists) for t in radius.targets} == {
        (str(work / "notes.txt"), "overwrite", True),
        (str(work / "new.log"), "append", False),
    }
    assert sorted(radius_lines(radius)) == ["creates new.log", "overwrites notes.txt (12 B)"]


def test_sed_i_on_a_glob_expands_against_the_commands_cwd(work: Path) -> None:
    radius = predict("sed -i 's/name/NAME/' *.py", str(work / "src"))
    assert sorted(radius.paths) == sorted(str(p) for p in (work / "src").glob("*.py"))
    assert radius_lines(radius) == [f"edits in place {n}.py (14 B)" for n in ("a", "b", "c")]
    quoted = predict("sed -i 's/a/b/' '*.py'", str(work / "src"))
    assert quoted.paths == (str(work / "src/*.py"),)  # quoted: no expansion


def test_mv_over_an_existing_file(work: Path) -> None:
    radius = predict("mv notes.txt src/a.py", str(work))
    effects = {(t.path, t.effect) for t in radius.targets}
    assert effects == {(str(work / "src/a.py"), "overwrite"), (str(work / "notes.txt"), "move")}
    assert "overwrites src/a.py (14 B)" in radius_lines(radius)
    into_dir = predict("mv notes.txt src", str(work))
    assert str(work / "src/notes.txt") in into_dir.paths


def test_wrappers_chmod_and_truncate(work: Path) -> None:
    files, size = disk_count(work / "build")
    assert predict("sudo -u root rm -rf build", str(work)).targets[0].now.files == files
    chmod = predict("chmod -R go-w build", str(work))
    assert radius_lines(chmod) == [f"changes modes of {files:,} files, {_human(size)} under build/"]
    truncate = predict("truncate -s 0 notes.txt", str(work))
    assert radius_lines(truncate) == ["overwrites notes.txt (12 B)"]


@pytest.mark.parametrize(
    ("command", "why"),
    [
        ("bash script.sh", "bash runs code aish cannot see"),
        ("rm $(cat list)", "computed at run time"),
        ("rm -rf $TARGET", "computed at run time"),
        ('rm -rf "$HOME"/build', "computed at run time"),
        ("ls | xargs rm", "xargs takes its targets from its input"),
        ("make clean", "aish has no rules for what make touches"),
        ("echo x > $(date +%s).log", "computed at run time"),
        ("f() { rm -r build; }; f", "only known at run time"),
    ],
)
def test_what_cannot_be_predicted_says_so(work: Path, command: str, why: str) -> None:
    radius = predict(command, str(work))
    assert not radius.predictable
    assert any(why in line for line in radius_lines(radius) if line.startswith("cannot predict"))
    assert undo_line(radius, 256 * MB) == "not undoable: targets unknown"


def test_past_the_budget_the_size_is_unknown(tmp_path: Path) -> None:
    big = tmp_path / "big"
    for group in range(20):
        (big / str(group)).mkdir(parents=True)
        for number in range(100):
            (big / str(group) / str(number)).write_bytes(b"x")
    radius = predict("rm -rf big", str(tmp_path), budget_s=0.0)
    assert not radius.complete
    [line] = radius_lines(radius)
    assert line.startswith("deletes at least ") and "(size unknown) under big/" in line
    assert "size unknown" in undo_line(radius, 256 * MB)
    # With time to count, the same tree is counted whole.
    assert predict("rm -rf big", str(tmp_path), budget_s=30).targets[0].now.files == 2000


def test_over_the_snapshot_limit_is_not_undoable(work: Path) -> None:
    radius = predict("rm -r build", str(work))
    line = undo_line(radius, 1024)
    assert line.startswith(f"not undoable: {_human(radius.bytes)}")
    assert "undo.max_snapshot_bytes" in line


def _human(size: int) -> str:
    from aish.run.undo import human_bytes

    return human_bytes(size)
