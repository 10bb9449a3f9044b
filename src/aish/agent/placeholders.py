"""Secret placeholders in what the model proposes: which are sound, and the values back in.

A model that saw scrubbed text writes `AISH_SECRET_<TYPE>_<n>` where a secret goes. Models also
write them as variables (`$AISH_SECRET_X_1`, `${AISH_SECRET_X_1}`), and sometimes mangle them
(`AISH_SECRET_X` without its number, lower case, glued to a flag as in `-pAISH_SECRET_X_1`).
Every mention of `AISH_SECRET_` must be a placeholder this session handed out, standing as a word
of its own — anything else is a `problem` and the gate halts the action: it would run with
literal text where a secret was meant, or with a wrong value.

Sound mentions are replaced whole (a `$` or braces included) by their value. In a shell command
the value is quoted for where it stands — bare, inside double quotes or inside single quotes —
so a password with `;`, `$` or a quote stays one word and runs nothing.
"""

from __future__ import annotations

import re
import shlex
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from aish.safety.secrets.scrubber import SecretVault

MARK = "AISH_SECRET_"

# A mention: the placeholder-looking word with whatever `$`/braces introduce it. The word is
# taken greedily so that a placeholder with a tail (`…_1abc`) is not mistaken for a sound one.
_MENTION = re.compile(r"\$\{(AISH_SECRET_\w*)\}|\$?(AISH_SECRET_\w*)")
_GLUED = re.compile(r"[A-Za-z0-9]")
# A value made only of these needs no quoting anywhere in a shell word.
_SHELL_SAFE = re.compile(r"[A-Za-z0-9_\-.:/+=@%,]+")


def problems(text: str, vault: SecretVault) -> list[str]:
    """Why the placeholders in `text` cannot be trusted (empty: all sound)."""
    if MARK not in text:
        return []
    found: list[str] = []
    for match in _MENTION.finditer(text):
        name = match.group(1) or match.group(2)
        before = text[match.start() - 1] if match.start() else ""
        if name not in vault or not name.startswith(MARK):
            found.append(f"unknown secret reference {name}: not a value aish replaced")
        elif _GLUED.fullmatch(before):
            found.append(f"secret reference {name} is glued to the text before it")
    return list(dict.fromkeys(found))


def command_with_values(command: str, vault: SecretVault) -> str:
    """`command` as the shell must run it: each sound placeholder replaced by its value,
    quoted for its place. Unsound ones are left as they are (the gate never runs them)."""
    if MARK not in command:
        return command
    parts: list[str] = []
    position = 0
    for match in _MENTION.finditer(command):
        value = _value(match, vault)
        if value is None:
            continue
        parts.append(command[position : match.start()])
        parts.append(_quoted(value, _quote_at(command, match.start())))
        position = match.end()
    parts.append(command[position:])
    return "".join(parts)


def text_with_values(text: str, vault: SecretVault) -> str:
    """`text` (a tool call's argument) with each sound placeholder replaced by its value."""
    if MARK not in text:
        return text
    return _MENTION.sub(lambda m: _value(m, vault) or m.group(), text)


def _value(match: re.Match[str], vault: SecretVault) -> str | None:
    from aish.safety.secrets.scrubber import UnknownPlaceholder

    name = match.group(1) or match.group(2)
    try:
        return vault.rehydrate(name) if name in vault and name.startswith(MARK) else None
    except UnknownPlaceholder:
        return None


def _quote_at(command: str, end: int) -> str:
    """The quoting in force at `end`: "" (none), "'" or '"' — bash's rules, roughly."""
    state = ""
    index = 0
    while index < end:
        char = command[index]
        if state == "'":
            state = "" if char == "'" else state
        elif char == "\\":
            index += 1  # the next character is escaped (outside single quotes)
        elif state == '"':
            state = "" if char == '"' else state
        elif char in "'\"":
            state = char
        index += 1
    return state


def _quoted(value: str, quote: str) -> str:
    if quote == "'":
        return value.replace("'", "'\\''")
    if quote == '"':
        return re.sub(r'([\\"$`])', r"\\\1", value)
    return value if _SHELL_SAFE.fullmatch(value) else shlex.quote(value)
