"""A config file that is not TOML: the user is told to fix its syntax, not to add a preset."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from ..conftest import ServeFn


def _ask(cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "aish", "ask", "hello?"],
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_a_syntax_error_is_not_followed_by_the_add_a_preset_hint(
    serve: ServeFn, xdg_home: Path, tmp_path: Path
) -> None:
    server = serve({"default": {"text": "ok"}})
    config = xdg_home / "config" / "aish" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    # A preset that would work, behind a table header missing its `]`.
    config.write_text(f'[models.local\nendpoint = "{server.url}/v1"\nmodel = "testllm"\n')

    result = _ask(tmp_path)
    assert result.returncode == 2
    lines = result.stderr.splitlines()
    assert lines[0] == "aish: config.toml:1: syntax: Expected ']' at the end of a table declaration"
    assert lines[1] == f"aish: no model preset could be read: fix the syntax error in {config}"
    assert "add a [models.<name>] table" not in result.stderr
    assert server.requests == []

    # Valid TOML without a preset still gets the hint.
    config.write_text('default_model = "local"\n')
    assert "add a [models.<name>] table" in _ask(tmp_path).stderr
