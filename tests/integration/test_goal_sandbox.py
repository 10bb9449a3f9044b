"""`aish goal --sandbox [--apply]` as a script runs it: a real process, real namespaces and a
real overlay, real bash, aish-testllm over HTTP proposing the commands. The real tree is
hashed before and after: without --apply it must be byte-identical; with it, it must equal
what the same commands did when run directly on a copy."""

from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest

from ..conftest import ServeFn
from ..sandbox_trees import require_sandbox, tree_state

AISH = [sys.executable, "-m", "aish"]

# What the model does, one step each; unknown or destructive, never safe (so they would halt
# in headless mode without the sandbox).
SCRIPT = [
    "echo hello >> notes.txt && mkdir -p out && cp notes.txt out/copy.txt",
    "chmod +x run.sh",
    "rm -r old",
    "printf 'rewritten\\n' > keep.txt",
    "ln -s notes.txt link",
]


def _tree(root: Path) -> None:
    root.mkdir(exist_ok=True)
    (root / "notes.txt").write_text("first line\n")
    (root / "run.sh").write_text("#!/bin/sh\necho run\n")
    (root / "keep.txt").write_text("keep me\n")
    (root / "old").mkdir()
    (root / "old" / "a.txt").write_text("a\n")
    (root / "old" / "sub").mkdir()
    (root / "old" / "sub" / "b.bin").write_bytes(b"\0\1\2")


def _config(home: Path, url: str, extra: str = "") -> None:
    path = home / "config" / "aish" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        f'default_model = "local"\n\n[models.local]\nendpoint = "{url}/v1"\n'
        f'model = "testllm"\ntimeout_s = 5\nmax_retries = 0\n\n{extra}'
    )


def _steps(*commands: str, last: str = "GOAL: complete") -> dict[str, Any]:
    texts = [f"CMD: {command}" for command in commands] + [last]
    return {"rules": [{"when": {}, "replies": [{"text": t} for t in texts]}]}


def _goal(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*AISH, "goal", *args],
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        env=os.environ.copy(),
    )


def _events(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines()]


@pytest.fixture(autouse=True)
def _sandbox_here() -> None:
    require_sandbox()


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    _tree(tmp_path / "work")
    return tmp_path / "work"


RUN_DESTRUCTIVE = '[norris]\nsandbox_destructive = "run"\n'


def test_without_apply_nothing_reaches_the_tree_and_json_ends_with_the_changes(
    serve: ServeFn, xdg_home: Path, workdir: Path
) -> None:
    server = serve(_steps(*SCRIPT))
    _config(xdg_home, server.url, RUN_DESTRUCTIVE)
    before = tree_state(workdir)
    result = _goal("--sandbox", "--json", "tidy up", cwd=workdir)

    assert result.returncode == 0, result.stderr
    assert tree_state(workdir) == before  # byte-identical: discarded
    events = _events(result.stdout)
    assert [e["type"] for e in events[-2:]] == ["norris_end", "sandbox"]
    assert events[-2]["status"] == "done"
    last = events[-1]
    changes = {c["path"]: (c["change"], c["bytes"]) for c in last["changes"]}
    assert changes == {
        "keep.txt": ("modified", len("rewritten\n")),
        "link": ("created", len("notes.txt")),
        "notes.txt": ("modified", len("first line\nhello\n")),
        "old": ("deleted", 5),  # a.txt (2 bytes) and sub/b.bin (3)
        "out": ("created", 0),
        "out/copy.txt": ("created", len("first line\nhello\n")),
        "run.sh": ("mode", len("#!/bin/sh\necho run\n")),
    }
    assert last["applied"] == [] and "--apply" in last["not_applied"]
    statuses = [e["text"] for e in events if e["type"] == "status"]
    assert any(s.startswith("sandboxed: changes to ") for s in statuses)
    # Every step ran in the sandbox without asking: none of them halted.
    assert all(e["type"] != "halt" for e in events)
    assert result.stderr == ""


def test_apply_equals_running_the_same_commands_directly(
    serve: ServeFn, xdg_home: Path, workdir: Path, tmp_path: Path
) -> None:
    direct = tmp_path / "direct"
    shutil.copytree(workdir, direct, symlinks=True)
    before = tree_state(workdir)
    for command in SCRIPT:
        subprocess.run(["bash", "-c", command], cwd=direct, check=True)
    server = serve(_steps(*SCRIPT))
    _config(xdg_home, server.url, RUN_DESTRUCTIVE)
    result = _goal("--sandbox", "--apply", "--json", "tidy up", cwd=workdir)

    assert result.returncode == 0, result.stderr
    assert tree_state(workdir) == tree_state(direct)
    last = _events(result.stdout)[-1]
    assert sorted(last["applied"]) == sorted(c["path"] for c in last["changes"])
    assert last["refused"] == [] and isinstance(last["snapshot"], int)
    # The apply is undone like any command: its snapshot is in the `:undo` store.
    from aish.run.undo import SnapshotStore

    SnapshotStore.default().restore(last["snapshot"])
    assert tree_state(workdir) == before


def test_a_destructive_step_halts_with_exit_3_and_nothing_is_applied(
    serve: ServeFn, xdg_home: Path, workdir: Path
) -> None:
    server = serve(_steps("echo more >> notes.txt", "rm -r old"))
    _config(xdg_home, server.url)
    before = tree_state(workdir)
    result = _goal("--sandbox", "--apply", "--json", "tidy up", cwd=workdir)

    assert result.returncode == 3, result.stderr
    assert tree_state(workdir) == before
    events = _events(result.stdout)
    assert events[-2]["status"] == "halted" and events[-2]["pending_action"] == "rm -r old"
    last = events[-1]
    assert [c["path"] for c in last["changes"]] == ["notes.txt"]
    assert "halted" in last["not_applied"]
    assert "destructive steps halt in the sandbox too" in result.stderr


def test_a_file_changed_in_the_real_tree_meanwhile_is_refused(
    serve: ServeFn, xdg_home: Path, workdir: Path
) -> None:
    # The second step waits on a FIFO outside the tree and outside /tmp (read-only in the
    # sandbox, but a FIFO still opens): the test edits the real file while the run is parked
    # there, then lets it go.
    parking = Path(tempfile.mkdtemp(prefix="aish-test-", dir="/var/tmp"))
    gate = parking / "gate"
    os.mkfifo(gate)
    server = serve(_steps("echo sandbox >> notes.txt && echo new >> fresh.txt", f"cat {gate}"))
    _config(xdg_home, server.url)
    run = subprocess.Popen(
        [*AISH, "goal", "--sandbox", "--apply", "--json", "edit notes"],
        cwd=workdir,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=os.environ.copy(),
    )
    try:
        writer = _open_when_read(gate, run)
        (workdir / "notes.txt").write_text("edited by a person\n")
        os.write(writer, b"go\n")
        os.close(writer)
        stdout, stderr = run.communicate(timeout=120)
    finally:
        if run.poll() is None:
            run.kill()
        shutil.rmtree(parking)
    assert run.returncode == 0, stderr
    last = _events(stdout)[-1]
    assert last["refused"] == [
        {"path": "notes.txt", "reason": "changed in the real tree meanwhile"}
    ]
    assert last["applied"] == ["fresh.txt"]
    assert (workdir / "notes.txt").read_text() == "edited by a person\n"
    assert (workdir / "fresh.txt").read_text() == "new\n"


def _open_when_read(fifo: Path, run: subprocess.Popen[str]) -> int:
    """The FIFO's write end, once a reader has it open (the run may take long to get there)."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            return os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        except OSError as error:
            if error.errno != errno.ENXIO:  # ENXIO: no reader yet
                raise
        if run.poll() is not None:
            pytest.fail(f"the run ended before its step read the FIFO: {run.stderr.read()}")
        time.sleep(0.05)
    pytest.fail("the run never read the FIFO")


def test_text_output_shows_the_change_set_with_a_diff(
    serve: ServeFn, xdg_home: Path, workdir: Path
) -> None:
    server = serve(_steps("echo hello >> notes.txt", "touch /etc/aish-sandbox-probe"))
    _config(xdg_home, server.url)
    result = _goal("--sandbox", "tidy up", cwd=workdir)

    assert result.returncode == 0, result.stderr  # the model said the goal is complete
    assert f"sandbox changes in {workdir}: 1 modified" in result.stdout
    assert "  ~ notes.txt  (17 B)" in result.stdout
    assert "+hello" in result.stdout and " first line" in result.stdout
    # The write outside the tree failed inside, and the run said where.
    assert "writes outside the tree are refused: /etc/aish-sandbox-probe" in result.stdout
    assert not Path("/etc/aish-sandbox-probe").exists()
    assert "not applied: run with --apply" in result.stderr
