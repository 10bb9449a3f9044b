"""The `[project]` block that `:context` puts into the newest user message.

It holds the project root (the git work tree's top, else the cwd), the branch and a bounded
`git status --short`, a bounded file tree that respects `.gitignore` (see `file_tree`), and the
first lines of the key manifests in the root. Outside git, or when git is missing, refuses the
repository or times out, the root line says so and the tree comes from a plain directory walk.

The repository is untrusted: it may come from a clone, and its `.git/config` (or a file that
config includes, or a bare repository nested in a work tree) may name programs. Only `git` is
run, with `stdin` closed, a timeout of `GIT_TIMEOUT` seconds per call (a huge repository must
not hang aish; the process group is killed) and bounded output, as a quiet git
(`aish.quiet_git`: no fsmonitor, filter driver, pager, hook or transport runs). If the config
cannot be listed, `status` is not run at all. The user's own drivers (Git LFS) are disabled
too, so such a file whose timestamp changed may be listed as modified. `status` also runs with
`--no-renames` (no blobs wanted) and `--ignore-submodules=all` (no git inside a submodule with
its own config).

Text from the repository (file names, branch names, manifest lines) is escaped by
`file_tree.printable` and indented, so it cannot forge the block's own lines; manifests are read
by `file_tree.read_manifests`, which reads no file outside the project.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import time
from dataclasses import dataclass, field

from aish.agent.project.file_tree import (
    cut_line,
    printable,
    read_manifests,
    render_tree,
    walk_files,
)
from aish.quiet_git import LIST_CONFIG_NAMES, SAFE_OPTIONS, environment, filter_overrides

__all__ = ["GIT_TIMEOUT", "SummaryLimits", "project_summary"]

GIT_TIMEOUT = 3.0
MAX_GIT_OUTPUT = 4 * 1024 * 1024
MAX_WALK_ENTRIES = 20_000
STATUS_LINE_CHARS = 200
_MIN_TREE_FILES = 10

BEGIN = "[project]"
END = "[end of project]"


@dataclass(frozen=True)
class SummaryLimits:
    """Bounds of the `[project]` block."""

    max_files: int = 200  # tree entries shown
    max_depth: int = 4
    max_status_lines: int = 30
    manifest_lines: int = 15  # first lines of each manifest
    max_chars: int = 12_000  # the whole block


class _GitUnavailable(Exception):
    """git could not answer at all: not installed, could not start, or timed out."""


@dataclass(frozen=True)
class _GitOutput:
    returncode: int
    stdout: bytes
    stderr: str
    cut: bool  # stdout reached MAX_GIT_OUTPUT and git was stopped

    @property
    def failed(self) -> bool:
        return self.returncode != 0 and not self.cut

    def records(self) -> list[str]:
        """The NUL-separated records of stdout; a last record cut short is left out."""
        records = self.stdout.split(b"\0")
        if self.cut:
            records = records[:-1]
        return [os.fsdecode(record) for record in records if record]


@dataclass
class _GitView:
    """What git said about the cwd; `root` is None outside a usable work tree."""

    note: str
    root: str | None = None
    status: list[str] = field(default_factory=list)
    status_note: str = ""
    status_cut: bool = False
    paths: list[str] | None = None
    paths_note: str = ""
    paths_cut: bool = False


async def _read(stream: asyncio.StreamReader | None, limit: int) -> tuple[bytes, bool]:
    """Up to `limit` bytes of `stream`; True when there was more."""
    data = bytearray()
    while stream is not None:
        chunk = await stream.read(65536)
        if not chunk:
            break
        data += chunk
        if len(data) >= limit:
            return bytes(data[:limit]), True
    return bytes(data), False


async def _drain(stream: asyncio.StreamReader | None, keep: int) -> bytes:
    """All of `stream` read (so git never blocks on a full pipe), the first `keep` bytes kept."""
    data = bytearray()
    while stream is not None:
        chunk = await stream.read(65536)
        if not chunk:
            break
        if len(data) < keep:
            data += chunk[: keep - len(data)]
    return bytes(data)


def _kill(process: asyncio.subprocess.Process) -> None:
    """Kill git and anything it started (its own session).

    Not `process.kill()`: `Popen.send_signal` polls first and may reap the child behind the
    event loop's child watcher, which then reports a bogus exit status.
    """
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)


async def _git(cwd: str, *args: str, overrides: tuple[str, ...] = ()) -> _GitOutput:
    git = shutil.which("git")
    if git is None:
        raise _GitUnavailable("git not found")
    try:
        process = await asyncio.create_subprocess_exec(
            git,
            *SAFE_OPTIONS,
            *overrides,
            *args,
            cwd=cwd,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=environment(os.environ),
            start_new_session=True,
        )
    except OSError as error:
        raise _GitUnavailable(f"git could not start: {error.strerror or error}") from error
    stderr_task = asyncio.ensure_future(_drain(process.stderr, 4096))
    try:
        async with asyncio.timeout(GIT_TIMEOUT):
            stdout, cut = await _read(process.stdout, MAX_GIT_OUTPUT)
            if cut:
                _kill(process)  # before waiting for stderr, which ends only when git does
            stderr = await stderr_task
            returncode = await process.wait()
    except TimeoutError:
        stderr_task.cancel()
        _kill(process)
        await process.wait()
        raise _GitUnavailable(f"git timed out after {GIT_TIMEOUT:g} s") from None
    return _GitOutput(returncode, stdout, stderr.decode("utf-8", "replace"), cut)


def _failure(output: _GitOutput) -> str:
    message = output.stderr.lower()
    if "not a git repository" in message:
        return "not a git repository"
    if "must be run in a work tree" in message:
        return "inside a git directory, not a work tree"
    if "dubious ownership" in message:
        return "git refused the repository: dubious ownership (see safe.directory)"
    first = next((line for line in output.stderr.splitlines() if line.strip()), "")
    first = first.removeprefix("fatal: ").strip() or f"exit status {output.returncode}"
    return "git failed: " + cut_line(printable(first), 120)


def parse_status(records: list[str]) -> tuple[str, list[str]]:
    """The branch text and the entry lines of `git status --short --branch -z` records."""
    records = records[:]
    branch = ""
    if records and records[0].startswith("## "):
        header = records.pop(0)[3:]
        for prefix in ("No commits yet on ", "Initial commit on "):
            if header.startswith(prefix):
                header = header[len(prefix) :] + " (no commits yet)"
        branch = "detached HEAD" if header.startswith("HEAD (no branch)") else header
    return printable(branch), [printable(record) for record in records]


async def _status(root: str, view: _GitView) -> None:
    try:
        config = await _git(root, *LIST_CONFIG_NAMES)
        if config.returncode != 0 or config.cut:
            view.status_note = "not run: the repository config could not be listed"
            return
        names = config.records()
        output = await _git(
            root,
            "status",
            "--short",
            "--branch",
            "-z",
            "--untracked-files=normal",
            "--ignore-submodules=all",
            "--no-renames",
            overrides=filter_overrides(names),
        )
    except _GitUnavailable as error:
        view.status_note = str(error)
        return
    if output.failed:
        view.status_note = _failure(output)
        return
    branch, view.status = parse_status(output.records())
    view.status_cut = output.cut
    view.note = f"git, branch {branch}" if branch else "git"


async def _paths(root: str, view: _GitView) -> None:
    try:
        output = await _git(root, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
    except _GitUnavailable as error:
        view.paths_note = f"{error}; plain directory walk"
        return
    if output.failed:
        view.paths_note = f"{_failure(output)}; plain directory walk"
        return
    view.paths = output.records()
    view.paths_cut = output.cut


async def _look(cwd: str) -> _GitView:
    try:
        output = await _git(cwd, "rev-parse", "--show-toplevel")
    except _GitUnavailable as error:
        return _GitView(note=f"{error}; plain directory")
    if output.returncode != 0:
        return _GitView(note=_failure(output))
    root = os.fsdecode(output.stdout.rstrip(b"\n"))
    view = _GitView(note="git", root=root)
    await asyncio.gather(_status(root, view), _paths(root, view))
    return view


def _root_line(root: str, view: _GitView) -> str:
    parts = [view.note]
    if view.root is not None and not view.status_note:
        changed = sum(1 for line in view.status if not line.startswith("??"))
        untracked = len(view.status) - changed
        at_least = "at least " if view.status_cut else ""
        if changed:
            parts.append(f"{at_least}{changed} changed")
        if untracked:
            parts.append(f"{at_least}{untracked} untracked")
        if not view.status:
            parts.append("clean")
    return f"root: {printable(root)} ({', '.join(parts)})"


def _status_lines(view: _GitView, limits: SummaryLimits) -> list[str]:
    if view.root is None:
        return []
    if view.status_note:
        return [f"status: {view.status_note}"]
    if not view.status:
        return []
    shown = view.status[: max(limits.max_status_lines, 0)]
    lines = ["status:", *("  " + cut_line(line, STATUS_LINE_CHARS) for line in shown)]
    if len(view.status) > len(shown):
        more = len(view.status) - len(shown)
        lines.append(f"  (+{'at least ' if view.status_cut else ''}{more} more)")
    return lines


def _tree_lines(
    paths: list[str], complete: bool, note: str, max_files: int, depth: int
) -> list[str]:
    tree, total, shown = render_tree(paths, max_files=max_files, max_depth=depth)
    count = f"{total}" if complete else f"at least {total} (listing cut)"
    header = f"files: {count}" if shown >= total else f"files: {count}, {shown} entries shown"
    if note:
        header += f" [{note}]"
    return [header, *tree]


def _fit(head: list[str], tree: list[str], tail: list[str], max_chars: int) -> tuple[str, bool]:
    """The block, cut at a line to `max_chars` when it is longer; True when it was cut."""
    lines = [BEGIN, *head, *tree, *tail]
    text = "\n".join([*lines, END])
    if len(text) <= max_chars:
        return text, False
    note = f"(summary cut at {max_chars} characters)"
    budget = max_chars - len(END) - len(note) - 2
    kept: list[str] = []
    for line in lines:
        budget -= len(line) + 1
        if budget < 0:
            break
        kept.append(line)
    return "\n".join([*kept, note, END]), True


async def project_summary(cwd: str, limits: SummaryLimits = SummaryLimits()) -> str:
    """The `[project]` block (text) for the newest user message.

    Works outside git too: a plain directory walk, skipping the usual junk directories.
    """
    cwd = os.path.abspath(cwd)
    if not os.path.isdir(cwd):
        return "\n".join([BEGIN, f"root: {printable(cwd)} (not a directory)", END])
    view = await _look(cwd)
    root = view.root or cwd
    if view.paths is not None:
        paths, complete = view.paths, not view.paths_cut
    else:
        deadline = time.monotonic() + GIT_TIMEOUT
        walk = await asyncio.to_thread(
            walk_files, root, max_entries=MAX_WALK_ENTRIES, deadline=deadline
        )
        paths, complete = walk.paths, walk.complete
    manifests = await asyncio.to_thread(read_manifests, root, limits.manifest_lines)
    head = [_root_line(root, view), *_status_lines(view, limits)]
    max_files = max(limits.max_files, 0)
    while True:
        tree = _tree_lines(paths, complete, view.paths_note, max_files, limits.max_depth)
        text, cut = _fit(head, tree, manifests, limits.max_chars)
        if not cut or max_files <= _MIN_TREE_FILES:
            return text
        max_files //= 2  # a smaller tree before cutting manifests off
