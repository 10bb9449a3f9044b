"""A bash builtin's own help (`help cd`): bash runs the builtin, not a program of that name,
so its man page (when one exists, as for `echo`) may describe something else."""

from __future__ import annotations

import shutil

from aish.explain.docs.bounded_run import clean_text, run_bounded

__all__ = ["BUILTINS", "read_builtin_help"]

_NAMES = """. : [ alias bg bind break builtin caller cd command compgen complete compopt continue
    declare dirs disown echo enable eval exec exit export false fc fg getopts hash help history
    jobs kill let local logout mapfile popd printf pushd pwd read readarray readonly return set
    shift shopt source suspend test times trap true type typeset ulimit umask unalias unset
    wait"""
BUILTINS = frozenset(_NAMES.split())


def read_builtin_help(name: str) -> str | None:
    """bash's `help NAME` for a builtin; None for anything else."""
    bash = shutil.which("bash", path="/usr/bin:/bin")
    if name not in BUILTINS or bash is None:
        return None
    # The name is an argument of the script, never part of it.
    argv = [bash, "--norc", "--noprofile", "-c", 'help -- "$1"', "bash", name]
    raw = run_bounded(argv, env={"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"}, cwd="/", timeout=3)
    text = clean_text(raw) if raw else ""
    return text if text.strip() and not text.startswith("bash:") else None
