"""`exec bash`, `exec zsh`, `exec "$SHELL"`: a fresh shell, as people type to read their rc
files again.

Typed into aish's shell as it is, the new shell would take the old one's place without aish's
integration: no markers, so aish would wait on a bare bash until it exited. Instead the line is
read here and aish's shell is replaced the same way exec would (`ShellSession.replace`): the
exported variables and the directory carry over, the rc files are read again. Only the plain
forms count; `exec bash -c …`, `exec bash script`, a redirection or a second command run as
typed.
"""

from __future__ import annotations

import re
import shlex

from aish.shell.launch import shell_kind

__all__ = ["replacement_shell"]

# Options that still mean "an interactive shell, read your rc files". A login shell (`-l`)
# would read the profile files instead, which aish's integration cannot ride along with: it is
# started as an interactive one all the same.
_PLAIN_OPTIONS = frozenset(("-l", "--login", "-i"))
_NOT_ONE_COMMAND = re.compile(r"[;&|<>`()\n]|\$\(")
_USERS_SHELL = frozenset(("$SHELL", "${SHELL}"))


def replacement_shell(line: str, users_shell: str) -> str | None:
    """The shell `line` execs in place of this one (a name or a path, `$SHELL` resolved to
    `users_shell`), or None when the line is anything else."""
    if _NOT_ONE_COMMAND.search(line):
        return None
    try:
        words = shlex.split(line)
    except ValueError:
        return None
    if len(words) < 2 or words[0] != "exec":
        return None
    rest = words[1:]
    if rest[0] == "-l":  # exec's own -l: a login shell's dash in argv[0]
        rest = rest[1:]
    if not rest:
        return None
    program = users_shell if rest[0] in _USERS_SHELL else rest[0]
    if not program or shell_kind(program) is None:
        return None
    if any(word not in _PLAIN_OPTIONS for word in rest[1:]):
        return None
    return program
