"""Real processes writing to one store file at once, and killed with SIGKILL mid-write.

A `Writer` is `python -c <script>` with this tree's `src` on its path, so nothing is shared with
the test process but the database file. The harness adds the start: the child says "ready" and
waits for a line on stdin before it runs `script`, so that several children start writing at
the same moment (`start_together`) instead of one after the other as they finish importing.
By convention the script prints "ok <id>" after each committed write and "done <json>" last.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

SRC = str(Path(__file__).resolve().parents[2] / "src")

_READY = 'import sys\nprint("ready", flush=True)\nsys.stdin.readline()\n'


class Writer:
    """One child process running `script` with `args` as its argv[1:]."""

    def __init__(self, script: str, *args: object) -> None:
        inherited = os.environ.get("PYTHONPATH")
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, (SRC, inherited)))}
        self.process = subprocess.Popen(
            [sys.executable, "-c", _READY + script, *map(str, args)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        assert self.process.stdout is not None
        assert self.process.stdout.readline() == "ready\n"

    def go(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write("go\n")
        self.process.stdin.flush()

    def acknowledged(self, count: int) -> list[int]:
        """The ids of its next `count` "ok <id>" lines: writes it says are committed."""
        assert self.process.stdout is not None
        acked: list[int] = []
        while len(acked) < count:
            line = self.process.stdout.readline()
            # The message (read only on failure: reading stderr waits for the child's end).
            assert line.startswith("ok "), line + (
                self.process.stderr.read() if self.process.stderr else ""
            )
            acked.append(int(line.split()[1]))
        return acked

    def kill_9(self) -> None:
        """SIGKILL while it is still writing: this lands in the middle of some write."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=30)
        self.process.communicate()
        assert self.process.returncode == -signal.SIGKILL

    def finish(self, timeout_s: float = 120) -> Any:
        """Wait for it to end well; what its "done" line carries (None for a bare "done")."""
        out, err = self.process.communicate(timeout=timeout_s)
        assert self.process.returncode == 0, err
        last = out.strip().splitlines()[-1]
        assert last == "done" or last.startswith("done "), last
        return json.loads(last.removeprefix("done ")) if last != "done" else None


def start_together(*writers: Writer) -> None:
    """Let every writer go: they are all ready, so their writes overlap from the start."""
    for writer in writers:
        writer.go()


def integrity(path: Path) -> str:
    """SQLite's own check of the file ("ok" when sound)."""
    with sqlite3.connect(path) as connection:
        return str(connection.execute("PRAGMA integrity_check").fetchone()[0])
