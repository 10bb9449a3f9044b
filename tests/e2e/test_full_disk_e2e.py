"""aish at a real PTY whose state folder (typed-line history, log) fills up: one line says the
disk is full, nothing is lost from the session and no traceback reaches the screen. The state
folder is a tiny tmpfs mounted in a user namespace (`tests/tiny_disk.py`)."""

from __future__ import annotations

import io
from pathlib import Path

from ..conftest import ServeFn
from ..tiny_disk import namespace_prefix
from .conftest import AishTerminal, spawn_aish


def test_a_full_disk_under_the_history_file(
    serve: ServeFn, aish_home: Path, terminals: list[AishTerminal]
) -> None:
    server = serve({"default": {"text": "ok"}})
    config = (
        f'default_model = "local"\n[models.local]\nendpoint = "{server.url}/v1"\n'
        'model = "testllm"\n'
    )
    state = aish_home / ".state"
    aish = spawn_aish(aish_home, config=config, wrapper=namespace_prefix(state, "256k"))
    terminals.append(aish)
    seen = io.StringIO()
    aish.child.logfile_read = seen
    aish.wait_prompt(timeout=30)

    aish.run('head -c 1M /dev/zero > "$XDG_STATE_HOME/filler"; echo "filled-$?"')
    padding = "x" * 1500  # a few of these outgrow the room left in the file's last page
    for n in range(6):
        aish.type_line(f": {padding}; echo line-$((100+{n}))")
        aish.expect(f"line-{100 + n}")
        aish.wait_prompt()
    aish.child.send("\x1b[A")  # Up: the last line is still in this session's history
    aish.type_line("")
    aish.expect("line-105")
    aish.wait_prompt()

    shown = seen.getvalue()
    assert "filled-1" in shown  # the disk really is full
    history = state / "aish" / "history"
    said = f"history file {history}: disk full: typed lines are kept for this session only"
    assert shown.count(said) == 1, shown[-3000:]
    assert "Traceback" not in shown and "Logging error" not in shown
