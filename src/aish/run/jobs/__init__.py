"""Background jobs (`CMD&:`): a command the gate authorized, started in a shell without holding
it, its output captured (bounded) and its end told to the model with the next message.

`wrapping` is the line that starts one (and what cannot be started that way), `launch` the
executor that types it into the shell, `table` aish's own table of a shell's jobs (`:jobs`).
"""

from __future__ import annotations

from aish.run.jobs.launch import MAX_RUNNING, JobNotStarted, launch_job
from aish.run.jobs.table import Job, JobTable
from aish.run.jobs.wrapping import cannot_background

__all__ = ["MAX_RUNNING", "Job", "JobNotStarted", "JobTable", "cannot_background", "launch_job"]
