"""`:explain` in the real REPL, read off a tmux screen as a person sees it: each option of the
command beside its man page's line, the verdict, nothing run, no model asked."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from ..conftest import ServeFn
from .conftest import PROMPT
from .tmux_pane import TmuxPane, require_tmux

_PROMPT = re.compile(PROMPT)


@pytest.fixture
def panes() -> Iterator[list[TmuxPane]]:
    opened: list[TmuxPane] = []
    yield opened
    for pane in opened:
        pane.kill()


def _aish_pane(tmp_path: Path, home: Path, config: str) -> TmuxPane:
    config_dir = home / ".config" / "aish"
    config_dir.mkdir(parents=True, exist_ok=True)
    (config_dir / "config.toml").write_text(config)
    env = {
        "HOME": str(home),
        "PATH": os.environ["PATH"],
        "SHELL": "/bin/bash",
        "TERM": "screen",
        "NO_COLOR": "1",
        "LANG": "C.UTF-8",
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_STATE_HOME": str(home / ".state"),
        "XDG_DATA_HOME": str(home / ".data"),
        "PAGER": "cat",
    }
    pane = TmuxPane(tmp_path, "explain")
    pane.start([sys.executable, "-m", "aish"], cwd=home / "work", env=env, cols=110, rows=50)
    return pane


def _prompts(lines: list[str]) -> int:
    return sum(1 for line in lines if _PROMPT.search(line))


def test_explain_shows_each_option_from_the_man_page_and_runs_nothing(
    serve: ServeFn, aish_home: Path, tmp_path: Path, panes: list[TmuxPane]
) -> None:
    require_tmux()
    man = shutil.which("man")
    if not man or subprocess.run([man, "-w", "tar"], capture_output=True).returncode:
        pytest.skip("no man page for tar (make test installs man-db and manpages)")
    server = serve({"default": {"text": "nobody should ask me"}})
    config = (
        f'default_model = "local"\n[models.local]\nendpoint = "{server.url}/v1"\n'
        'model = "testllm"\n[safety]\ndestructive = ["tar -x*"]\n'
    )
    pane = _aish_pane(tmp_path, aish_home, config)
    panes.append(pane)
    pane.wait_for(lambda lines: _prompts(lines) == 1, "the first prompt")
    archive = aish_home / "work" / "a.tgz"

    pane.type_line(":explain tar -xzf a.tgz -C /tmp")
    screen = pane.wait_for(lambda lines: _prompts(lines) == 2, "the prompt after :explain")
    shown = [line.rstrip() for line in screen]
    start = next(i for i, line in enumerate(shown) if ":explain tar" in line)
    body = shown[start + 1 :]
    assert body[0] == "tar -xzf a.tgz -C /tmp"
    assert body[1] == "  verdict: destructive (nothing was run)"  # the user's own rule counts
    assert any("tar -x*" in line for line in body[2:4])
    assert "tar - an archiving utility  (man tar)" in body
    options = [line for line in body if line.startswith("  -")]
    assert [line.split("  ")[1].strip() for line in options] == [
        "-x",
        "-z",
        "-f a.tgz",
        "-C /tmp",
    ]
    assert options[0].endswith("-x, --extract, --get")
    assert options[3].endswith("-C, --directory=DIR")
    assert any("Extract files from an archive" in line for line in body)

    pane.type_line(":explain")
    screen = pane.wait_for(lambda lines: _prompts(lines) == 3, "the prompt after :explain alone")
    assert "usage: :explain <command>" in screen
    assert not archive.exists()
    assert server.requests == []
