"""A whole SQL script's verdict: the worst over every way that databases could read it.

Each client is read as itself and as the server behind it (psql as a server with and without
standard-conforming strings, mysql with and without backslash escapes and ANSI quotes …), so
quoting that one database reads differently from another cannot hide a statement; when a client
and its server would split the text into statements differently, no single reading tells what
runs and the script is unknown. Pure: no I/O, and no input makes `sql_verdict` raise.
"""

from __future__ import annotations

from aish.safety.bash.command_walk import COMMAND_OUTPUT, DYNAMIC_VALUE
from aish.safety.reasons import unknown
from aish.safety.sql.lexer import (
    CLICKHOUSE,
    CLICKHOUSE_FLAT,
    CQL,
    DUCKDB,
    MYSQL,
    MYSQL_ANSI,
    MYSQL_CLIENT,
    MYSQL_PLAIN,
    POSTGRES,
    POSTGRES_LEGACY,
    SQLITE,
    Dialect,
    Lexed,
    lex,
)
from aish.safety.sql.meta_commands import command_verdict
from aish.safety.sql.statements import statement_verdict
from aish.safety.verdict import Verdict, worst

# Per client, the ways its text may be read. The readings of one group are a client and the
# server behind it: the client splits the text into statements and commands, the server reads
# each piece. When they would split it differently, no single reading tells what runs.
Readings = tuple[tuple[Dialect, ...], ...]
_MYSQL_READINGS: Readings = ((MYSQL_CLIENT, MYSQL, MYSQL_ANSI), (MYSQL_PLAIN,))
_READINGS: dict[str, Readings] = {
    "psql": ((POSTGRES,), (POSTGRES_LEGACY,)),  # psql reads as the server it talks to
    "mysql": _MYSQL_READINGS,
    "mariadb": _MYSQL_READINGS,
    "sqlite3": ((SQLITE,),),
    "duckdb": ((SQLITE, DUCKDB),),
    "clickhouse-client": ((CLICKHOUSE,), (CLICKHOUSE_FLAT,)),
    "cqlsh": ((CQL,),),
}
_ALL_READINGS: Readings = tuple(dict.fromkeys(g for r in _READINGS.values() for g in r))


def _lexed_verdict(lexed: Lexed, seen: dict[tuple[str, str], Verdict]) -> Verdict:
    parts: list[Verdict] = []
    for statement in lexed.statements:
        key = ("", statement)
        if key not in seen:
            seen[key] = statement_verdict(statement)
        parts.append(seen[key])
    for kind, text in lexed.commands:
        if (kind, text) not in seen:
            seen[(kind, text)] = command_verdict(kind, text)
        parts.append(seen[(kind, text)])
    parts += [unknown(f"SQL with {p} cannot be read") for p in lexed.problems]
    if not parts:
        return unknown("no SQL to judge")
    return worst(parts)


def sql_verdict(sql: str, program: str | None = None) -> Verdict:
    """The verdict on a SQL script (with client commands) given to `program`, or to any SQL
    client when `program` is None: the worst over every way it could be read."""
    seen: dict[tuple[str, str], Verdict] = {}
    parts: list[Verdict] = []
    for group in _READINGS.get(program or "", _ALL_READINGS):
        readings = dict.fromkeys(lex(sql, d) for d in group)
        if len({r.splits for r in readings}) > 1:
            parts.append(unknown("SQL whose quoting the client and the server read differently"))
        parts += [_lexed_verdict(r, seen) for r in readings]
    if DYNAMIC_VALUE in sql or COMMAND_OUTPUT in sql:
        parts.append(unknown("SQL computed at run time"))
    return worst(sorted(parts, key=lambda v: v.reasons))
