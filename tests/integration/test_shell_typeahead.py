"""Type-ahead through a real bash and zsh on a real PTY: keys typed ahead of a command, or
while it runs, reach it if it reads them; what it did not read comes back in the result (for
aish's next prompt) and never runs in the shell."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.support.shell_harness import Harness, open_shell

SHELLS = [
    "bash",
    pytest.param(
        "zsh", marks=pytest.mark.skipif(shutil.which("zsh") is None, reason="zsh not installed")
    ),
]


def enters(keys: bytes) -> bytes:
    """Enter as typed: keys waiting while readline reads stay CR, but ZLE keeps the terminal's
    CR-to-NL translation on, so under zsh they come back as NL (which aish's prompt also takes
    for Enter)."""
    return keys.replace(b"\n", b"\r")


@pytest.fixture(params=SHELLS)
async def sh(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Harness]:
    async with open_shell(tmp_path, shell=request.param) as harness:
        yield harness


async def test_keys_the_command_did_not_read_come_back_and_do_not_run(sh: Harness) -> None:
    task = asyncio.ensure_future(sh.session.run("sleep 0.5"))
    try:
        await sh.until_job_in_foreground()
        await sh.session.send(b"echo LEAKED")
        result = await asyncio.wait_for(task, 10)
    finally:
        task.cancel()
    assert (result.exit_status, result.typeahead) == (0, b"echo LEAKED")
    assert (await sh.run("echo clean")).output.text == "clean"


async def test_a_whole_line_typed_during_a_command_comes_back_unrun(sh: Harness) -> None:
    task = asyncio.ensure_future(sh.session.run("sleep 0.5"))
    try:
        await sh.until_job_in_foreground()
        await sh.session.send(b"echo LEAK2\r")
        result = await asyncio.wait_for(task, 10)
    finally:
        task.cancel()
    assert result.typeahead == b"echo LEAK2\n"  # the PTY's ICRNL, as bash's readline gets it
    result = await sh.run("echo clean")
    assert (result.output.text, result.typeahead) == ("clean", b"")
    assert b"LEAK2\r\n" not in sh.background.data  # handed back, not run


async def test_keys_typed_ahead_reach_the_command_that_reads_them(sh: Harness) -> None:
    task = asyncio.ensure_future(sh.session.run("head -1", typeahead=b"typed ahead, "))
    try:
        await sh.until_job_in_foreground()
        await sh.session.send(b"then typed\r")  # keys typed while it runs come after
        result = await asyncio.wait_for(task, 10)
    finally:
        task.cancel()
    assert result.output.text.splitlines()[-1] == "typed ahead, then typed"
    assert result.typeahead == b""
    result = await sh.session.run("true", typeahead=b"ls -l\r:next\r")
    assert (result.exit_status, enters(result.typeahead)) == (0, b"ls -l\r:next\r")


async def test_keys_typed_ahead_of_a_line_that_runs_nothing_come_back(sh: Harness) -> None:
    result = await sh.session.run("echo )", typeahead=b"echo after\r")
    assert result.exit_status != 0 and "error" in result.output.text
    assert enters(result.typeahead) == b"echo after\r"
    assert (await sh.run("echo clean")).output.text == "clean"
