"""A program's `--help` text, asked only of programs the system installed.

The program's name comes from a command line that may be the model's (the `[d]escribe`
prompt) or a cloned repository's, and running `NAME --help` runs NAME. So it is run only when
NAME, looked up in the system's own directories (never the user's PATH, never a path in the
word itself), is a file owned by root that nobody else may write, in a directory likewise;
with no input, no terminal, a deadline, a cap on output, an environment of its own (no
LD_PRELOAD, no user config) and an empty working directory (no project config).

Only compiled programs are asked: a shell script that does not know `--help` takes it as an
argument (`add-shell --help` appends "--help" to /etc/shells). And when aish runs as root the
program runs as `nobody`, so a program that misreads `--help` cannot change the system.
"""

from __future__ import annotations

import os
import pwd
import stat
import tempfile

from aish.explain.docs.bounded_run import clean_text, run_bounded

__all__ = ["SYSTEM_DIRS", "read_help_text", "system_program"]

SYSTEM_DIRS = ("/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin")
# Programs whose `--help` is not worth the risk of an implementation that ignores it.
_NEVER = frozenset(("halt", "poweroff", "reboot", "shutdown", "init", "telinit", "kexec"))
_TIMEOUT = 3.0
_LIMIT = 200_000


def system_program(name: str) -> str | None:
    """The path of program `name` in a system directory, when root alone could have put it
    there (following symlinks: `/usr/bin/java` → `/usr/lib/jvm/…`); None otherwise."""
    if name in _NEVER:
        return None
    for directory in SYSTEM_DIRS:
        path = os.path.join(directory, name)
        if not os.path.isfile(path) or not os.access(path, os.X_OK):
            continue
        real = os.path.realpath(path)
        if all(_root_only(p) for p in (directory, os.path.dirname(real), real)) and _compiled(real):
            return real
        return None  # the first match is what a system PATH would run
    return None


def read_help_text(name: str) -> str | None:
    """`name --help`, when `name` is a system program (see the module's docstring)."""
    path = system_program(name)
    if path is None:
        return None
    as_user = _unprivileged() if os.geteuid() == 0 else None
    with tempfile.TemporaryDirectory(prefix="aish-help-") as empty:
        if as_user is not None:
            os.chmod(empty, 0o711)  # nobody may enter it, not list or write it
        env = {
            "PATH": ":".join(SYSTEM_DIRS),
            "HOME": empty,
            "LC_ALL": "C.UTF-8",
            "TERM": "dumb",
            "NO_COLOR": "1",
            "COLUMNS": "100",
            "PAGER": "cat",
        }
        # argv[0] is the name as typed: multi-call programs (busybox) read it.
        raw = run_bounded(
            [name, "--help"],
            env=env,
            cwd=empty,
            timeout=_TIMEOUT,
            limit=_LIMIT,
            executable=path,
            as_user=as_user,
        )
    text = clean_text(raw) if raw else ""
    return text if text.strip() else None


def _compiled(path: str) -> bool:
    """An ELF executable, not a script run by an interpreter."""
    try:
        with open(path, "rb") as program:
            return program.read(4) == b"\x7fELF"
    except OSError:
        return False


def _unprivileged() -> tuple[int, int]:
    """(uid, gid) of `nobody`, or the customary 65534 when the system has no such user."""
    try:
        entry = pwd.getpwnam("nobody")
    except KeyError:
        return 65534, 65534
    return entry.pw_uid, entry.pw_gid


def _root_only(path: str) -> bool:
    try:
        info = os.stat(path)
    except OSError:
        return False
    return info.st_uid == 0 and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
