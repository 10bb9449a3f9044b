"""Editors given commands on the command line: `ex -sc '%d|x' f`, `vim -c 'wq' f`, `vi +w f`.

ex commands in `-c CMD`, `--cmd CMD` or a `+CMD` operand run before (or instead of) any typing:
one that writes the file (`w`, `x`, `wq`, `up`, `sav` …) makes the command destructive, since
whatever the earlier commands did to the buffer (`%d` deleted every line) lands on disk; one
that runs a shell (`!cmd`, `r !cmd`, `w !cmd`) is at least unknown. An editor is never proven
read-only here, so anything else stays `unknown` as before.
"""

from __future__ import annotations

import re

from aish.safety.bash.options import ArgView
from aish.safety.reasons import destructive, unknown
from aish.safety.verdict import Verdict

__all__ = ["EDITORS", "check_editor"]

EDITORS = ("ex", "vi", "vim", "nvim", "view", "gvim", "vimdiff", "rvim")

# A line range before the command: `%`, `.`, `$`, numbers, marks, /patterns/, with `,` or `;`.
_ADDRESS = r"(?:%|[.$]|\d+|'[a-zA-Z<>]|/(?:\\.|[^/])*/|\?(?:\\.|[^?])*\?)(?:\s*[+-]\d*)*"
_RANGE = re.compile(rf"^[\s:]*(?:{_ADDRESS})?(?:\s*[,;]\s*(?:{_ADDRESS}))*\s*")
_WRITES = re.compile(
    r"^(w|wr|wri|writ|write|wq|wqa|wqall|x|xi|xit|xa|xall|exi|exit|up|upd|upda"
    r"|updat|update|sav|save|savea|saveas|wa|wal|wall|wn|wne|wnext|wN|wp|wprev"
    r"|wpr|wpre|wprevious)\b"
)
_SHELL = re.compile(r"^(!|r(?:ead)?\s*!|w(?:rite)?\s*!|sil(?:ent)?!?\s*!|terminal|ter\b)")


def check_editor(program: str, view: ArgView) -> Verdict | None:
    commands = _commands(view.words)
    if commands is None:
        return unknown(f"{program} runs commands computed at run time")
    for command in commands:
        for part in _split(command):
            body = _RANGE.sub("", part, count=1)
            if _SHELL.match(body):
                return unknown(f"{program} runs a shell command: {part.strip()}")
            if _WRITES.match(body):
                return destructive(f"{program} -c {part.strip()} writes the file")
    return None


def _commands(words: tuple[str | None, ...]) -> list[str] | None:
    """The ex commands given on the command line; None when one is computed."""
    found: list[str | None] = []
    for index, word in enumerate(words):
        if word is None:
            continue
        takes = word == "--cmd" or (
            word.startswith("-") and not word.startswith("--") and word.endswith("c")
        )
        if takes and index + 1 < len(words):
            found.append(words[index + 1])
        elif word.startswith("+") and len(word) > 1:
            found.append(word[1:])
    if any(command is None for command in found):
        return None
    return [command for command in found if command is not None]


def _split(command: str) -> list[str]:
    """ex commands separated by `|` (a `\\|` is part of a pattern)."""
    return re.split(r"(?<!\\)\|", command)
