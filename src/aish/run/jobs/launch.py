"""Starting a background job in a shell: the executor behind `CMD&:`.

`launch_job` types the wrapped line (`wrapping.background_line`) into the shell as a private
line (kept out of its history), which returns as soon as the job is started, and adds the job
to the shell's table. It is reached only from an executor that redeemed the gate's
authorization first (`UserShell.start_job`, `AgentShell.start_job`); it checks once more that
the command can be wrapped (the user may have edited it at the confirm prompt).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from aish.run.jobs.table import Job, JobTable
from aish.run.jobs.wrapping import background_line, cannot_background

if TYPE_CHECKING:
    from aish.shell.session import ShellSession

__all__ = ["MAX_RUNNING", "JobNotStarted", "launch_job"]

# Background jobs of one shell running at once; one more is refused until one ends.
MAX_RUNNING = 8


class JobNotStarted(Exception):
    """The job could not be started; the message says why (for the user and the model)."""


async def launch_job(
    shell: ShellSession,
    table: JobTable,
    command: str,
    *,
    shown: str,
    asked: bool,
    source: Literal["user", "model"],
) -> Job:
    """Start `command` (as it runs: secret values in) as a job of `shell`; `shown` is how it
    is shown and told (placeholders). Raises `JobNotStarted` with the reason."""
    refusal = cannot_background(command)
    if refusal is not None:
        raise JobNotStarted(f"cannot run in the background: {refusal}")
    table.poll()
    if len(table.running()) >= MAX_RUNNING:
        raise JobNotStarted(f"{MAX_RUNNING} background jobs are running already (:jobs)")
    number, files = table.reserve()
    cwd = shell.cwd
    try:
        result = await shell.run(
            background_line(command, files), max_lines=5, max_bytes=1024, private=True
        )
    except BaseException:
        table.forget(number)
        raise
    try:
        pid: int | None = int(files.pid.read_text().strip())
    except (OSError, ValueError):
        pid = None
    if result.exit_status != 0 or pid is None:
        table.forget(number)
        said = result.output.text.strip().splitlines()
        why = said[-1] if said else f"exit status {result.exit_status}"
        raise JobNotStarted(f"the shell did not start it ({why})")
    return table.add(number, files, shown, cwd, pid, asked=asked, source=source)
