"""The database clients' own commands: psql and mysql `\\x`, sqlite and duckdb `.x`.

They are not SQL and the server never sees them; the client runs them itself, and several run
a shell command, read a script file or send the output over a file or into a program. A command
is safe only when it is on a short list of describe, list and output-format commands (`\\d`,
`\\l`, `.tables`, `.schema` …); `\\o`, `\\!`, `\\copy`, `\\i`, `.shell`, `.output` and
anything unfamiliar are unknown. Pure: no I/O.
"""

from __future__ import annotations

import re

from aish.safety.reasons import unknown
from aish.safety.sql.lexer import MYSQL_BARE, CommandKind
from aish.safety.verdict import SAFE, Verdict


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_MYSQL_COMMANDS = {
    "!": "runs a shell command",
    ".": "runs the commands in a file",
    "T": "copies the output to a file",
    "P": "pipes the output through a program",
    "d": "changes the statement delimiter",
    "e": "opens an editor and runs what it returns",
    "r": "connects to another server",
}
_PSQL_DESCRIBE = re.compile(r"d[A-Za-z]*[S+]*|l\+?|list\+?|z|sf[S+]*|sv[S+]*")
_PSQL_BARE = _words("conninfo encoding g gx q quit")
_PSQL_CHOICES = {
    "x": ("on", "off", "auto"),
    "timing": ("on", "off"),
    "?": ("commands", "options", "variables"),
}
_PSQL_COMMANDS = {  # `\!` is judged before these: its name runs on into the command
    "o": "sends query output to a file or a program",
    "out": "sends query output to a file or a program",
    "i": "runs the commands in a file",
    "include": "runs the commands in a file",
    "ir": "runs the commands in a file",
    "include_relative": "runs the commands in a file",
    "copy": "copies between a table and a file or a program",
    "w": "writes the query buffer to a file or a program",
    "write": "writes the query buffer to a file or a program",
    "gexec": "runs every value of the result as SQL",
    "set": "sets a variable that later SQL expands",
    "c": "connects to another database",
    "connect": "connects to another database",
    "e": "opens an editor and runs what it returns",
    "edit": "opens an editor and runs what it returns",
    "setenv": "changes the environment of later commands",
    "cd": "changes the working directory",
}
_DOT_READERS = _words(
    "tables schema indexes indices databases headers header mode fullschema dbinfo help show "
    "width nullvalue separator timer print quit exit bail echo eqp changes stats"
)
_DOT_COMMANDS = {
    "shell": "runs a shell command",
    "system": "runs a shell command",
    "output": "writes the output to a file or a program",
    "once": "writes the output to a file or a program",
    "excel": "opens the output in another program",
    "import": "loads a file into a table",
    "restore": "replaces a database from a file",
    "save": "writes the database to a file",
    "backup": "writes the database to a file",
    "load": "loads an extension (native code)",
    "read": "runs the commands in a file",
    "open": "opens (or creates, or empties) a database file",
    "archive": "creates or extracts archive files",
    "edit": "opens an editor",
}


def command_verdict(kind: CommandKind, text: str) -> Verdict:
    """A client command's verdict: psql or mysql `\\x`, sqlite `.x`."""
    if kind == "unclear":
        return unknown(text)
    if kind == "mysql":
        return _mysql_command(text)
    match = re.match(r"([\\.])(\S*)\s*(.*)", text, re.S)
    name, args = (match.group(2), match.group(3).strip()) if match else ("", "")
    if kind == "dot":
        if name in _DOT_READERS:
            return SAFE
        return unknown(f"sqlite .{name} {_DOT_COMMANDS.get(name, 'is not known to be read-only')}")
    return _psql_command(name, args)


def _psql_command(name: str, args: str) -> Verdict:
    if "`" in args or "`" in name:
        return unknown(f"psql \\{name} runs a shell command in backquotes")
    if _PSQL_DESCRIBE.fullmatch(name) or name == "echo":
        return SAFE
    if name in _PSQL_BARE and not args:
        return SAFE
    if name in _PSQL_CHOICES and (not args or args.lower() in _PSQL_CHOICES[name]):
        return SAFE
    if name.startswith("!"):
        return unknown(f"psql \\{name} runs a shell command")
    if name.startswith("g") and args:
        return unknown(f"psql \\{name} {args} sends the result to a file or a program")
    what = _PSQL_COMMANDS.get(name, "is not known to be read-only")
    return unknown(f"psql \\{name} {what}")


def _mysql_command(text: str) -> Verdict:
    letter = text[1:2]
    if letter in ("g", "G", "c") or (letter and letter in MYSQL_BARE):
        return SAFE
    if letter == "u":
        return SAFE  # \u db: use a database
    what = _MYSQL_COMMANDS.get(letter, "is not known to be read-only")
    return unknown(f"mysql \\{letter} {what}")
