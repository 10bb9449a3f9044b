"""Database clients and the scripts they are handed: `checks` is the surface (`SQL_CHECKS`,
`sql_verdict`); `clients` reads each client's options, `scripts` a whole script every way a
database could read it, `lexer` how each database splits text, `statements` one statement,
`meta_commands` the clients' own commands and `redis_mongo` the clients that do not speak SQL.
Pure: no I/O.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from aish._lazy_face import lazy_names

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

__getattr__ = lazy_names(__name__, _HOMES)
