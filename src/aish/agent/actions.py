"""Actions a reply proposes, found in its text: `CMD:` lines (shell commands).

The `CMD:` contract works with every model, including small local ones without tool calling:
a line whose text starts with `CMD:`. Models often decorate it (a list bullet, backticks, a
code fence around it); the decoration is removed, the command is not otherwise touched.
"""

from __future__ import annotations

import re

# A command with control characters (a carriage return, an escape sequence) could show one
# thing on screen and run another; such a line is never proposed.
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f]")

_CMD_LINE = re.compile(r"^\s*(?:[-*+]\s+|\d+[.)]\s+)?`{0,3}CMD:\s*(?P<command>.*?)\s*$")


def extract_commands(text: str) -> list[str]:
    """Every proposed command, in order, without duplicates next to each other."""
    commands: list[str] = []
    # Only a newline ends a line: splitlines() would also split on \r and other separators
    # that a terminal shows on one line.
    for line in text.split("\n"):
        match = _CMD_LINE.match(line.removesuffix("\r"))
        if not match:
            continue
        command = _strip_backticks(match.group("command"))
        if _CONTROL.search(command):
            continue
        if command and (not commands or commands[-1] != command):
            commands.append(command)
    return commands


def _strip_backticks(command: str) -> str:
    for fence in ("```", "`"):
        if command.startswith(fence) and command.endswith(fence) and len(command) > 2 * len(fence):
            return command[len(fence) : -len(fence)].strip()
    return command.rstrip("`").strip() if command.count("`") % 2 else command
