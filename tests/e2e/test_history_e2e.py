"""A real aish in a PTY writes the typed lines' history 0600, under the usual umask."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from ..conftest import ServeFn
from .conftest import AishTerminal, spawn_aish


def test_aish_writes_its_history_0600(
    serve: ServeFn, aish_home: Path, terminals: list[AishTerminal]
) -> None:
    server = serve({"default": {"text": "ok"}})
    config = (
        f'default_model = "local"\n[models.local]\nendpoint = "{server.url}/v1"\n'
        'model = "testllm"\n'
    )
    old = os.umask(0o022)  # aish inherits it: what made the file 0644 before
    try:
        aish = spawn_aish(aish_home, config=config)
    finally:
        os.umask(old)
    terminals.append(aish)
    aish.wait_prompt()
    aish.run("echo history-$((40+2))")
    history = aish_home / ".state" / "aish" / "history"
    assert "+echo history-$((40+2))" in history.read_text()
    assert stat.S_IMODE(history.stat().st_mode) == 0o600
