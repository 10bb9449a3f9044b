"""Background jobs (`CMD&:`) in a real shell: started through the gate only, the shell free at
once, the wrapping unbreakable, the output bounded, the end noticed."""

from __future__ import annotations

import asyncio
import os
import shutil
from pathlib import Path

import pytest

from aish.agent import gate
from aish.run.agent_shell import AgentShell
from aish.run.jobs import Job, JobNotStarted
from aish.run.jobs.table import FILE_MAX_BYTES
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


async def test_the_output_file_stays_bounded(agent: AgentShell) -> None:
    # 4 MiB written in chunks, trimmed as it is read.
    job = await agent.start_job(
        await _authorized(
            "for i in $(seq 64); do head -c 65536 /dev/zero | tr '\\0' x; sleep 0.05; done;"
            " echo end"
        )
    )
    biggest = 0
    while job.running:
        await agent.wait_for_jobs(0.2)
        with_size = job.files.output.stat().st_size if job.files.output.exists() else 0
        biggest = max(biggest, with_size)
    assert job.exit_status == 0
    assert biggest < FILE_MAX_BYTES * 2
    assert job.output().endswith("end")
    assert job.capture.result().total_bytes > 4 * 1024 * 1024


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
