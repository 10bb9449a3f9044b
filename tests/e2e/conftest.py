"""Driving the real `aish` in a real PTY, the way a person would."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

import pexpect
import pytest

PROMPT = r"\[aish:[^\]]+\] [^\r\n]*?>"
# prompt_toolkit redraws the line being edited in place; a new prompt follows a newline.
NEW_PROMPT = r"\n[^\n]*?" + PROMPT


class AishTerminal:
    """A person at a terminal: type lines, wait for what appears."""

    def __init__(self, child: pexpect.spawn) -> None:
        self.child = child
        self._started = False

    def wait_prompt(self, timeout: float = 20) -> str:
        self.child.expect(NEW_PROMPT if self._started else PROMPT, timeout=timeout)
        self._started = True
        return str(self.child.before)

    def type_line(self, line: str) -> None:
        self.child.send(line + "\r")

    def expect(self, pattern: str, timeout: float = 20) -> str:
        self.child.expect(pattern, timeout=timeout)
        return str(self.child.before) + str(self.child.after)

    def run(self, line: str, timeout: float = 20) -> str:
        """Type a line and return everything shown until the next prompt."""
        self.type_line(line)
        return self.wait_prompt(timeout)


@pytest.fixture
def aish_home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    (home / "work").mkdir(parents=True)
    (home / ".bashrc").write_text("alias ll='ls -l'\n")
    return home


def spawn_aish(
    home: Path,
    *args: str,
    config: str = "",
    extra_env: dict[str, str] | None = None,
    wrapper: Sequence[str] = (),
) -> AishTerminal:
    """aish in a PTY; `wrapper` is an argv prefix it runs under (a mount namespace …)."""
    config_dir = home / ".config" / "aish"
    config_dir.mkdir(parents=True, exist_ok=True)
    if config:
        (config_dir / "config.toml").write_text(config)
    env = {
        "HOME": str(home),
        "PATH": os.environ["PATH"],
        "SHELL": "/bin/bash",
        "TERM": "xterm-256color",
        "NO_COLOR": "1",
        "LANG": "C.UTF-8",
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_STATE_HOME": str(home / ".state"),
        "XDG_DATA_HOME": str(home / ".data"),
        # pexpect is not a terminal emulator: it never answers cursor-position requests.
        "PROMPT_TOOLKIT_NO_CPR": "1",
        # Long listings would stop in less, waiting for a key; a test that pages sets its own.
        "PAGER": "cat",
        **(extra_env or {}),
    }
    argv = [*wrapper, sys.executable, "-m", "aish", *args]
    child = pexpect.spawn(
        argv[0],
        argv[1:],
        cwd=str(home / "work"),
        env=env,
        encoding="utf-8",
        codec_errors="replace",
        dimensions=(40, 120),
        timeout=20,
    )
    return AishTerminal(child)


@pytest.fixture
def terminals() -> Iterator[list[AishTerminal]]:
    opened: list[AishTerminal] = []
    yield opened
    for terminal in opened:
        if terminal.child.isalive():
            terminal.child.terminate(force=True)
