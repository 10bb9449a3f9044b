"""Only the frontends print: `ui/` and the `aish` command (`cli/`). Every other room returns
what it has to say, so a REPL, a one-shot command and a test can each show it their way."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "aish"
FRONTENDS = (SRC / "ui", SRC / "cli")


def test_print_is_called_only_in_ui_and_cli() -> None:
    found = []
    for path in sorted(SRC.rglob("*.py")):
        if any(path.is_relative_to(frontend) for frontend in FRONTENDS):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "print"
            ):
                found.append(f"{path.relative_to(SRC)}:{node.lineno}")
    assert found == []
