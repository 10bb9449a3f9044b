"""Showing a proposed diff and getting it applied: the dry run, the apply command, the colours.

Nothing here applies a diff. `check_diff` asks `git apply --check` (in a git work tree) or
`patch --dry-run` (elsewhere) whether it would apply; `apply_command` writes the diff to a
private file and returns the shell command that applies it, so the command goes through the
gate as a write and runs in the user's shell like any other. Git runs with `core.fsmonitor` and
`core.hooksPath` emptied so a hostile repository config cannot start a program on our behalf.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shlex
import subprocess
import tempfile
import time
from pathlib import Path

import platformdirs

from aish.agent.diffs import ProposedDiff, file_sections, file_summary
from aish.ui.render.visible_text import visible

CHECK_TIMEOUT = 10.0
# A repository's own config must not run programs while we only ask questions.
_GIT = ("git", "-c", "core.fsmonitor=", "-c", "core.hooksPath=/dev/null")
# No fuzz: a hunk applies where its context matches exactly, as with `git apply`.
_PATCH_OPTIONS = ("-p1", "--forward", "--batch", "--fuzz=0")
_REASON_LIMIT = 200
# Diff files older than this are removed the next time one is written.
_KEEP_SECONDS = 24 * 3600

_STYLES = {"+": "green", "-": "red", "@": "cyan", "\\": "dim"}


async def check_diff(
    diff: ProposedDiff, cwd: str, *, timeout: float = CHECK_TIMEOUT
) -> tuple[bool, str]:
    """Would it apply? In a git work tree: `git apply --check`; elsewhere `patch -p1 --dry-run`
    (never asking a question). Returns (ok, one-line reason)."""
    if await _run_quiet([*_GIT, "rev-parse", "--is-inside-work-tree"], cwd, timeout) == "true":
        # The check must not run the repository's filter programs either: every driver its
        # config names is emptied (the config is listed, nothing is run to list it).
        from aish.quiet_git import filter_overrides

        names = await _run_quiet(
            [*_GIT, "config", "--list", "--name-only", "--includes", "-z"], cwd, timeout
        )
        overrides = filter_overrides([n for n in names.split("\0") if n])
        argv, tool = [*_GIT, *overrides, "apply", "--check"], "git apply --check"
    else:
        argv, tool = ["patch", *_PATCH_OPTIONS, "--dry-run"], "patch --dry-run"
    try:
        process = await asyncio.create_subprocess_exec(
            *argv,
            cwd=cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            env=_environment(),
        )
    except FileNotFoundError:
        return False, f"{argv[0]} is not installed"
    except OSError as error:
        return False, f"{tool} could not start: {error.strerror or error}"
    try:
        output, _ = await asyncio.wait_for(process.communicate(diff.text.encode()), timeout)
    except TimeoutError:
        process.kill()
        await process.wait()
        return False, f"{tool} took longer than {timeout:g}s"
    if process.returncode == 0:
        return True, f"applies cleanly ({tool})"
    return False, _reason(output.decode(errors="replace"), tool)


def apply_command(diff: ProposedDiff, cwd: str) -> str:
    """The shell command that applies it, for the gate to judge and the user's shell to run.

    The diff goes to a 0600 file under the user's cache dir; the command is `git apply
    --whitespace=nowarn <file>` in a git work tree, else `patch -p1 --forward --batch --fuzz=0 -i
    <file>`, shell-quoted."""
    path = _write_diff_file(diff)
    # In `cwd` — the directory it was checked in — wherever the user's shell happens to be.
    if _in_git_work_tree(cwd):
        return shlex.join(["git", "-C", cwd, "apply", "--whitespace=nowarn", path])
    return shlex.join(["patch", "-d", cwd, *_PATCH_OPTIONS, "-i", path])


def render_diff(diff: ProposedDiff, *, color: bool, width: int) -> str:
    """The diff for the terminal: a header line per file with its +/- counts, then its hunks;
    with color `+` green, `-` red, `@@` cyan. Control characters are made visible."""
    lines: list[tuple[str, str]] = []
    for change, section in file_sections(diff):
        title = f"── {visible(file_summary(change))} "
        lines.append((title + "─" * max(0, width - len(title)), "bold"))
        hunks = section[next((i for i, x in enumerate(section) if x.startswith("@@")), 0) :]
        for line in hunks:
            lines.append((visible(line), _STYLES.get(line[:1], "")))
    if not color:
        return "".join(text + "\n" for text, _ in lines)
    return _colored(lines, width)


def _colored(lines: list[tuple[str, str]], width: int) -> str:
    import io

    from rich.console import Console  # deferred: start-up does not need rich
    from rich.text import Text

    buffer = io.StringIO()
    console = Console(
        file=buffer,
        force_terminal=True,
        color_system="standard",
        width=max(width, 20),
        highlight=False,
        markup=False,
        emoji=False,
        soft_wrap=True,
    )
    for text, style in lines:
        console.print(Text(text, style=style))
    return buffer.getvalue()


def _reason(output: str, tool: str) -> str:
    """The lines that say why, on one line: git's `error:` lines, patch's FAILED and friends."""
    wanted = []
    for line in output.splitlines():
        line = line.strip()
        if not line or line.startswith(("checking file ", "patching file ", "Checking patch ")):
            continue
        wanted.append(line.removeprefix("error: "))
    text = "; ".join(dict.fromkeys(wanted)) or f"{tool} failed"
    text = visible(text)
    return text if len(text) <= _REASON_LIMIT else text[: _REASON_LIMIT - 1] + "…"


async def _run_quiet(argv: list[str], cwd: str, timeout: float) -> str:
    try:
        process = await asyncio.create_subprocess_exec(
            *argv,
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=_environment(),
        )
    except OSError:
        return ""
    try:
        output, _ = await asyncio.wait_for(process.communicate(), timeout)
    except TimeoutError:
        process.kill()
        await process.wait()
        return ""
    return output.decode(errors="replace").strip()


def _in_git_work_tree(cwd: str) -> bool:
    try:
        result = subprocess.run(
            [*_GIT, "rev-parse", "--is-inside-work-tree"],
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=CHECK_TIMEOUT,
            env=_environment(),
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return result.stdout.strip() == "true"


def _environment() -> dict[str, str]:
    # English messages for the reason line; never a credential prompt.
    return {**os.environ, "LC_ALL": "C", "GIT_TERMINAL_PROMPT": "0", "AISH_GIT_EMPTY": ""}


def diff_dir() -> Path:
    """Where diffs waiting to be applied are written (`$XDG_CACHE_HOME/aish/diffs`)."""
    return platformdirs.user_cache_path("aish") / "diffs"


def _write_diff_file(diff: ProposedDiff) -> str:
    directory = diff_dir()
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    _remove_old(directory)
    descriptor, path = tempfile.mkstemp(prefix="diff-", suffix=".patch", dir=directory)
    with os.fdopen(descriptor, "w", encoding="utf-8", newline="\n") as file:
        file.write(diff.text)
    return path


def _remove_old(directory: Path) -> None:
    cutoff = time.time() - _KEEP_SECONDS
    for entry in directory.glob("diff-*.patch"):
        with contextlib.suppress(OSError):
            if entry.stat().st_mtime < cutoff:
                entry.unlink()
