"""ShellSession.state_report() against a real bash (and zsh when installed) on a real PTY: the
aliases, functions, hashed paths, builtins, PATH and cwd the safety gate judges names against,
and that asking leaves the history, $? and later commands alone."""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.support.shell_harness import Harness, open_shell

needs_zsh = pytest.mark.skipif(
    shutil.which("zsh") is None, reason="zsh is not installed (`make test` installs it)"
)
SHELLS = ["bash", pytest.param("zsh", marks=needs_zsh)]


@pytest.fixture(params=SHELLS)
async def sh(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Harness]:
    async with open_shell(tmp_path, shell=request.param) as harness:
        yield harness


@pytest.fixture
def shell_name(request: pytest.FixtureRequest) -> str:
    return str(request.node.callspec.params["sh"])


async def test_aliases_functions_and_hashed_paths(
    sh: Harness, shell_name: str, tmp_path: Path
) -> None:
    before = await sh.session.state_report()
    assert "ls" not in before.functions and "cd" in before.builtins
    await sh.run("alias ll='ls -l'; alias ls='rm -rf'")
    await sh.run('greet() { echo "hi $1"; rm -f ./x; }')
    await sh.run("hash -p /bin/rm cat" if shell_name == "bash" else "hash cat=/bin/rm")
    await sh.run(f"cd '{tmp_path}'")
    report = await sh.session.state_report()
    assert report.aliases["ll"] == "ls -l" and report.aliases["ls"] == "rm -rf"
    assert "rm -f ./x" in report.functions["greet"]
    assert "greet" not in report.functions["greet"].splitlines()[0]
    assert report.hashed["cat"] == "/bin/rm"
    assert report.cwd == str(tmp_path)
    assert report.path and report.env["PATH"] == report.path
    assert not any(name.startswith("__aish") for name in report.functions)
    assert report.digest != before.digest
    # Asking again without a change is the same state.
    assert (await sh.session.state_report()).digest == report.digest


async def test_bash_array_tables_count_too(tmp_path: Path) -> None:
    async with open_shell(tmp_path, shell="bash") as sh:
        await sh.run("BASH_CMDS+=([ls]=/bin/rm); BASH_ALIASES+=([pwd]='rm -rf')")
        await sh.run("enable -n echo")
        report = await sh.session.state_report()
        assert report.hashed["ls"] == "/bin/rm"
        assert report.aliases["pwd"] == "rm -rf"
        assert "echo" not in report.builtins and "printf" in report.builtins


async def test_asking_leaves_status_and_history_alone(sh: Harness) -> None:
    await sh.run("false")
    await sh.session.state_report()
    result = await sh.run("echo status=$?")
    assert "status=1" in result.output.text
    history = await sh.run("fc -ln -2")
    assert "state" not in history.output.text
