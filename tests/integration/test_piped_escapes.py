"""Model text written to a pipe carries no terminal control sequences (`aish ask … | cat` ends
on a terminal all the same); `--raw` keeps the bytes as sent. Real `aish` processes with their
stdout and stderr on pipes, against aish-testllm over HTTP."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from ..conftest import ServeFn

AISH = [sys.executable, "-m", "aish"]
# Clipboard write (OSC 52), window title (OSC 2, ST-terminated), a CSI that clears the screen,
# an 8-bit CSI and OSC, a DCS, a lone ESC, a carriage return.
HOSTILE = (
    "Sure.\x1b]52;c;cm0gLXJmIH4=\x07 Done\x1b]2;pwned\x1b\\!\x1b[2J\x9b31m\x9d0;t\x9c"
    "\x1bPq#0\x1b\\ ok\x1b\r\nCMD: echo \x1b]52;c;eA==\x07hi\n"
)
CLEAN = "Sure. Done! ok\nCMD: echo hi\n"
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _config(home: Path, url: str) -> None:
    path = home / "config" / "aish" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        f'default_model = "local"\n[models.local]\nendpoint = "{url}/v1"\n'
        'model = "testllm"\ntimeout_s = 5\nmax_retries = 0\n'
    )


def _run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [*AISH, *args],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=60,
        cwd=cwd,
        env={**os.environ, "NO_COLOR": ""},
    )


def _controls(data: bytes) -> list[str]:
    return CONTROL.findall(data.decode("utf-8"))


def test_ask_piped_strips_sequences_from_text_reasoning_and_commands(
    serve: ServeFn, xdg_home: Path
) -> None:
    server = serve(
        {
            "default": {
                "text": HOSTILE,
                "reasoning": "thinking\x1b]52;c;aGk=\x07 hard",
                "chunk_size": 3,
            }
        }
    )
    _config(xdg_home, server.url)
    result = _run("ask", "hi")
    assert result.returncode == 0, result.stderr
    out = result.stdout.decode()
    assert out.startswith(CLEAN)
    assert _controls(result.stdout) == []
    assert _controls(result.stderr) == [] and "thinking hard" in result.stderr.decode()


def test_ask_raw_keeps_the_bytes_as_sent(serve: ServeFn, xdg_home: Path) -> None:
    server = serve({"default": {"text": HOSTILE, "chunk_size": 3}})
    _config(xdg_home, server.url)
    result = _run("ask", "--raw", "hi")
    assert result.returncode == 0, result.stderr
    assert result.stdout.decode().startswith(HOSTILE)


def test_ask_json_escapes_every_control_and_keeps_the_text(serve: ServeFn, xdg_home: Path) -> None:
    import json

    server = serve({"default": {"text": HOSTILE, "chunk_size": 3}})
    _config(xdg_home, server.url)
    result = _run("ask", "--json", "hi")
    assert result.returncode == 0, result.stderr
    assert _controls(result.stdout.replace(b"\n", b"")) == []
    events = [json.loads(line) for line in result.stdout.decode().splitlines()]
    assert "".join(e["text"] for e in events if e["type"] == "text") == HOSTILE


def test_goal_piped_strips_the_model_text(serve: ServeFn, xdg_home: Path, tmp_path: Path) -> None:
    server = serve(
        {"default": {"text": "GOAL: complete\nAll \x1b]2;x\x07done.\x1b]52;c;cm0=\x07\n"}}
    )
    _config(xdg_home, server.url)
    result = _run("goal", "--yes-safe", "say done", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    out = result.stdout.decode()
    assert "GOAL: complete\nAll done.\n" in out
    assert _controls(result.stdout) == [] and _controls(result.stderr) == []
    raw = _run("goal", "--yes-safe", "--raw", "say done", cwd=tmp_path)
    assert "All \x1b]2;x\x07done." in raw.stdout.decode()


def test_config_warnings_show_a_hostile_key_name_without_obeying_it(xdg_home: Path) -> None:
    path = xdg_home / "config" / "aish" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('[ui]\n"\\u001b]52;c;eA==\\u0007" = 1\n')
    result = _run("safety", "check", "ls")
    assert result.returncode == 0, result.stderr
    err = result.stderr.decode()
    assert "^[]52;c;eA==^G" in err and _controls(result.stderr) == []
