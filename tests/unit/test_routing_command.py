"""`aish route` through `run_route_command`: JSON lines, from arguments or stdin."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from aish.agent.routing import run_route_command


def _run(args: list[str], stdin: str = "") -> tuple[int, list[dict[str, Any]]]:
    out = io.StringIO()
    code = run_route_command(args, io.StringIO(stdin), out)
    return code, [json.loads(line) for line in out.getvalue().splitlines()]


def test_arguments_are_joined_into_one_line() -> None:
    code, records = _run(["cd", "/tmp"])
    assert code == 0
    assert records == [{"line": "cd /tmp", "route": "shell", "reason": records[0]["reason"]}]
    assert "builtin" in records[0]["reason"]


def test_each_stdin_line_gets_one_json_line() -> None:
    stdin = "cd ..\nwhy did that fail?\n:help\n?ls\n\nexport A=1\r\n"
    code, records = _run([], stdin)
    assert code == 0
    assert [(r["line"], r["route"]) for r in records] == [
        ("cd ..", "shell"),
        ("why did that fail?", "model"),
        (":help", "meta"),
        ("?ls", "model"),
        ("", "shell"),
        ("export A=1", "shell"),
    ]
    assert all(set(r) == {"line", "route", "reason"} and r["reason"] for r in records)


def test_backslash_n_is_not_an_escape_here() -> None:
    _, records = _run([], "echo a\\nb\n")
    assert records[0]["line"] == "echo a\\nb"


def test_empty_stdin_prints_nothing() -> None:
    assert _run([], "") == (0, [])


def test_non_ascii_is_kept_readable() -> None:
    out = io.StringIO()
    run_route_command(["¿cómo", "estás?"], io.StringIO(), out)
    assert "¿cómo estás?" in out.getvalue()
    assert json.loads(out.getvalue())["route"] == "model"


def test_nothing_is_run(tmp_path: Path) -> None:
    marker = tmp_path / "created"
    _, records = _run(["touch", str(marker)])
    assert records[0]["route"] == "shell"
    assert not marker.exists()
