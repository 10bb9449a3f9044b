"""A real bash on a real PTY through its life: Ctrl-C and Ctrl-Z, interrupts from aish,
background jobs, the shell dying (exit in a sourced script, exec, a signal) and coming back."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from aish.shell.results import ShellClosedError, ShellStartError
from aish.shell.session import ShellSession
from tests.support.shell_harness import (
    TIMEOUT_S,
    Harness,
    clean_env,
    open_shell,
    wait_until,
)


@pytest.fixture
async def sh(tmp_path: Path) -> AsyncIterator[Harness]:
    async with open_shell(tmp_path) as harness:
        yield harness


async def test_ctrl_c_reaches_the_program(sh: Harness) -> None:
    task = asyncio.ensure_future(sh.session.run("sleep 10"))
    try:
        await sh.until_job_in_foreground()
        await sh.session.send(b"\x03")
        result = await asyncio.wait_for(task, TIMEOUT_S)
    finally:
        task.cancel()
    assert result.exit_status == 130
    assert (await sh.run("echo after")).output.text == "after"


async def test_ctrl_z_stops_the_job_and_the_shell_stays_usable(sh: Harness) -> None:
    task = asyncio.ensure_future(sh.session.run("sleep 10"))
    try:
        await sh.until_job_in_foreground()
        await sh.session.send(b"\x1a")
        result = await asyncio.wait_for(task, TIMEOUT_S)
    finally:
        task.cancel()
    assert result.exit_status == 148
    assert "Stopped" in result.output.text
    jobs = await sh.run("jobs")
    assert "Stopped" in jobs.output.text and "sleep 10" in jobs.output.text
    assert (await sh.run("echo usable")).output.text == "usable"
    assert (await sh.run("kill -9 %1")).exit_status == 0


async def test_interrupt_from_aish(sh: Harness) -> None:
    task = asyncio.ensure_future(sh.session.run("sleep 10"))
    try:
        await sh.until_job_in_foreground()
        await sh.session.interrupt()
        result = await asyncio.wait_for(task, TIMEOUT_S)
    finally:
        task.cancel()
    assert result.exit_status == 130


async def test_interrupt_escalates_to_sigkill(sh: Harness) -> None:
    # sh ignores SIGINT and so does its sleep (ignored signals are inherited).
    task = asyncio.ensure_future(sh.session.run("sh -c 'trap \"\" INT; sleep 10'"))
    try:
        await sh.until_job_in_foreground()
        await sh.session.interrupt(kill_after_s=0.2)
        result = await asyncio.wait_for(task, TIMEOUT_S)
    finally:
        task.cancel()
    assert result.exit_status == 137
    assert sh.session.alive and (await sh.run("echo alive")).output.text == "alive"


async def test_interrupt_when_idle_does_nothing(sh: Harness) -> None:
    pid = sh.session.pid
    await sh.session.interrupt(kill_after_s=0.05)
    assert sh.session.pid == pid and (await sh.run("echo ok")).output.text == "ok"


async def test_background_job_output_arrives_between_commands(sh: Harness) -> None:
    result = await sh.run("(sleep 0.2; echo bg-output) &")
    assert result.exit_status == 0
    await sh.background.wait_for(b"bg-output")
    assert b"bg-output" not in result.output.text.encode()


async def test_a_chatty_background_job_never_blocks(sh: Harness) -> None:
    # 300 KB is far more than a PTY buffers: if aish stopped reading between commands, the job
    # would block on write and `wait` would never return.
    await sh.run("(head -c 300000 /dev/zero | tr '\\0' x; echo; echo bg-done) &")
    await sh.background.wait_for(b"bg-done")
    # (bash may put the job's "Done" notice at the start of this command's output)
    assert (await sh.run("wait; echo waited")).output.text.splitlines()[-1] == "waited"
    assert sh.background.data.count(b"x") == 300000


async def test_background_output_is_kept_bounded_without_a_callback(tmp_path: Path) -> None:
    env = clean_env(tmp_path / "home")
    done = tmp_path / "done"
    session = await ShellSession.start(env=env, cwd=str(tmp_path))
    async with session:
        job = f"(head -c 300000 /dev/zero | tr '\\0' y; echo END; touch {done}) &"
        await asyncio.wait_for(session.run(job), TIMEOUT_S)
        await wait_until(done.exists)
        # Everything the job printed precedes this command's echo in the PTY stream.
        await asyncio.wait_for(session.run("true"), TIMEOUT_S)
        kept = session.take_background_output()
        assert b"END\r\n" in kept and len(kept) <= 128 * 1024
        assert session.take_background_output() == b""


async def test_exit_in_a_sourced_script_respawns_the_shell(sh: Harness, tmp_path: Path) -> None:
    script = tmp_path / "quit.sh"
    script.write_text("echo leaving\nexit 3\n")
    (tmp_path / "work" / "deeper").mkdir()
    await sh.run("cd deeper && export KEEP=1 && alias gone='echo x'")
    old_pid = sh.session.pid
    result = await sh.run(f"source {script}")
    assert result.exit_status == 3
    assert result.output.text.splitlines()[0] == "leaving"
    deeper = str(tmp_path / "work" / "deeper")
    assert result.notice == (
        f"the shell exited (status 3); started a new one in {deeper} — "
        "its variables, aliases and functions are gone"
    )
    assert sh.session.pid != old_pid and sh.session.alive and sh.session.cwd == deeper
    after = await sh.run('pwd; echo "${KEEP-unset}"; type gone >/dev/null 2>&1 || echo no-alias')
    assert after.output.text.splitlines() == [deeper, "unset", "no-alias"]


async def test_exec_replacing_the_shell_respawns_it(sh: Harness) -> None:
    old_pid = sh.session.pid
    result = await sh.run("exec true")
    assert result.exit_status == 0
    assert result.notice is not None and result.notice.startswith("the shell exited (status 0)")
    assert sh.session.pid != old_pid
    assert (await sh.run("echo back")).output.text == "back"


async def test_shell_killed_between_commands_is_reported_and_respawned(sh: Harness) -> None:
    old_pid = sh.session.pid
    assert old_pid is not None
    os.kill(old_pid, signal.SIGKILL)
    await asyncio.wait_for(sh.notice_event.wait(), TIMEOUT_S)
    assert sh.notices[0].startswith("the shell was killed by SIGKILL; started a new one in ")
    assert sh.session.pid != old_pid
    assert (await sh.run("echo back")).output.text == "back"


async def test_exit_with_a_job_holding_the_terminal_still_respawns(sh: Harness) -> None:
    # The background sleep keeps the PTY's slave open, so no EIO comes: the pid tells.
    await sh.run("sleep 5 &")
    old_pid = sh.session.pid
    result = await sh.run("exit 4")
    assert result.exit_status == 4 and sh.session.pid != old_pid


async def test_a_shell_that_cannot_start_is_an_error(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = clean_env(home)
    (home / ".bashrc").write_text("echo broken rc\nexit 9\n")
    with pytest.raises(ShellStartError, match=r"status 9.*broken rc"):
        await asyncio.wait_for(ShellSession.start(env=env, cwd=str(tmp_path)), TIMEOUT_S)


async def test_close_fails_a_running_command_and_ends_the_shell(tmp_path: Path) -> None:
    async with open_shell(tmp_path) as sh:
        task = asyncio.ensure_future(sh.session.run("sleep 10"))
        await sh.until_job_in_foreground()
        pid = sh.session.pid
        assert pid is not None
        await asyncio.wait_for(sh.session.close(), TIMEOUT_S)
        with pytest.raises(ShellClosedError):
            await task
        assert not sh.session.alive
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
        with pytest.raises(ShellClosedError):
            await sh.session.run("true")


async def test_cancelled_run_leaves_the_command_running(sh: Harness) -> None:
    task = asyncio.ensure_future(sh.session.run("sleep 0.3; echo late"))
    await sh.until_job_in_foreground()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    # The next command waits for the cancelled one; its output became background output.
    assert (await sh.run("echo next")).output.text == "next"
    assert b"late" in sh.background.data
