"""A program in a tmux pane, read as a person sees the screen (for layout: blank lines, where
the prompt is drawn). pexpect reads the byte stream; this reads what the terminal made of it."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import pytest

AFTER_EXIT = "<program-exited>"


class TmuxPane:
    """One detached tmux server (its own socket) with one pane running `argv`."""

    def __init__(self, socket_dir: Path, name: str) -> None:
        self._socket = str(socket_dir / f"tmux-{name}")
        self.name = name

    def start(
        self, argv: Sequence[str], *, cwd: Path, env: Mapping[str, str], cols: int, rows: int
    ) -> None:
        # After the program ends the pane stays, and says so, so that the screen it left (and
        # where the next prompt would go) can be read.
        exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
        command = f"env -i {exports} {shlex.join(argv)}; printf '%s\\n' '{AFTER_EXIT}'; sleep 600"
        self._tmux(
            "new-session", "-d", "-s", self.name, "-x", str(cols), "-y", str(rows),
            "-c", str(cwd), command,
        )  # fmt: skip

    def keys(self, *keys: str) -> None:
        """tmux key names (`Enter`, `C-d`) or literal text, as `send-keys` takes them."""
        self._tmux("send-keys", "-t", self.name, *keys)

    def type_line(self, text: str) -> None:
        self._tmux("send-keys", "-t", self.name, "-l", text)
        self.keys("Enter")

    def screen(self) -> list[str]:
        out = self._tmux("capture-pane", "-p", "-t", self.name)
        return out.rstrip("\n").split("\n")

    def wait_for(
        self, seen: Callable[[list[str]], bool], what: str, timeout: float = 30
    ) -> list[str]:
        """Poll the screen until `seen` says yes (a generous timeout: the machine may be busy)."""
        deadline = time.monotonic() + timeout
        while True:
            lines = self.screen()
            if seen(lines):
                return lines
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}; screen:\n" + "\n".join(lines))
            time.sleep(0.1)

    def kill(self) -> None:
        subprocess.run(
            ["tmux", "-S", self._socket, "kill-server"], capture_output=True, check=False
        )

    def _tmux(self, *args: str) -> str:
        done = subprocess.run(
            ["tmux", "-S", self._socket, *args], capture_output=True, text=True, check=True
        )
        return done.stdout


def require_tmux() -> None:
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
