"""aish's own shell integration, as a command line can reach it.

The integration script keeps its state in shell variables named `__aish_*` (among them the
per-session nonce that makes its in-band markers trustworthy, see `aish.shell.markers`), and
reports to aish with `ESC ] 6973 ; <nonce> ; …` sequences. A line that expands or changes such
a variable (`printf '\\e]6973;%s;D;0\\a' "$__aish_nonce"` forges a "done" marker; `echo
$__aish_nonce` shows the nonce to the model) or writes such a sequence is not an ordinary
command: it speaks for aish's shell, so it is never `safe`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["integration_reason", "lists_every_variable"]

# Not the classifier's own stand-ins for computed text (`command_walk.DYNAMIC_VALUE`,
# `COMMAND_OUTPUT`), which appear in the code it judges after a substitution.
_STATE = re.compile(
    r"(?<![A-Za-z0-9_])__aish_(?!(?:dynamic_value|command_output)__(?![A-Za-z0-9_]))"
    r"[A-Za-z0-9_]*"
)
# The prompt strings hold the markers: zsh's with the nonce written in.
_PROMPTS = re.compile(r"\$\{?[#!]?(PS0|PS1|PS2|PROMPT2?)(?![A-Za-z0-9_])")
# The marker's OSC number right after the `]` that starts it, as printf and echo -e spell it.
_MARKER = re.compile(r"\]\s*6973\s*;")


def integration_reason(command: str) -> str | None:
    """Why `command` reaches into aish's shell integration, or None."""
    state = _STATE.search(command)
    if state is not None:
        return f"uses {state.group()}, the state of aish's shell integration"
    if _MARKER.search(command):
        return "writes an aish shell-integration marker (OSC 6973)"
    prompt = _PROMPTS.search(command)
    if prompt is not None:
        return f"reads {prompt.group(1)}, where aish's shell integration keeps its markers"
    return None


def lists_every_variable(program: str, words: Sequence[str]) -> str | None:
    """Why `program words…` prints every variable's value (`set`, `declare`, `typeset -p` with
    no name), the nonce of aish's markers among them: a line that reads it can forge what
    aish's shell reports (a finished command, a cwd). None for narrower listings (`set -o`,
    `declare -x`, `-f`, `-F`), which hold no nonce."""
    if program == "set":
        listing = not words
    elif program in ("declare", "typeset"):
        listing = all(w.startswith("-") and not w.strip("-p") for w in words)
    else:
        return None
    if not listing:
        return None
    shown = " ".join((program, *words))
    return f"{shown} lists every variable, aish's shell-integration state among them"
