"""The live shell's exported variables, as another shell started for the user should get them.

On request the integration script writes the shell's exported variables to a private file in
aish's rc-file directory, as ``NAME=value`` entries each ended by NUL, then prints one marker.
A file and NUL separators because values may hold any byte but NUL — newlines, control bytes,
``=``, invalid UTF-8, even a marker's own bytes — and a PTY is no place for that: the line
discipline rewrites newlines, and markers are capped in size. This module names that file and
turns its bytes into an environment.

Bytes that are not valid in the locale's encoding are kept, decoded with ``surrogateescape`` (as
``os.environ`` does): ``os.posix_spawn`` and ``subprocess`` encode them back to the very same
bytes, so a Latin-1 path in a variable reaches the other shell intact instead of vanishing.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

__all__ = ["DROPPED", "parse_environment", "prepare_report", "report_path"]

# Variables that describe the reporting shell rather than the user's environment; another shell
# must make its own (or, for aish's, must never see them).
DROPPED = frozenset(
    {
        # Its working directory and `cd -` target: the other shell has its own cwd, and bash
        # would trust an inherited PWD that happens to name it.
        "PWD",
        "OLDPWD",
        # How deeply this shell is nested; the other one is not nested in it.
        "SHLVL",
        # The last argument of this shell's previous command.
        "_",
        # This shell's terminal size; the other shell's PTY has its own (launch drops them too).
        "COLUMNS",
        "LINES",
        # Exported or not, aish overwrites these with markers that carry this shell's nonce,
        # and the other shell installs its own.
        "PS0",
        "PS1",
        "PS2",
        "PROMPT_COMMAND",
        # bash exports these to the key binding that writes the report, and only to it.
        "READLINE_ARGUMENT",
        "READLINE_LINE",
        "READLINE_MARK",
        "READLINE_POINT",
        # Startup files that every non-interactive shell the agent starts (each script,
        # each `bash -c`) would source before doing anything: code nobody approved.
        "BASH_ENV",
        "ENV",
        # What aish hands the integration script at launch (it unsets them at once; dropped in
        # case a user's rc file copied them). AISH=1 itself is kept: it only says "under aish".
        "AISH_NONCE",
        "AISH_CWD",
        "AISH_USER_ZDOTDIR",
    }
)
_PRIVATE_PREFIX = "__aish"  # the integration scripts' own variables
_ZDOTDIR = "ZDOTDIR"  # dropped only while it names aish's rc-file directory


def report_path(rcfile_dir: Path, shell_pid: int) -> Path:
    """Where the shell with ``shell_pid`` writes its exported variables (the scripts agree)."""
    return rcfile_dir / f"aish-env.{shell_pid}"


def prepare_report(path: Path) -> None:
    """Create ``path`` empty and readable by the user alone, whatever the shell's umask: the
    shell truncates and fills it, and the mode stays (the directory may be caller-given)."""
    with contextlib.suppress(FileNotFoundError):
        path.unlink()  # left by an earlier shell with the same pid that was never answered
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600))


def parse_environment(data: bytes, *, rcfile_dir: Path) -> dict[str, str]:
    """The report's variables (split at NUL, then at the first ``=``) without :data:`DROPPED`,
    aish's own ``__aish*`` ones, and a ``ZDOTDIR`` that names aish's directory (for zsh aish
    points it there only while the shell starts; a user's own ZDOTDIR is kept)."""
    aish_dir = os.path.realpath(rcfile_dir)
    env: dict[str, str] = {}
    for entry in data.split(b"\0"):
        raw_name, equals, raw_value = entry.partition(b"=")
        if not raw_name or not equals:
            continue
        name, value = os.fsdecode(raw_name), os.fsdecode(raw_value)
        if name in DROPPED or name.startswith(_PRIVATE_PREFIX):
            continue
        if name == _ZDOTDIR and value and os.path.realpath(value) == aish_dir:
            continue
        env[name] = value
    return env
