"""`aish secrets check` as a user runs it: a real process, text on stdin, one JSON document out."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

AISH = [sys.executable, "-m", "aish"]
GH = "ghp_" + "Q7rT4vWz8NpB3yC1dEfGhIjKlMnOpQrStUvW"


def _check(
    *args: str, stdin: bytes | str = b"", env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[bytes]:
    data = stdin.encode() if isinstance(stdin, str) else stdin
    return subprocess.run(
        [*AISH, "secrets", "check", *args],
        input=data,
        capture_output=True,
        timeout=30,
        env={**os.environ, **(env or {})},
    )


def _report(result: subprocess.CompletedProcess[bytes]) -> dict[str, Any]:
    assert result.returncode == 0, result.stderr
    assert result.stderr == b""
    lines = result.stdout.decode().splitlines()
    assert len(lines) == 1, "one JSON document on one line"
    report: dict[str, Any] = json.loads(lines[0])
    return report


def test_findings_without_values(xdg_home: Path) -> None:
    text = f"$ export GITHUB_TOKEN={GH}\n$ curl -u bob:Zq8rT2mN4x https://x\n$ ls\n"
    report = _report(_check(stdin=text))
    assert report == {
        "findings": [
            {"type": "GITHUB_TOKEN", "start": text.index(GH), "end": text.index(GH) + len(GH)},
            {"type": "PASSWORD", "start": text.index("Zq8r"), "end": text.index("Zq8r") + 10},
        ]
    }
    assert GH.encode() not in _check(stdin=text).stdout


def test_show_adds_the_values(xdg_home: Path) -> None:
    report = _report(_check("--show", stdin=f"token {GH}"))
    assert report == {"findings": [{"type": "GITHUB_TOKEN", "start": 6, "end": 46, "value": GH}]}


def test_sensitive_environment_values_count(xdg_home: Path) -> None:
    secret = "Xk9LmQ7rT4vWz8NpB3yC1dE"  # no known format: only the environment says it is one
    text = f"the server said {secret} back"
    assert _report(_check(stdin=text)) == {"findings": []}
    report = _report(_check("--show", stdin=text, env={"DEPLOY_API_TOKEN": secret}))
    (finding,) = report["findings"]
    assert finding == {
        "type": "ENV_DEPLOY_API_TOKEN",
        "start": text.index(secret),
        "end": text.index(secret) + len(secret),
        "value": secret,
    }


def test_offsets_count_characters_and_bad_bytes_do_not_fail(xdg_home: Path) -> None:
    data = "héllo ✓ ".encode() + b"\xff " + GH.encode()
    (finding,) = _report(_check(stdin=data))["findings"]
    assert data.decode("utf-8", "replace")[finding["start"] : finding["end"]] == GH


def test_empty_input_and_help(xdg_home: Path) -> None:
    assert _report(_check(stdin=b"")) == {"findings": []}
    helped = subprocess.run([*AISH, "secrets", "check", "--help"], capture_output=True, timeout=30)
    assert helped.returncode == 0
    words = b" ".join(helped.stdout.split())
    assert b'{"findings": [{"type", "start", "end"}, ...]}' in words
    assert b'--show add each secret\'s text as "value"' in words
