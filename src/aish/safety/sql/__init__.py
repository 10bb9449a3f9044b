"""Database clients and the scripts they are handed: `checks` is the surface (`SQL_CHECKS`,
`sql_verdict`); `clients` reads each client's options, `scripts` a whole script every way a
database could read it, `lexer` how each database splits text, `statements` one statement,
`meta_commands` the clients' own commands and `redis_mongo` the clients that do not speak SQL.
Pure: no I/O.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from aish.safety.sql.checks import SQL_CHECKS, sql_verdict

__all__ = [
    "SQL_CHECKS",
    "sql_verdict",
]

# Public name → module that defines it, resolved on first use so that importing one module of
# this room does not load the others.
_HOMES = {
    "SQL_CHECKS": "aish.safety.sql.checks",
    "sql_verdict": "aish.safety.sql.checks",
}


def __getattr__(name: str) -> object:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'aish.safety.sql' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(home), name)
    globals()[name] = value  # later lookups skip this function
    return value
