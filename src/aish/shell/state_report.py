"""How the live shell resolves command names, as its integration script reports it.

The safety gate judges a command by what the shell that will run it does with each name: an
alias or a function runs its body, a hashed name runs the remembered path, a builtin runs in
the shell, anything else is searched in PATH. Those tables live in the shell process and change
with every `alias`, function definition, `hash -p` or `BASH_CMDS[ls]=…`, so aish asks the shell
itself (a readline binding / ZLE widget, no history entry, $? kept) right before judging.

The script writes NUL-separated records to a private file: ``alias NAME VALUE``, ``global_alias
NAME VALUE`` (zsh), ``function NAME BODY``, ``hashed NAME PATH``, ``builtin NAME``, ``path
VALUE``, ``cwd VALUE`` and ``env NAME VALUE``. This module turns those bytes into a
:class:`ShellStateReport`. Pure.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["ShellStateReport", "parse_state_report", "state_report_path"]

# How many fields follow each tag.
_FIELDS = {
    "alias": 2,
    "global_alias": 2,
    "function": 2,
    "hashed": 2,
    "builtin": 1,
    "path": 1,
    "cwd": 1,
    "env": 2,
}


@dataclass(frozen=True)
class ShellStateReport:
    """One snapshot of a shell's name tables. `digest` identifies the snapshot: two reports with
    the same bytes are the same state (so verdicts judged against one hold for the other)."""

    aliases: dict[str, str] = field(default_factory=dict)
    global_aliases: dict[str, str] = field(default_factory=dict)
    functions: dict[str, str] = field(default_factory=dict)
    hashed: dict[str, str] = field(default_factory=dict)
    builtins: frozenset[str] = frozenset()
    path: str = ""
    cwd: str = ""
    env: dict[str, str] = field(default_factory=dict)
    digest: str = ""


def state_report_path(rcfile_dir: Path, shell_pid: int) -> Path:
    """Where the shell with ``shell_pid`` writes its state report (the scripts agree)."""
    return rcfile_dir / f"aish-state.{shell_pid}"


def parse_state_report(data: bytes) -> ShellStateReport:
    """The report's tables. A record cut short (a full disk) ends the report: what came before
    it stands, and a name whose record is missing is simply not known to be special."""
    import hashlib

    fields = [os.fsdecode(part) for part in data.split(b"\0")]
    tables: dict[str, dict[str, str]] = {
        "alias": {},
        "global_alias": {},
        "function": {},
        "hashed": {},
        "env": {},
    }
    builtins: set[str] = set()
    single = {"path": "", "cwd": ""}
    index = 0
    while index < len(fields):
        tag = fields[index]
        count = _FIELDS.get(tag)
        if count is None or index + count >= len(fields):
            break
        values = fields[index + 1 : index + 1 + count]
        index += 1 + count
        if tag == "builtin":
            builtins.add(values[0])
        elif tag in single:
            single[tag] = values[0]
        else:
            tables[tag][values[0]] = values[1]
    return ShellStateReport(
        aliases=tables["alias"],
        global_aliases=tables["global_alias"],
        functions={name: _body(text) for name, text in tables["function"].items()},
        hashed=tables["hashed"],
        builtins=frozenset(builtins),
        path=single["path"],
        cwd=single["cwd"],
        env=tables["env"],
        digest=hashlib.sha256(data).hexdigest(),
    )


def _body(text: str) -> str:
    """A function's body as code: bash's `declare -f` prints ``name () `` on the first line and
    the compound command after it; zsh reports the body alone."""
    first, newline, rest = text.partition("\n")
    if newline and first.rstrip().endswith("()"):
        return rest
    return text
