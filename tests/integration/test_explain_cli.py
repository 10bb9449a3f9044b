"""`aish explain` as a user runs it: a real process reading this machine's man pages, or a
system program's `--help` when there is no man page; the command itself never runs."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

AISH = [sys.executable, "-m", "aish", "explain"]


def _explain(*args: str, env: dict[str, str] | None = None) -> str:
    proc = subprocess.run(
        [*AISH, *args], capture_output=True, text=True, timeout=60, env=env or dict(os.environ)
    )
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    return proc.stdout


def _needs_man_page(name: str) -> None:
    man = shutil.which("man")
    found = man and subprocess.run([man, "-w", name], capture_output=True).returncode == 0
    if not found:
        pytest.skip(f"no man page for {name} (make test installs man-db and manpages)")


def _option_lines(out: str) -> dict[str, str]:
    """Each option line's written option → the documentation's header beside it."""
    lines = {}
    for line in out.splitlines():
        if line.startswith("  -"):
            written, _, header = line.strip().partition("  ")
            lines[written] = header.strip()
    return lines


def test_tar_flags_each_named_from_the_man_page(xdg_home: Path, tmp_path: Path) -> None:
    _needs_man_page("tar")
    archive = tmp_path / "a.tgz"
    out = _explain(f"tar -xzf {archive} -C {tmp_path}")
    assert "(man tar)" in out
    assert "verdict: unknown (nothing was run)" in out
    options = _option_lines(out)
    assert options == {
        "-x": "-x, --extract, --get",
        "-z": "-z, --gzip, --gunzip, --ungzip",
        f"-f {archive}": "-f, --file=ARCHIVE",
        f"-C {tmp_path}": "-C, --directory=DIR",
    }
    assert "Extract files from an archive" in out  # the page's own words
    assert not archive.exists()


def test_without_a_man_page_the_system_programs_help_is_read(xdg_home: Path) -> None:
    # A MANPATH with no pages: what a slim image without manpages has.
    env = {**os.environ, "MANPATH": str(xdg_home / "no-manuals")}
    out = _explain("tar -xzf a.tgz -C /tmp", env=env)
    assert "(tar --help)" in out
    assert "man tar" not in out
    options = _option_lines(out)
    assert set(options) == {"-x", "-z", "-f a.tgz", "-C /tmp"}
    assert options["-C /tmp"] == "-C, --directory=DIR"
    assert "change to directory DIR" in out  # tar --help's words, not the man page's


def test_a_program_outside_the_system_directories_is_never_run(
    xdg_home: Path, tmp_path: Path
) -> None:
    # First on PATH, with a --help that would leave a mark: a cloned repository's bin/, say.
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    ran = tmp_path / "ran"
    for name in ("mytool", "tar"):
        script = bin_dir / name
        script.write_text(f"#!/bin/sh\ntouch {ran}\necho '  -x   from the impostor'\n")
        script.chmod(0o755)
    env = {
        **os.environ,
        "PATH": f"{bin_dir}:{os.environ['PATH']}",
        "MANPATH": str(xdg_home / "no-manuals"),
    }
    out = _explain("mytool -x", env=env)
    assert "mytool  (no man page or help)" in out
    assert "-x  (not in any documentation)" in out
    # `tar` resolves to the system's own, whatever comes first on PATH.
    assert "impostor" not in _explain("tar -x", env=env)
    assert not ran.exists()
    # Nor is a path, even to a program of the same name.
    assert "(no man page or help)" in _explain(f"{bin_dir}/tar -x", env=env)
    assert not ran.exists()


def test_each_program_of_a_pipeline_and_a_wrapped_command(xdg_home: Path) -> None:
    _needs_man_page("grep")
    out = _explain("ls -la | grep -v x && cd -P /tmp")
    assert "ls - list directory contents  (man ls)" in out
    assert "-v  -v, --invert-match" in out
    assert "(help cd)" in out  # bash's own help for its builtin
    assert "verdict: safe (nothing was run)" in out


def test_verdict_follows_the_users_rules(xdg_home: Path) -> None:
    config = xdg_home / "config" / "aish" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('[safety]\ndestructive = ["ls -R*"]\n')
    out = _explain("ls -R /")
    assert "verdict: destructive (nothing was run)" in out
    assert "ls -R*" in out


def test_nothing_to_explain_is_a_usage_error(xdg_home: Path) -> None:
    proc = subprocess.run([*AISH], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert proc.stderr == "aish: nothing to explain: aish explain '<command>'\n"
