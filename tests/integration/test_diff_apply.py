"""Proposed diffs against real files: `git apply --check` in a real repository, `patch
--dry-run` in a plain directory, and the returned apply command run by a real bash."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from aish.agent.diffs import ProposedDiff, extract_diffs
from aish.run.diff_apply import apply_command, check_diff, diff_dir

GOOD = """\
--- a/src/app.py
+++ b/src/app.py
@@ -1,3 +1,3 @@
 import os
-x = 1
+x = 2
 print(x)
diff --git a/NOTES.md b/NOTES.md
new file mode 100644
--- /dev/null
+++ b/NOTES.md
@@ -0,0 +1 @@
+notes
"""

STALE = """\
--- a/src/app.py
+++ b/src/app.py
@@ -1,3 +1,3 @@
 import sys
-x = 1
+x = 2
 print(x)
"""

needs_patch = pytest.mark.skipif(
    shutil.which("patch") is None, reason="GNU patch is not installed (apt-get install patch)"
)


def _diff(text: str) -> ProposedDiff:
    [diff] = extract_diffs(f"```diff\n{text}```")
    return diff


def _project(root: Path) -> Path:
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("import os\nx = 1\nprint(x)\n")
    return root


def _git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "core.fsmonitor=", *args], cwd=root, check=True, capture_output=True
    )


def _repository(root: Path) -> Path:
    _project(root)
    _git(root, "init", "-q")
    _git(root, "add", ".")
    _git(root, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "start")
    return root


def _run_in_bash(command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "--noprofile", "--norc", "-c", command],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=30,
    )


def _assert_applied(root: Path) -> None:
    assert (root / "src" / "app.py").read_text() == "import os\nx = 2\nprint(x)\n"
    assert (root / "NOTES.md").read_text() == "notes\n"


async def test_git_good_diff_checks_and_applies(tmp_path: Path, xdg_home: Path) -> None:
    root = _repository(tmp_path / "repo")
    diff = _diff(GOOD)
    ok, reason = await check_diff(diff, str(root))
    assert (ok, reason) == (True, "applies cleanly (git apply --check)")
    assert (root / "src" / "app.py").read_text() == "import os\nx = 1\nprint(x)\n"

    command = apply_command(diff, str(root))
    assert command.startswith(f"git -C {root} apply --whitespace=nowarn ")
    patch_file = Path(command.split()[-1])
    assert patch_file.parent == diff_dir()
    assert diff_dir().is_relative_to(xdg_home)
    assert stat.S_IMODE(patch_file.stat().st_mode) == 0o600
    assert patch_file.read_text() == diff.text

    result = _run_in_bash(command, root)
    assert result.returncode == 0, result.stderr
    _assert_applied(root)


async def test_git_diff_that_does_not_apply(tmp_path: Path, xdg_home: Path) -> None:
    root = _repository(tmp_path / "repo")
    ok, reason = await check_diff(_diff(STALE), str(root))
    assert not ok
    assert "\n" not in reason
    assert reason == "patch failed: src/app.py:1; src/app.py: patch does not apply"


async def test_git_already_applied_diff_is_refused(tmp_path: Path, xdg_home: Path) -> None:
    root = _repository(tmp_path / "repo")
    diff = _diff(GOOD)
    assert _run_in_bash(apply_command(diff, str(root)), root).returncode == 0
    ok, reason = await check_diff(diff, str(root))
    assert not ok and "already exists" in reason


async def test_hostile_fsmonitor_never_runs(tmp_path: Path, xdg_home: Path) -> None:
    root = _repository(tmp_path / "repo")
    marker = tmp_path / "fsmonitor-ran"
    script = tmp_path / "fsmonitor.sh"
    script.write_text(f"#!/bin/sh\ntouch {marker}\n")
    script.chmod(0o755)
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    with (root / ".git" / "config").open("a") as config:
        config.write(f"[core]\n\tfsmonitor = {script}\n\thooksPath = {hooks}\n")

    diff = _diff(GOOD)
    assert (await check_diff(diff, str(root)))[0]
    assert (await check_diff(_diff(STALE), str(root)))[0] is False
    assert _run_in_bash(apply_command(diff, str(root)), root).returncode == 0
    _assert_applied(root)
    assert not marker.exists()


@needs_patch
async def test_plain_directory_good_diff_checks_and_applies(tmp_path: Path, xdg_home: Path) -> None:
    root = _project(tmp_path / "plain")
    diff = _diff(GOOD)
    ok, reason = await check_diff(diff, str(root))
    assert (ok, reason) == (True, "applies cleanly (patch --dry-run)")
    assert sorted(p.name for p in root.rglob("*")) == ["app.py", "src"]

    command = apply_command(diff, str(root))
    assert command.startswith(f"patch -d {root} -p1 --forward --batch --fuzz=0 -i ")
    result = _run_in_bash(command, root)
    assert result.returncode == 0, result.stdout + result.stderr
    _assert_applied(root)
    assert not list(root.rglob("*.orig")) and not list(root.rglob("*.rej"))


@needs_patch
async def test_plain_directory_diff_that_does_not_apply(tmp_path: Path, xdg_home: Path) -> None:
    root = _project(tmp_path / "plain")
    ok, reason = await check_diff(_diff(STALE), str(root))
    assert not ok
    assert "\n" not in reason
    assert "FAILED" in reason
    assert (root / "src" / "app.py").read_text() == "import os\nx = 1\nprint(x)\n"
    assert sorted(p.name for p in root.rglob("*")) == ["app.py", "src"]


@needs_patch
async def test_plain_directory_already_applied_is_not_reversed(
    tmp_path: Path, xdg_home: Path
) -> None:
    root = _project(tmp_path / "plain")
    (root / "src" / "app.py").write_text("import os\nx = 2\nprint(x)\n")
    one_file = _diff(GOOD.split("diff --git")[0])
    ok, reason = await check_diff(one_file, str(root))
    assert not ok and "previously applied" in reason
    assert (root / "src" / "app.py").read_text() == "import os\nx = 2\nprint(x)\n"


async def test_missing_directory_is_a_reason_not_a_crash(tmp_path: Path, xdg_home: Path) -> None:
    ok, reason = await check_diff(_diff(GOOD), str(tmp_path / "gone"))
    assert not ok and reason


def test_apply_command_quotes_the_path(
    tmp_path: Path, xdg_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache dir; rm -rf x"))
    command = apply_command(_diff(GOOD), str(tmp_path))
    assert "'" in command
    result = _run_in_bash(f"printf '%s\\n' {command.split(' ', 1)[1]}", tmp_path)
    assert result.stdout.splitlines()[-1].startswith(str(tmp_path / "cache dir; rm -rf x"))


async def test_the_check_never_runs_a_repositorys_filter_programs(
    tmp_path: Path, xdg_home: Path
) -> None:
    root = _repository(tmp_path / "repo")
    marker = tmp_path / "filter-ran"
    (root / ".gitattributes").write_text("*.py filter=evil\n")
    _git(root, "config", "filter.evil.clean", f"touch {marker}; cat")
    _git(root, "config", "filter.evil.required", "true")
    app = root / "src" / "app.py"
    app.write_text(app.read_text())  # a new mtime, same content: git must look at the file
    os.utime(app, (1, 1))
    subprocess.run(["git", "-C", str(root), "status"], capture_output=True, check=False)
    assert marker.exists(), "the fixture must be hostile: plain git runs the filter"
    marker.unlink()
    ok, _ = await check_diff(_diff(GOOD), str(root))
    assert ok
    assert not marker.exists()
