"""`aish route` as a user runs it: a real process, stdin in, JSON lines out, nothing run."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

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


def test_aish_route_takes_a_line_whose_words_look_like_options(xdg_home: Path) -> None:
    result = subprocess.run(
        [*AISH, "route", "ls", "-la"], capture_output=True, text=True, timeout=30
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["line"] == "ls -la"


def _write_config(home: Path, text: str) -> Path:
    path = home / "config" / "aish" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


_DEEP_FOR_CODE = """\
[models.fast]
endpoint = "http://127.0.0.1:9/v1"
model = "small"

[models.deep]
endpoint = "http://127.0.0.1:9/v1"
model = "big"

[routing]
classes = { code = "deep" }
"""


def _classify(*args: str, stdin: str = "") -> list[dict[str, Any]]:
    result = subprocess.run(
        [*AISH, "route", "--class", *args], input=stdin, capture_output=True, text=True, timeout=30
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    return [json.loads(line) for line in result.stdout.splitlines()]


def test_route_class_reads_stdin_with_presets_from_the_config(xdg_home: Path) -> None:
    _write_config(xdg_home, _DEEP_FOR_CODE)
    stdin = "def f(x):\\n    return x\\n\\n\\nf(1)\nwhy is the sky blue\nlist my files\r\n"
    records = _classify(stdin=stdin)
    assert records == [
        {
            "text": "def f(x):\n    return x\n\n\nf(1)",
            "class": "code",
            "preset": "deep",
            "reason": "indented paste of 5 lines",
        },
        {"text": "why is the sky blue", "class": "reasoning", "preset": None, "reason": "'why'"},
        {"text": "list my files", "class": "default", "preset": None, "reason": "no trigger"},
    ]


def test_route_class_arguments_are_one_text(xdg_home: Path, tmp_path: Path) -> None:
    config = _write_config(tmp_path, _DEEP_FOR_CODE)
    (record,) = _classify("--config", str(config), "Traceback:\\n", "boom")
    assert record == {
        "text": "Traceback:\n boom",
        "class": "code",
        "preset": "deep",
        "reason": "traceback",
    }


def test_route_class_without_config_maps_nothing(xdg_home: Path) -> None:
    (record,) = _classify("see", "./src/x.py")
    assert record == {
        "text": "see ./src/x.py",
        "class": "code",
        "preset": None,
        "reason": "source path ./src/x.py",
    }


def test_route_class_with_a_broken_config_says_so_once_and_still_classifies(
    xdg_home: Path,
) -> None:
    _write_config(xdg_home, "[routing\nclasses = 1\n")
    result = subprocess.run(
        [*AISH, "route", "--class"], input="hi\n", capture_output=True, text=True, timeout=30
    )
    assert result.returncode == 0
    assert "config.toml:1:" in result.stderr and len(result.stderr.splitlines()) == 1
    assert "Traceback" not in result.stderr
    assert json.loads(result.stdout) == {
        "text": "hi",
        "class": "default",
        "preset": None,
        "reason": "no trigger",
    }
