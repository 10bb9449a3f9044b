"""`:jobs` and `:jobs N`: the background jobs aish started (`CMD&:`) in the user's shell.

`:jobs` lists them with their state, runtime and last line of output; `:jobs N` shows job N's
output as captured (bounded: a head and a tail of it). What the jobs printed is quoted the way
all foreign text is on the terminal (`visible`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

from aish.ui.render.visible_text import visible

if TYPE_CHECKING:
    from aish.run.jobs import Job
    from aish.ui.repl.meta.context import ReplContext

JOBS_USAGE = "usage: :jobs or :jobs <number>"
NO_JOBS = "no background jobs (a reply's CMD&: lines start them)"
_COMMAND_SHOWN = 40
_LAST_SHOWN = 50
_TAIL_LINES = 40


@runtime_checkable
class HasJobs(Protocol):
    """A REPL whose shell runs background jobs."""

    def background_jobs(self) -> list[Job]: ...


async def jobs(repl: ReplContext, args: str) -> None:
    if not isinstance(repl, HasJobs):
        repl.say("background jobs are not available here")
        return
    listed = repl.background_jobs()
    wanted = args.strip().lstrip("%")
    if not wanted:
        repl.say("\n".join(job_line(job) for job in listed) if listed else NO_JOBS)
        return
    if not wanted.isdigit():
        repl.say(JOBS_USAGE)
        return
    job = next((j for j in listed if j.number == int(wanted)), None)
    if job is None:
        repl.say(f"no background job {wanted} (:jobs lists them)")
        return
    repl.say(job_line(job, last=False))
    output = job.output()
    lines = output.splitlines()[-_TAIL_LINES:] if output else []
    repl.say("\n".join(f"  {visible(line)}" for line in lines) if lines else "  [no output yet]")


def job_line(job: Job, *, last: bool = True) -> str:
    """One job: number, state (with the exit status once done), runtime, command, last line."""
    if job.state == "running":
        state = "running"
    elif job.state == "done":
        state = f"done ({job.exit_status})"
    else:
        state = "stopped"
    command = _shortened(job.command, _COMMAND_SHOWN)
    line = f"  [{job.number}] {state:<10} {_runtime(job.runtime_s()):>7}  {visible(command)}"
    tail = job.last_line() if last else ""
    return line + (f"  │ {visible(_shortened(tail, _LAST_SHOWN))}" if tail else "")


def job_end_notice(job: Job) -> str:
    """The one line above the prompt when a job ends."""
    how = f"exit {job.exit_status}" if job.state == "done" else "stopped"
    notice = f"[{job.number}] done ({how}, {_runtime(job.runtime_s())}): "
    notice += visible(_shortened(job.command, _COMMAND_SHOWN))
    if job.notice:
        notice += f"; {visible(job.notice)}"
    return notice + " — its result goes with your next question (:jobs " + f"{job.number})"


def _runtime(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes, rest = divmod(int(seconds), 60)
    return f"{minutes}m{rest:02d}s" if minutes < 60 else f"{minutes // 60}h{minutes % 60:02d}m"


def _shortened(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
