"""aish's own table of the background jobs it started in one shell (`CMD&:`).

Each job writes into a private directory (`wrapping.JobFiles`); its output goes into a FIFO the
table opens for reading before the job starts and holds until the job has ended (or the shell
closes). Every half second the table takes what is waiting, never more than `DRAIN_BYTES`, on
the event loop: of that, at most `FEED_BYTES` (the newest) go to a bounded capture (the same
terminal-emulated head-and-tail capture a foreground command gets), and what it passed over is
counted in the capture as omitted. So nothing a job prints reaches a disk, a poll's work is
bounded however fast the job prints, and a job that prints faster than aish reads waits on its
full pipe (raised to `PIPE_BYTES` where the system allows). When aish is gone, nothing reads the
FIFO: the job's next write ends it (SIGPIPE), even one that escaped the hang-up below. A job has
ended when its exit status is written; `on_end` hears of it once, with the job as the model
should be told of it (`as_command_run`).

`close` hangs up the jobs still running (as bash does to its jobs when its terminal goes): a
job never outlives the shell aish started it in. Inside a sandbox's PID namespace the pid the
shell reports is not one aish can signal; the namespace ends them when its shell ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import logging
import os
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from aish.conversation.context import CommandRun
from aish.run.jobs.wrapping import JobFiles

if TYPE_CHECKING:
    from aish.shell.capture import OutputCapture

__all__ = ["DRAIN_BYTES", "FEED_BYTES", "Job", "JobTable"]

_log = logging.getLogger("aish.jobs")

POLL_S = 0.5
# Per poll and job: the most taken from its FIFO, and the most of that (the newest) rendered
# into its capture — what the model is told is bounded by the capture's own limits, far below.
DRAIN_BYTES = 2 * 1024 * 1024
FEED_BYTES = 256 * 1024
# The FIFO's buffer, asked for so a chatty job does not wait on aish between polls (Linux
# grants up to /proc/sys/fs/pipe-max-size, 1 MiB by default, to anyone).
PIPE_BYTES = 1024 * 1024
_READ_BYTES = 65536

JobState = Literal["running", "done", "stopped"]


@dataclass
class Job:
    """One background job: what ran (as shown, with secret placeholders), where, and how it
    went."""

    number: int
    command: str
    cwd: str
    files: JobFiles
    pid: int | None
    asked: bool
    capture: OutputCapture
    # Whose command it is: the model's, or the user's edit of it at the confirm prompt.
    source: Literal["user", "model"]
    started: float = field(default_factory=time.monotonic)
    state: JobState = "running"
    exit_status: int | None = None
    ended: float | None = None
    # The read end of its output FIFO, until it has ended (-1 then).
    reader: int = -1
    # Set by whoever started it: what to finish when it ends (an undo snapshot), which says
    # what the user is told about it (`notice`).
    finish: Callable[[], str] | None = None
    notice: str = ""

    @property
    def running(self) -> bool:
        return self.state == "running"

    def runtime_s(self) -> float:
        return (self.ended if self.ended is not None else time.monotonic()) - self.started

    def output(self) -> str:
        return self.capture.result(self.command).text

    def last_line(self) -> str:
        lines = [line for line in self.output().splitlines() if line.strip()]
        return lines[-1] if lines else ""

    def as_command_run(self) -> CommandRun:
        """The finished job, as the next message tells the model."""
        how = "ran" if self.state == "done" else "was stopped when its shell closed"
        return CommandRun(
            command=self.command,
            exit_status=-1 if self.exit_status is None else self.exit_status,
            cwd_before=self.cwd,
            cwd_after=self.cwd,
            duration_s=self.runtime_s(),
            output=self.output(),
            source=self.source,
            notice=f"background job {self.number} (CMD&:) {how}; it ended since your last reply",
            asked=self.asked,
        )


class JobTable:
    """The background jobs aish started in one shell; see the module docstring."""

    def __init__(
        self,
        directory: Path,
        *,
        max_lines: int,
        max_bytes: int,
        on_end: Callable[[Job], None] | None = None,
        signals_reach: bool = True,
    ) -> None:
        self.directory = directory
        self.max_lines, self.max_bytes = max_lines, max_bytes
        self.on_end = on_end
        # The pids the shell reports are this process's to signal (not in a PID namespace).
        self._signals_reach = signals_reach
        self.jobs: list[Job] = []
        self._next = 1
        self._poller: asyncio.Task[None] | None = None
        self._ended = asyncio.Event()
        # The FIFOs opened for jobs reserved but not yet added: number → read end.
        self._readers: dict[int, int] = {}

    # ---- starting --------------------------------------------------------------------------

    def reserve(self) -> tuple[int, JobFiles]:
        """The next job's number and its fresh, private directory, with its output FIFO open
        for reading (so the job's opening it for writing does not wait); `forget` it if the
        job is not started."""
        number = self._next
        self._next += 1
        directory = self.directory / str(number)
        directory.mkdir(parents=True, mode=0o700)
        files = JobFiles(directory)
        os.mkfifo(files.output, 0o600)
        reader = os.open(files.output, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        with contextlib.suppress(OSError):  # a smaller pipe only makes the job wait sooner
            fcntl.fcntl(reader, fcntl.F_SETPIPE_SZ, PIPE_BYTES)
        self._readers[number] = reader
        return number, files

    def forget(self, number: int) -> None:
        """A reserved job that was not started: close its FIFO."""
        reader = self._readers.pop(number, -1)
        if reader >= 0:
            os.close(reader)

    def add(
        self,
        number: int,
        files: JobFiles,
        command: str,
        cwd: str,
        pid: int | None,
        *,
        asked: bool,
        source: Literal["user", "model"],
    ) -> Job:
        from aish.shell.capture import OutputCapture

        capture = OutputCapture(max_lines=self.max_lines, max_bytes=self.max_bytes, columns=160)
        job = Job(number, command, cwd, files, pid, asked, capture, source)
        job.reader = self._readers.pop(number, -1)
        self.jobs.append(job)
        if self._poller is None or self._poller.done():
            self._poller = asyncio.create_task(self._poll_while_running())
        return job

    # ---- reading ---------------------------------------------------------------------------

    def running(self) -> list[Job]:
        return [job for job in self.jobs if job.running]

    def find(self, number: int) -> Job | None:
        return next((job for job in self.jobs if job.number == number), None)

    def poll(self) -> list[Job]:
        """Read what the running jobs wrote; the jobs that ended since the last poll (each
        told to `on_end`)."""
        ended = []
        for job in self.running():
            status = _read_status(job.files)
            _read_output(job)
            if status is None:
                continue
            _read_output(job)  # what it wrote before the status
            _stop_reading(job)
            job.state, job.exit_status, job.ended = "done", status, time.monotonic()
            ended.append(job)
        for job in ended:
            self._tell(job)
        return ended

    async def wait_any(self, timeout_s: float) -> list[Job]:
        """Wait (at most `timeout_s`) until some running job ends; the jobs that ended."""
        before = {job.number for job in self.jobs if not job.running}
        self._ended.clear()
        if not self.poll() and self.running():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._ended.wait(), max(timeout_s, 0.0))
        return [job for job in self.jobs if not job.running and job.number not in before]

    async def _poll_while_running(self) -> None:
        while self.running():
            await asyncio.sleep(POLL_S)
            try:
                self.poll()
            except Exception:  # a broken read must not end the polling of the others
                _log.exception("reading the background jobs failed")

    def _tell(self, job: Job) -> None:
        self._ended.set()
        try:
            if job.finish is not None:
                job.notice = job.finish()
            if self.on_end is not None:
                self.on_end(job)
        except Exception:
            _log.exception("a job's end was not taken")

    # ---- the end ---------------------------------------------------------------------------

    def close(self) -> list[Job]:
        """Hang up the jobs still running; the jobs that were stopped (told to `on_end`)."""
        if self._poller is not None:
            self._poller.cancel()
        self.poll()
        stopped = self.running()
        for job in stopped:
            if self._signals_reach and job.pid is not None:
                _hang_up(job.pid)
            _read_output(job)
            # Whatever of it is still alive (a job aish cannot signal) ends at its next write.
            _stop_reading(job)
            job.state, job.ended = "stopped", time.monotonic()
        for number in list(self._readers):
            self.forget(number)
        for job in stopped:
            self._tell(job)
        return stopped


def _read_status(files: JobFiles) -> int | None:
    """The exit status once the job wrote it whole (a line), else None."""
    try:
        text = files.status.read_text()
    except OSError:
        return None
    if not text.endswith("\n"):
        return None
    try:
        return int(text.strip())
    except ValueError:
        return -1


def _read_output(job: Job) -> None:
    """Feed what is waiting in the job's FIFO (at most `DRAIN_BYTES`) to its capture: the
    newest `FEED_BYTES` of it, the rest counted as omitted. Never waits."""
    if job.reader < 0:
        return
    chunks: list[bytes] = []
    taken = 0
    while taken < DRAIN_BYTES:
        try:
            data = os.read(job.reader, min(_READ_BYTES, DRAIN_BYTES - taken))
        except BlockingIOError:  # nothing more waiting
            break
        except OSError:
            _log.exception("reading job %d's output failed", job.number)
            break
        if not data:  # no writer (yet, or any more)
            break
        chunks.append(data)
        taken += len(data)
    _feed_newest(job.capture, b"".join(chunks))


def _feed_newest(capture: OutputCapture, data: bytes) -> None:
    passed_over = max(0, len(data) - FEED_BYTES)
    if passed_over:
        capture.skip(passed_over)
    capture.feed(data[passed_over:])


def _stop_reading(job: Job) -> None:
    if job.reader >= 0:
        with contextlib.suppress(OSError):
            os.close(job.reader)
        job.reader = -1


def _hang_up(pid: int) -> None:
    """Hang up the job's process group (its own when the shell has job control), else it: a
    SIGHUP as the terminal's end would send, then SIGTERM (and SIGCONT, so a stopped job gets
    it) for a job that ignores hang-ups — one started under `nohup`, or from an aish that was:
    a job does not outlive the shell it was started in."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        group = os.getpgid(pid) == pid
        for signum in (signal.SIGHUP, signal.SIGTERM, signal.SIGCONT):
            if group:
                os.killpg(pid, signum)
            else:
                os.kill(pid, signum)
