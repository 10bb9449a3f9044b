"""`aish completion bash|zsh`: the script, sourced in a real bash, completes what the command
line accepts."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

AISH = [sys.executable, "-m", "aish"]


def _complete(script: str, *words: str) -> list[str]:
    """What bash offers after `aish <words>` (the last word being completed)."""
    line = " ".join(words)
    probe = (
        f"{script}\nCOMP_WORDS=(aish {line}); COMP_CWORD={len(words)}; _aish; "
        'printf "%s\\n" "${COMPREPLY[@]}"'
    )
    ran = subprocess.run(["bash", "--norc", "-c", probe], capture_output=True, text=True)
    assert ran.returncode == 0, ran.stderr
    return ran.stdout.split()


@pytest.fixture(scope="module")
def script() -> str:
    ran = subprocess.run([*AISH, "completion", "bash"], capture_output=True, text=True, timeout=30)
    assert ran.returncode == 0, ran.stderr
    return ran.stdout


def test_subcommands_verbs_and_options_complete(script: str) -> None:
    assert {"ask", "goal", "cost", "memory", "completion"} <= set(_complete(script, ""))
    assert _complete(script, "co") == ["completion", "cost"]
    assert _complete(script, "memory", "") == ["--help", "-h", "export", "import"]
    assert "--yes-safe" in _complete(script, "goal", "--")
    assert _complete(script, "cost", "--by", "--s") == ["--since"]
    assert _complete(script, "completion", "") == ["--help", "-h", "bash", "zsh"]


def test_zsh_loads_it_through_bashcompinit() -> None:
    ran = subprocess.run([*AISH, "completion", "zsh"], capture_output=True, text=True, timeout=30)
    assert "autoload -U +X bashcompinit && bashcompinit\n" in ran.stdout
    if shutil.which("zsh") is None:
        pytest.skip("zsh is not installed here (`make test` installs it)")
    check = subprocess.run(["zsh", "-f", "-c", ran.stdout], capture_output=True, text=True)
    assert check.returncode == 0, check.stderr


def test_help_shows_examples() -> None:
    ran = subprocess.run([*AISH, "--help"], capture_output=True, text=True, timeout=30)
    assert "examples:" in ran.stdout and 'aish ask "why is the disk full?"' in ran.stdout
