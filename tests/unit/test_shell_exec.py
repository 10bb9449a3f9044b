"""Which lines ask for a fresh shell (`exec bash`), read the way bash would read them."""

from __future__ import annotations

import pytest

from aish.run.shell_exec import replacement_shell


@pytest.mark.parametrize(
    ("line", "shell"),
    [
        ("exec bash", "bash"),
        ("exec zsh", "zsh"),
        ("  exec   bash  ", "bash"),
        ("exec bash -l", "bash"),
        ("exec -l bash", "bash"),
        ("exec zsh --login -i", "zsh"),
        ("exec /bin/bash", "/bin/bash"),
        ("exec /usr/bin/zsh", "/usr/bin/zsh"),
        ('exec "$SHELL"', "/usr/bin/zsh"),
        ("exec $SHELL", "/usr/bin/zsh"),
        ("exec ${SHELL} -l", "/usr/bin/zsh"),
        ("exec 'bash'", "bash"),
        ("exec bash-5.2", "bash-5.2"),
    ],
)
def test_a_fresh_shell(line: str, shell: str) -> None:
    assert replacement_shell(line, "/usr/bin/zsh") == shell


@pytest.mark.parametrize(
    "line",
    [
        "exec",
        "exec -l",
        "bash",
        "exec fish",
        "exec tmux",
        "exec bash -c 'echo hi'",
        "exec bash script.sh",
        "exec bash --norc",
        "exec bash 2>/dev/null",
        "exec bash; ls",
        "exec bash && ls",
        "exec $(which bash)",
        "exec `which bash`",
        "exec 'bash",
        "exec -a name bash",
        "echo exec bash",
    ],
)
def test_anything_else_runs_as_typed(line: str) -> None:
    assert replacement_shell(line, "/bin/bash") is None


def test_shell_from_a_shell_aish_cannot_integrate_with_runs_as_typed() -> None:
    assert replacement_shell('exec "$SHELL"', "/usr/bin/fish") is None
