"""How the shell is launched: which shell, the rc files aish generates for it, and its
environment.

bash gets ``--noprofile --rcfile <rc> -i``, the rc being a copy of ``integration.bash`` (it
sources the user's rc files itself). zsh gets a private ``ZDOTDIR`` whose ``.zshenv`` and
``.zshrc`` load the user's own files (from the user's ``ZDOTDIR`` or ``$HOME``), then
``integration.zsh``; ``ZDOTDIR`` is put back before the user's ``.zshrc`` runs, so the user's
history file and any zsh started from this one find the user's files.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

__all__ = ["LaunchSpec", "choose_shell", "shell_environment", "shell_kind", "write_rc_files"]

_HERE = Path(__file__).resolve().parent

_ZSHENV = """\
# Written by aish: zsh reads this because aish pointed ZDOTDIR here. Load the user's own .zshenv.
__aish_zdotdir=$ZDOTDIR
if (( ${+AISH_USER_ZDOTDIR} )); then ZDOTDIR=$AISH_USER_ZDOTDIR; else unset ZDOTDIR; fi
if [[ -n ${AISH_CWD-} ]]; then
  __aish_oldpwd=${OLDPWD-}
  builtin cd -q -- "$AISH_CWD" 2>/dev/null
  OLDPWD=$__aish_oldpwd
  unset __aish_oldpwd
fi
[[ -r ${ZDOTDIR:-$HOME}/.zshenv ]] && builtin source "${ZDOTDIR:-$HOME}/.zshenv"
# The user's .zshenv may move ZDOTDIR; .zshrc must find the user's files there.
if (( ${+ZDOTDIR} )); then __aish_user_zdotdir=$ZDOTDIR; else unset __aish_user_zdotdir; fi
ZDOTDIR=$__aish_zdotdir
unset __aish_zdotdir AISH_USER_ZDOTDIR AISH_CWD
"""

_ZSHRC = """\
# Written by aish: the user's .zshrc, then aish's hooks.
if (( ${{+__aish_user_zdotdir}} )); then ZDOTDIR=$__aish_user_zdotdir; else unset ZDOTDIR; fi
unset __aish_user_zdotdir
[[ -r ${{ZDOTDIR:-$HOME}}/.zshrc ]] && builtin source "${{ZDOTDIR:-$HOME}}/.zshrc"
builtin source {integration}
"""


@dataclass(frozen=True)
class LaunchSpec:
    """What every shell of one session is started with (a respawned one too)."""

    shell_path: str
    kind: str  # "bash" or "zsh"
    env: Mapping[str, str] = field(repr=False)
    rcfile_dir: Path
    # A command line the shell is started through (a sandbox's launcher); () starts it directly.
    wrapper: tuple[str, ...] = ()
    # The shell's own pid as it sees it ($$, which names its report files): 1 when the wrapper
    # starts it as a PID namespace's first process; None: its pid as aish sees it.
    pid_inside: int | None = None


def shell_kind(path: str) -> str | None:
    """'bash' or 'zsh' for a shell aish knows how to integrate with, else None."""
    match = re.fullmatch(r"(bash|zsh)(-?[0-9.]+)?", os.path.basename(path))
    return match.group(1) if match else None


def choose_shell(shell: str | None, env: Mapping[str, str]) -> tuple[str, str]:
    """Resolve the shell to run: (absolute path, kind).

    An explicit ``shell`` must be bash or zsh; otherwise ``$SHELL`` is used when it is one of
    them, and bash when it is not (aish has no integration for fish or tcsh).
    """
    search = env.get("PATH", os.defpath)
    if shell is not None:
        kind = shell_kind(shell)
        if kind is None:
            raise ValueError(f"unsupported shell {shell!r}: aish integrates with bash and zsh")
        path = shutil.which(shell, path=search)
        if path is None:
            raise FileNotFoundError(f"shell not found: {shell}")
        return os.path.abspath(path), kind
    user = env.get("SHELL", "")
    user_kind = shell_kind(user) if user else None
    if user_kind is not None:
        path = shutil.which(user, path=search)
        if path is not None:
            return os.path.abspath(path), user_kind
    path = shutil.which("bash", path=search) or "/bin/bash"
    return os.path.abspath(path), "bash"


def shell_environment(
    env: Mapping[str, str], kind: str, *, nonce: str, cwd: str, extra: Mapping[str, str]
) -> dict[str, str]:
    """The shell's environment: the user's, plus what the integration script reads (and
    unsets at once, so that programs run from the shell never see the nonce)."""
    child = dict(env)
    # The PTY's size is the truth; inherited COLUMNS/LINES would override it in bash.
    child.pop("COLUMNS", None)
    child.pop("LINES", None)
    if kind == "zsh" and "ZDOTDIR" in child:
        child["AISH_USER_ZDOTDIR"] = child["ZDOTDIR"]
    child.update(extra)
    child.setdefault("TERM", "xterm-256color")
    child["AISH"] = "1"  # lets the user's rc files know they run under aish
    child["AISH_NONCE"] = nonce
    child["AISH_CWD"] = cwd  # posix_spawn cannot chdir (before Python 3.13): the rc does `cd`
    return child


@cache
def _integration_text(name: str) -> str:
    return (_HERE / name).read_text(encoding="utf-8")


def _write(path: Path, text: str) -> None:
    """Write atomically, so that two sessions sharing a directory never read half a file."""
    if path.exists() and path.read_text(encoding="utf-8") == text:
        return
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def write_rc_files(kind: str, rcfile_dir: Path) -> tuple[list[str], dict[str, str]]:
    """Write the generated rc files for ``kind``; return the shell's arguments and extra env."""
    rcfile_dir.mkdir(parents=True, exist_ok=True)
    if kind == "bash":
        rc = rcfile_dir / "aish-integration.bash"
        _write(rc, _integration_text("integration.bash"))
        return ["--noprofile", "--rcfile", str(rc), "-i"], {}
    integration = rcfile_dir / "aish-integration.zsh"
    _write(integration, _integration_text("integration.zsh"))
    _write(rcfile_dir / ".zshenv", _ZSHENV)
    quoted = "'" + str(integration).replace("'", "'\\''") + "'"
    _write(rcfile_dir / ".zshrc", _ZSHRC.format(integration=quoted))
    return ["-i"], {"ZDOTDIR": str(rcfile_dir)}
