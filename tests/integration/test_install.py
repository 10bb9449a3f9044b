"""`pip install .` gives a working `aish` outside the repository: the wheel carries the code
and the shell integration scripts, and its entry points run from anywhere.

Installed without dependencies (they come from PyPI in a real install): `--version` and
`--help` import none of them, so they prove the packaging itself.
"""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    work = tmp_path_factory.mktemp("install")
    wheels = work / "wheels"
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert build.returncode == 0, build.stderr
    [wheel] = wheels.glob("aish-*.whl")
    venv = work / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--no-deps", "-q", str(wheel)]
    subprocess.run(pip, check=True, timeout=300, capture_output=True)
    return wheel, venv


def test_the_wheel_carries_the_shell_integration(installed: tuple[Path, Path]) -> None:
    wheel, _ = installed
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {"aish/shell/integration.bash", "aish/shell/integration.zsh"} <= names
    assert "aish_testllm/server.py" in names


def test_the_installed_command_runs_outside_the_repository(
    installed: tuple[Path, Path], tmp_path: Path
) -> None:
    _, venv = installed
    aish = str(venv / "bin" / "aish")
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    version = subprocess.run(
        [aish, "--version"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60
    )
    assert version.returncode == 0 and version.stdout.startswith("aish "), version.stderr
    helped = subprocess.run(
        [aish, "--help"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60
    )
    assert "examples:" in helped.stdout
