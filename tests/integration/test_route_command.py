"""`aish route` as a user runs it: a real process, stdin in, JSON lines out, nothing run."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

AISH = [sys.executable, "-m", "aish"]


@pytest.fixture(scope="module", autouse=True)
def _require_wired_command() -> None:
    result = subprocess.run([*AISH, "route", "--help"], capture_output=True, text=True)
    if result.returncode != 0 or "route" not in result.stdout:
        pytest.skip("`aish route` is not wired into cli.py yet")


def test_aish_route_reads_stdin_and_runs_nothing(xdg_home: Path, tmp_path: Path) -> None:
    marker = tmp_path / "created"
    stdin = f"touch {marker}\nwhy did that fail?\n:help\n"
    result = subprocess.run(
        [*AISH, "route"], input=stdin, capture_output=True, text=True, timeout=30
    )
    assert result.returncode == 0, result.stderr
    records = [json.loads(line) for line in result.stdout.splitlines()]
    assert [r["route"] for r in records] == ["shell", "model", "meta"]
    assert records[0]["line"] == f"touch {marker}"
    assert not marker.exists()


def test_aish_route_with_arguments(xdg_home: Path) -> None:
    result = subprocess.run(
        [*AISH, "route", "make", "it", "faster"], capture_output=True, text=True, timeout=30
    )
    assert result.returncode == 0, result.stderr
    record = json.loads(result.stdout)
    assert record["line"] == "make it faster" and record["route"] == "model"
    assert "English" in record["reason"]
