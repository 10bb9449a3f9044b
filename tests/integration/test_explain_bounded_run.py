"""Documentation programs as untrusted processes: output capped, a deadline, everything they
started ended with them, and escape sequences gone from what they said."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from aish.explain.docs.bounded_run import clean_text, run_bounded
from aish.explain.docs.help_text import system_program


def _python(code: str, tmp_path: Path, *, timeout: float = 30, limit: int = 1_000_000) -> bytes:
    out = run_bounded(
        [sys.executable, "-c", code], env=dict(os.environ), cwd=str(tmp_path), timeout=timeout,
        limit=limit,
    )  # fmt: skip
    assert out is not None
    return out


def test_endless_output_is_cut_at_the_limit(tmp_path: Path) -> None:
    out = _python("import sys\nwhile True: sys.stdout.write('y\\n' * 1000)", tmp_path, limit=5000)
    assert len(out) == 5000
    assert set(out) == set(b"y\n")


def test_a_program_that_never_ends_is_stopped_with_what_it_started(tmp_path: Path) -> None:
    pid_file = tmp_path / "child.pid"
    code = (
        "import subprocess, sys, time\n"
        f"child = subprocess.Popen(['sleep', '300'])\n"
        f"open({str(pid_file)!r}, 'w').write(str(child.pid))\n"
        "print('started', flush=True)\n"
        "time.sleep(300)\n"
    )
    out = _python(code, tmp_path, timeout=2)
    assert out == b"started\n"
    child = int(pid_file.read_text())
    # Killed with its group; reaped by whoever adopted it. Waiting, not timing: generous.
    deadline = time.monotonic() + 30
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(child)


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, IndexError):
        return False
    return state != "Z"


def test_no_input_and_no_terminal(tmp_path: Path) -> None:
    code = (
        "import os, sys\n"
        "print(repr(sys.stdin.read()))\n"
        "try:\n"
        "    os.open('/dev/tty', os.O_WRONLY)\n"
        "    print('tty')\n"
        "except OSError:\n"
        "    print('no tty')\n"
    )
    assert _python(code, tmp_path).splitlines() == [b"''", b"no tty"]


def test_escapes_and_overstrikes_are_taken_out() -> None:
    raw = (
        b"\x1b]0;pwned title\x07\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\ "
        b"\x1b[31mred\x1b[0m b\x08bo\x08ol\x08ld\x08d _\x08u\xc2\x9b2J\x07\x00 \xff\tend\r\n"
    )
    assert clean_text(raw) == "link red bold u \ufffd\tend\n"


def test_only_programs_root_installed_in_system_directories_count(tmp_path: Path) -> None:
    tar = system_program("tar")
    assert tar is not None and Path(tar).is_absolute()
    assert system_program("no-such-program-here") is None
    assert system_program("reboot") is None  # never asked, whatever it would answer
