"""Background jobs (`CMD&:`) in a real shell: started through the gate only, the shell free at
once, the wrapping unbreakable, the output bounded, the end noticed."""

from __future__ import annotations

import asyncio
import contextlib
import os
import resource
import shutil
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from aish.agent import gate
from aish.run.agent_shell import AgentShell
from aish.run.jobs import Job, JobNotStarted
from tests.support import ScriptedFrontend


async def _authorized(command: str, *, background: bool = True) -> gate.Authorization:
    return await gate.authorize(
        gate.ProposedCommand(command, background=background),
        gate.Policy("interactive"),
        confirmer=ScriptedFrontend("yes"),
    )


@pytest.fixture(params=["bash", "zsh"])
async def agent(tmp_path: Path, request: pytest.FixtureRequest) -> AgentShell:
    if shutil.which(request.param) is None:
        pytest.skip(f"no {request.param} here")
    shell = await AgentShell.start(str(tmp_path), shell=request.param)
    yield shell  # type: ignore[misc]
    await shell.close()


async def _ended(agent: AgentShell, job: Job) -> Job:
    for _ in range(100):
        if not job.running:
            return job
        await agent.wait_for_jobs(0.5)
    raise AssertionError(f"job {job.number} did not end")


async def test_a_job_returns_at_once_and_its_end_is_noticed(
    agent: AgentShell, tmp_path: Path
) -> None:
    ended: list[Job] = []
    agent.on_job_end = ended.append
    job = await agent.start_job(await _authorized("sleep 0.5; echo 'it'\"'\"'s done'; exit 3"))
    assert job.running and job.number == 1
    # The shell is free while the job runs.
    run = await agent.run_authorized(await _authorized("echo free", background=False), 10)
    assert run.output == "free" and job.running
    await _ended(agent, job)
    assert job.exit_status == 3 and job.output() == "it's done"
    assert ended == [job]
    told = job.as_command_run()
    assert told.exit_status == 3 and "background job 1" in (told.notice or "")


async def test_the_wrapping_cannot_be_broken_out_of(agent: AgentShell, tmp_path: Path) -> None:
    # Each would run something outside the job if it were spliced into the wrapper as text.
    for attempt in (
        "echo ') ; touch pwned ; ('",
        "echo x # ) ; touch pwned",
        "echo \"'\" ; echo '\"' ; : '; touch pwned ;'",
    ):
        job = await agent.start_job(await _authorized(attempt))
        await _ended(agent, job)
        assert job.exit_status == 0, job.output()
    assert not (tmp_path / "pwned").exists()
    # An exit, a cd and an exec stay in the job: the shell lives on where it was.
    for command in ("exit 4", "cd /", "exec true"):
        await _ended(agent, await agent.start_job(await _authorized(command)))
    run = await agent.run_authorized(await _authorized("pwd", background=False), 10)
    assert run.output == str(tmp_path)


async def test_refused_edits_and_foreground_authorizations(agent: AgentShell) -> None:
    with pytest.raises(JobNotStarted, match="here-document"):
        await agent.start_job(await _authorized("cat <<EOF"))
    # What the gate authorized for the foreground does not start in the background, nor the
    # other way round.
    with pytest.raises(gate.Unauthorized):
        await agent.start_job(await _authorized("ls", background=False))
    with pytest.raises(gate.Unauthorized):
        await agent.run_authorized(await _authorized("ls"), 10)


async def test_the_output_never_reaches_a_file_and_the_capture_stays_whole(
    agent: AgentShell,
) -> None:
    # 4 MiB written in chunks: read from the job's FIFO as it comes, none of it on disk.
    job = await agent.start_job(
        await _authorized(
            "for i in $(seq 64); do head -c 65536 /dev/zero | tr '\\0' x; sleep 0.05; done;"
            " echo end"
        )
    )
    assert stat.S_ISFIFO(job.files.output.stat().st_mode)
    while job.running:
        await agent.wait_for_jobs(0.2)
    assert job.exit_status == 0
    assert _bytes_on_disk(job.files.directory) < 1024
    assert job.output().endswith("end")
    assert job.capture.result().total_bytes == 4 * 1024 * 1024 + len("end\n")


def _bytes_on_disk(directory: Path) -> int:
    return sum(p.stat().st_size for p in directory.iterdir() if p.is_file())


@contextlib.contextmanager
def _file_size_limit(limit: int) -> Iterator[None]:
    """A soft RLIMIT_FSIZE for this process and the shells it starts from here on: a test that
    goes wrong stops at `limit` bytes per file (SIGXFSZ) instead of filling the disk."""
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))


async def _longest_stall(seconds: float) -> float:
    """Ticks every 0.1 s for `seconds`; the longest gap between ticks."""
    loop = asyncio.get_running_loop()
    longest, last, end = 0.0, loop.time(), loop.time() + seconds
    while loop.time() < end:
        await asyncio.sleep(0.1)
        now = loop.time()
        longest, last = max(longest, now - last), now
    return longest


@pytest.mark.parametrize("command", ["yes", "cat /dev/zero"])
async def test_a_job_printing_without_end_fills_no_disk_and_blocks_nothing(
    tmp_path: Path, command: str
) -> None:
    limit = 64 * 1024 * 1024
    with _file_size_limit(limit):
        agent = await AgentShell.start(str(tmp_path))
        try:
            job = await agent.start_job(await _authorized(command))
            stall = await _longest_stall(2.0)
            # Alive: had it written `limit` bytes to a file, SIGXFSZ would have ended it.
            assert job.running
            assert _bytes_on_disk(job.files.directory) < 1024
            # The event loop kept turning while it printed (a hang check, not a speed check:
            # the bound is generous for a loaded machine).
            assert stall < 1.0
            assert job.capture.result().total_bytes > 0
            assert "bytes omitted" in job.output() or job.capture.result().binary
        finally:
            await agent.close()
    assert job.state == "stopped"
    assert job.pid is not None
    await _gone(job.pid)


async def test_a_job_nothing_reads_any_more_ends_at_its_next_write(tmp_path: Path) -> None:
    # As if aish were gone (or could not signal it, in a PID namespace): once the FIFO's reader
    # is closed, the job's next write ends it.
    agent = await AgentShell.start(str(tmp_path))
    try:
        job = await agent.start_job(await _authorized("yes"))
        assert agent.jobs is not None
        agent.jobs._signals_reach = False  # close() only stops reading; it sends no signal
        await _longest_stall(0.3)
        agent.jobs.close()
        assert job.pid is not None
        await _gone(job.pid)
    finally:
        await agent.close()


async def _gone(pid: int) -> None:
    for _ in range(50):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"job {pid} is still running")


async def test_closing_the_shell_stops_its_jobs(tmp_path: Path) -> None:
    agent = await AgentShell.start(str(tmp_path))
    ended: list[Job] = []
    agent.on_job_end = ended.append
    job = await agent.start_job(await _authorized("sleep 30.71"))
    assert job.pid is not None
    await agent.close()
    assert [j.state for j in ended] == ["stopped"]
    for _ in range(50):
        try:
            os.kill(job.pid, 0)
        except ProcessLookupError:
            break
        await asyncio.sleep(0.1)
    else:
        raise AssertionError("the job outlived its shell")
