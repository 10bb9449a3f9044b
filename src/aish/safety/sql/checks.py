"""Database clients: the SQL, redis commands and mongo scripts they are handed.

`psql -c`, `mysql -e`, `sqlite3 db 'SQL'`, `duckdb -c`, `clickhouse-client -q`, `cqlsh -e`,
`redis-cli CMD` and `mongosh --eval`: the danger is in the script. This is the public surface,
`SQL_CHECKS` (program → check) and `sql_verdict` for SQL found elsewhere (a heredoc to a
client); the work lives in `clients` (each client's options), `scripts` (a script read
every way it could be), `lexer` (how each database splits text), `statements` (one
statement), `meta_commands` (psql, mysql and sqlite commands) and `redis_mongo`. Only
what is proven read-only is `safe`.
"""

from __future__ import annotations

from collections.abc import Callable

from aish.safety.bash.options import ArgView
from aish.safety.sql.clients import SQL_CLIENTS, check_sql_client
from aish.safety.sql.redis_mongo import check_mongo, check_redis
from aish.safety.sql.scripts import sql_verdict
from aish.safety.verdict import Verdict

__all__ = [
    "SQL_CHECKS",
    "SQL_CLIENTS",
    "check_mongo",
    "check_redis",
    "check_sql_client",
    "sql_verdict",
]

Check = Callable[[str, ArgView], Verdict | None]

SQL_CHECKS: dict[str, Check] = {
    **{name: check_sql_client for name in SQL_CLIENTS},
    "redis-cli": check_redis,
    "mongosh": check_mongo,
    "mongo": check_mongo,
}
