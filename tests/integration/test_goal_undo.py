"""`aish goal --json` lists the snapshots it took: a real run, a real judge over HTTP, a real
bash; the snapshot is in the XDG data dir and puts the file back."""

from __future__ import annotations

from pathlib import Path

from aish.run.undo import SnapshotStore

from ..conftest import ServeFn
from .test_goal_cli import SELF_APPROVAL, _config, _events, _goal, _preset, _steps


def test_goal_json_lists_the_snapshots_it_took(
    serve: ServeFn, xdg_home: Path, tmp_path: Path
) -> None:
    workdir = tmp_path / "work"
    workdir.mkdir()
    notes = workdir / "notes.txt"
    notes.write_text("before\n")
    steps = _steps("CMD: echo after >> notes.txt", "GOAL: complete")["rules"]
    server = serve({"rules": [*SELF_APPROVAL, *steps]})
    judge = serve({"rules": [{"when": {}, "reply": {"text": "NO"}}]})
    _config(xdg_home, server.url, _preset("judge", judge.url) + '[safety]\nllm_model = "judge"\n')

    result = _goal("--json", "--yes-safe", "append a line", cwd=workdir)

    assert result.returncode == 0, result.stderr
    assert notes.read_text() == "before\nafter\n"  # cleared by the judge's NO: it ran
    end = _events(result.stdout)[-1]
    assert end["type"] == "norris_end"
    [listed] = end["snapshots"]
    assert listed["command"] == "echo after >> notes.txt"
    assert listed["paths"] == [str(notes)] and listed["cwd"] == str(workdir)
    assert listed["bytes"] == len("before\n")

    store = SnapshotStore(xdg_home / "data" / "aish" / "snapshots")
    store.restore(listed["id"])
    assert notes.read_text() == "before\n"


def test_a_goal_that_took_no_snapshot_lists_none(
    serve: ServeFn, xdg_home: Path, tmp_path: Path
) -> None:
    workdir = tmp_path / "work"
    workdir.mkdir()
    server = serve(_steps("CMD: ls", "GOAL: complete"))
    _config(xdg_home, server.url)
    result = _goal("--json", "--yes-safe", "look around", cwd=workdir)
    assert result.returncode == 0, result.stderr
    assert _events(result.stdout)[-1]["snapshots"] == []
