"""`aish safety check` as a user runs it: a real process, JSON lines out, nothing run."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path
from typing import Any

AISH = [sys.executable, "-m", "aish"]
# What the gate does with a proven read-only command in Norris, and why.
READ_ONLY = {"decision": "allow", "rule": "built-in: proven read-only"}


def _check(*args: str, stdin: bytes | str = b"") -> subprocess.CompletedProcess[str]:
    data = stdin.encode() if isinstance(stdin, str) else stdin
    proc = subprocess.run(
        [*AISH, "safety", "check", *args], input=data, capture_output=True, timeout=30
    )
    return subprocess.CompletedProcess(
        proc.args, proc.returncode, proc.stdout.decode(), proc.stderr.decode()
    )


def _records(result: subprocess.CompletedProcess[str]) -> list[dict[str, Any]]:
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    return [json.loads(line) for line in result.stdout.splitlines()]


def _write_config(home: Path, text: str) -> Path:
    path = home / "config" / "aish" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_one_command_one_json_line_and_nothing_runs(xdg_home: Path, tmp_path: Path) -> None:
    victim = tmp_path / "keep-me"
    victim.write_text("still here")
    result = _check(f"rm -f {victim}")
    (record,) = _records(result)
    assert record["command"] == f"rm -f {victim}"
    assert record["level"] == "destructive"
    assert record["reasons"] and all(isinstance(r, str) for r in record["reasons"])
    assert victim.read_text() == "still here"
    assert result.stderr == ""


def test_unquoted_words_are_one_command_options_included(xdg_home: Path) -> None:
    (record,) = _records(_check("rm", "-rf", "/tmp/x"))
    assert record["command"] == "rm -rf /tmp/x" and record["level"] == "destructive"
    (record,) = _records(_check("--", "ls", "-la"))
    assert record == {"command": "ls -la", "level": "safe", "reasons": [], **READ_ONLY}


def test_each_quoted_argument_is_a_command_of_its_own(xdg_home: Path) -> None:
    records = _records(_check("ls -la", "rm x"))
    assert [(r["command"], r["level"]) for r in records] == [
        ("ls -la", "safe"),
        ("rm x", "destructive"),
    ]
    # One quoted command among bare words is still one command, as typed.
    (record,) = _records(_check("rm", "-rf /tmp/x"))
    assert record["command"] == "rm -rf /tmp/x"


def test_stdin_one_command_per_line(xdg_home: Path) -> None:
    stdin = b"ls -la\n\n   \nrm -rf /tmp/x\r\ncat \xff\xfe file\nfrobnicate --all"
    records = _records(_check(stdin=stdin))
    assert [(r["command"], r["level"]) for r in records] == [
        ("ls -la", "safe"),
        ("rm -rf /tmp/x", "destructive"),
        ("cat \ufffd\ufffd file", "unknown"),
        ("frobnicate --all", "unknown"),
    ]
    assert all(set(r) == {"command", "level", "reasons", "decision", "rule"} for r in records)
    assert [r["decision"] for r in records] == ["allow", "ask", "ask", "ask"]
    # The repaired text is never judged in place of the bytes: `ls \xff` is not "safe".
    assert records[2]["reasons"] == ["not valid UTF-8: the bytes given cannot be judged"]
    (record,) = _records(_check(stdin=b"ls \xff\n"))
    assert record["level"] == "unknown"


def test_a_long_stream_stays_one_verdict_per_line(xdg_home: Path) -> None:
    stdin = b"ls\n" + b"echo " + b"x" * 70000 + b"\n" + b"rm -rf /tmp/x\n"
    records = _records(_check(stdin=stdin))
    assert [r["level"] for r in records] == ["safe", "unknown", "destructive"]
    assert "too long to judge" in records[1]["reasons"][0]


def test_dash_reads_stdin(xdg_home: Path) -> None:
    records = _records(_check("-", stdin="ls\nrm -rf /tmp/x\n"))
    assert [r["level"] for r in records] == ["safe", "destructive"]


def test_empty_stdin_prints_nothing(xdg_home: Path) -> None:
    result = _check()
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")


def test_user_rules_come_from_the_config(xdg_home: Path, tmp_path: Path) -> None:
    _write_config(xdg_home, '[safety]\ndestructive = ["make deploy*"]\n')
    (record,) = _records(_check("make deploy prod"))
    assert record["level"] == "destructive"
    assert any("make deploy*" in r for r in record["reasons"])

    other = tmp_path / "other.toml"
    other.write_text('[safety]\ndestructive = ["frobnicate *"]\n')
    (record,) = _records(_check("--config", str(other), "frobnicate --all"))
    assert record["level"] == "destructive"
    result = subprocess.run(
        [*AISH, "--config", str(other), "safety", "check", "frobnicate --all"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert json.loads(result.stdout)["level"] == "destructive"


def test_a_config_error_is_one_line_and_the_check_still_runs(xdg_home: Path) -> None:
    _write_config(xdg_home, "[safety]\ndestructive = 3\n")
    result = _check("ls")
    assert _records(result) == [{"command": "ls", "level": "safe", "reasons": [], **READ_ONLY}]
    assert result.stderr.splitlines() == [result.stderr.strip()]
    assert result.stderr.startswith("aish: config.toml:2: key safety.destructive")


def test_usage_errors_exit_2_without_a_traceback(xdg_home: Path) -> None:
    for args in (["safety"], ["safety", "nonsense"]):
        result = subprocess.run([*AISH, *args], capture_output=True, text=True, timeout=30)
        assert result.returncode == 2, args
        assert "Traceback" not in result.stderr and "usage:" in result.stderr


def test_nothing_to_check_from_a_terminal_is_a_usage_error(xdg_home: Path) -> None:
    main, secondary = pty.openpty()
    try:
        result = subprocess.run(
            [*AISH, "safety", "check"],
            stdin=secondary,
            capture_output=True,
            text=True,
            timeout=30,
        )
    finally:
        os.close(main)
        os.close(secondary)
    assert result.returncode == 2
    assert result.stderr.startswith("aish: nothing to check")
    assert result.stdout == ""


def test_version_imports_neither_the_classifier_nor_tree_sitter() -> None:
    code = (
        "import sys\nfrom aish.cli import main\n"
        "try:\n    main(['--version'])\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in sys.modules if m.startswith(('tree_sitter', 'httpx', "
        "'aish.safety'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.splitlines()[-1] == "[]"
