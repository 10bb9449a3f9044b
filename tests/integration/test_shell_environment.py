"""ShellSession.exported_environment() against a real bash (and zsh when installed) on a real
PTY: what the user exported or sourced, odd values, what is left out, and that asking leaves the
history, $? and later commands alone."""

from __future__ import annotations

import asyncio
import os
import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from aish.shell.environment import DROPPED, parse_environment
from aish.shell.results import ShellBusyError
from tests.support.shell_harness import Harness, clean_env, open_shell

needs_zsh = pytest.mark.skipif(
    shutil.which("zsh") is None, reason="zsh is not installed (`make test` installs it)"
)
SHELLS = ["bash", pytest.param("zsh", marks=needs_zsh)]

ACTIVATE = """\
VIRTUAL_ENV='{venv}'
export VIRTUAL_ENV
PATH="$VIRTUAL_ENV/bin:$PATH"
export PATH
"""


@pytest.fixture(params=SHELLS)
async def sh(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Harness]:
    async with open_shell(tmp_path, shell=request.param) as harness:
        yield harness


async def test_exports_and_a_sourced_activate_script(sh: Harness, tmp_path: Path) -> None:
    venv = tmp_path / "my venv"
    (tmp_path / "activate").write_text(ACTIVATE.format(venv=venv))
    before = await sh.session.exported_environment()
    await sh.run(f"export FOO=$'a b\\nc'; source '{tmp_path}/activate'; LOCAL_ONLY=1")
    env = await sh.session.exported_environment()
    assert env["FOO"] == "a b\nc"
    assert env["VIRTUAL_ENV"] == str(venv)
    assert env["PATH"] == f"{venv}/bin:{before['PATH']}"
    assert "LOCAL_ONLY" not in env
    assert env["HOME"] == str(sh.home) and env["AISH"] == "1"
    await sh.run("unset FOO; export LOCAL_ONLY")
    env = await sh.session.exported_environment()
    assert "FOO" not in env and env["LOCAL_ONLY"] == "1"


async def test_it_is_what_a_child_process_gets(sh: Harness, tmp_path: Path) -> None:
    await sh.run("export MULTI=$'x\\ny=z\\r\\t\\e]6973;;D;0\\a' EMPTY=")
    seen = tmp_path / "child.env"
    await sh.run(f"env -0 > '{seen}'")
    child = parse_environment(seen.read_bytes(), rcfile_dir=tmp_path)
    env = await sh.session.exported_environment()
    assert env == child
    assert env["MULTI"] == "x\ny=z\r\t\x1b]6973;;D;0\x07" and env["EMPTY"] == ""


async def test_values_that_are_not_utf8_survive(sh: Harness) -> None:
    await sh.run("export RAW=$'caf\\xe9 \\xff\\x01'")
    env = await sh.session.exported_environment()
    assert os.fsencode(env["RAW"]) == b"caf\xe9 \xff\x01"


async def test_history_and_exit_status_are_untouched(sh: Harness) -> None:
    await sh.run("echo before")
    await sh.run("false")
    await sh.session.exported_environment()
    assert (await sh.run("echo $?")).output.text == "1"
    await sh.run("false")
    await sh.session.exported_environment()
    history = (await sh.run("fc -ln -4")).output.text
    assert [line.strip() for line in history.splitlines()] == [
        "echo before",
        "false",
        "echo $?",
        "false",
    ]


async def test_what_describes_the_shell_is_left_out(sh: Harness, tmp_path: Path) -> None:
    await sh.run(f"cd '{tmp_path}' && cd - >/dev/null")
    # (COLUMNS and LINES keep their values: the line editor goes by them.)
    await sh.run("export PS1 PROMPT_COMMAND=: BASH_ENV=/x ENV=/y COLUMNS LINES KEEP=1")
    env = await sh.session.exported_environment()
    assert env["KEEP"] == "1"
    assert not DROPPED & env.keys()
    assert not [name for name in env if name.startswith(("__aish", "READLINE_"))]
    assert "ZDOTDIR" not in env  # zsh: aish's private one is not passed on


async def test_asking_while_a_command_runs_is_an_error(sh: Harness) -> None:
    task = asyncio.ensure_future(sh.session.run("sleep 0.3"))
    await asyncio.sleep(0)
    try:
        with pytest.raises(ShellBusyError):
            await sh.session.exported_environment()
        await asyncio.wait_for(task, 10)
    finally:
        task.cancel()
    assert "HOME" in await sh.session.exported_environment()


async def test_no_answer_times_out_and_holds_nothing_up(tmp_path: Path) -> None:
    rc = tmp_path / "rc"
    async with open_shell(tmp_path, rcfile_dir=rc) as sh:
        await sh.run("bind -x '\"\\e[5006~\": :'")  # a user binding took aish's key
        with pytest.raises(TimeoutError):
            await sh.session.exported_environment(timeout_s=0.5)
        assert (await sh.run("echo still-here")).output.text == "still-here"
        assert not list(rc.glob("aish-env.*"))  # the values may be secrets


@needs_zsh
async def test_zsh_keeps_the_users_own_zdotdir(tmp_path: Path) -> None:
    home, config = tmp_path / "home", tmp_path / "config"
    config.mkdir()
    env = {**clean_env(home, "zsh"), "ZDOTDIR": str(config)}
    async with open_shell(tmp_path, shell="zsh", env=env) as sh:
        exported = await sh.session.exported_environment()
    assert exported["ZDOTDIR"] == str(config)
