"""Asking a read-only program what a command would touch: `find` listing what `-delete` would
delete, `git clean -n`, `git diff --name-only`. One way to run them: the system's copy (never
what the shell's PATH finds first), no terminal, no stdin, a timeout, NUL-separated output.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Sequence

from aish import quiet_git
from aish.run.undo.programs import Unpredictable

__all__ = ["probe"]

_SYSTEM_PATH = "/usr/bin:/bin:/usr/local/bin"
# Whatever budget is left, a probe gets at least this long: starting git takes a few ms.
_MIN_TIMEOUT_S = 0.3
# A listing longer than this is not worth showing or snapshotting file by file.
_MAX_OUTPUT = 32 * 1024 * 1024


def probe(program: str, args: Sequence[str], cwd: str, timeout_s: float) -> bytes:
    """The standard output of `program args` run in `cwd`; `Unpredictable` when it cannot run,
    takes too long, or fails without output. git runs quiet (`aish.quiet_git`): its callers put
    `SAFE_OPTIONS` and the filter overrides first, and its environment is made safe here."""
    found = shutil.which(program, path=_SYSTEM_PATH)
    if found is None:
        raise Unpredictable(f"{program} is not installed")
    env = {"PATH": _SYSTEM_PATH, "HOME": os.environ.get("HOME", "/"), "LC_ALL": "C"}
    if program == "git":
        env = quiet_git.environment(env)
    try:
        done = subprocess.run(
            [found, *args],
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            timeout=max(timeout_s, _MIN_TIMEOUT_S),
            check=False,
        )
    except subprocess.TimeoutExpired as late:
        raise Unpredictable(f"{program} took too long to list what it would touch") from late
    except OSError as error:
        raise Unpredictable(f"{program} could not run: {error.strerror}") from error
    if len(done.stdout) > _MAX_OUTPUT:
        raise Unpredictable(f"{program} lists too much to show")
    if done.returncode != 0 and not done.stdout:
        raise Unpredictable(f"{program} could not say what it would touch")
    return done.stdout
