"""Database clients and their scripts: options that run things, psql and sqlite commands, SQL
read the way each database reads it, side-effecting SELECTs, redis and mongo.

Each row is (command, expected level, a fragment the reasons must contain). The rows are judged
by the check alone (`SQL_CHECKS`), the way the classifier calls it; a few run through
`classify` too.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aish.safety.bash.command_walk import walk_bash
from aish.safety.bash.options import ArgView, split_args
from aish.safety.bash.value_options import VALUE_OPTIONS
from aish.safety.classifier import classify
from aish.safety.sql.checks import (
    SQL_CHECKS,
    SQL_CLIENTS,
    check_sql_client,
    sql_verdict,
)
from aish.safety.verdict import Verdict


def judge(command: str) -> Verdict:
    walk = walk_bash(command)
    assert walk.error is None, walk.error
    (inv,) = walk.invocations
    program = inv.name.value or ""
    view = split_args(inv.args, VALUE_OPTIONS.get(program, frozenset()))
    verdict = SQL_CHECKS[program](program, view)
    assert verdict is not None
    return verdict


KEPT = [
    ("psql -c 'SELECT 1'", "safe", ""),
    (
        "psql -d app -c \"SELECT query FROM pg_stat_activity WHERE query ILIKE '%drop table%'\"",
        "safe",
        "",
    ),
    ("psql -d shop -c 'DROP TABLE orders;'", "destructive", "SQL DROP deletes data"),
    ('mysql -u root -e "TRUNCATE TABLE sessions" app', "destructive", "TRUNCATE"),
    ("sqlite3 data.db 'DELETE FROM events;'", "destructive", "DELETE without WHERE"),
    ("sqlite3 db 'DELETE FROM events WHERE id = 1'", "unknown", "changes data"),
    ("sqlite3 db '.tables'", "safe", ""),
    ("redis-cli FLUSHALL", "destructive", "FLUSHALL"),
    ("redis-cli GET k", "safe", ""),
    ("mongosh --eval 'db.users.drop()'", "destructive", "drops or deletes"),
    ("mongosh --eval 'db.orders.deleteMany({})'", "destructive", "drops or deletes"),
    ("psql", "unknown", "opens a database session"),
]

# 1. psql meta-commands: only describe and list commands read.
META = [
    ("psql -c '\\o |CMD'", "unknown", "\\o"),
    ("psql -c '\\i drop_all.sql'", "unknown", "\\i runs the commands in a file"),
    ("psql -c '\\ir drop_all.sql'", "unknown", "runs the commands in a file"),
    ("psql -c '\\copy t to ~/.bashrc'", "unknown", "\\copy"),
    ("psql -c '\\! rm -rf x'", "unknown", "runs a shell command"),
    ("psql -c '\\dt \\! rm -rf x'", "unknown", "runs a shell command"),
    ("psql -c 'select 1 \\g |sh'", "unknown", "sends the result"),
    ("psql -c 'select 1 \\g out.txt'", "unknown", "sends the result"),
    ("psql -c '\\w file.sql'", "unknown", "\\w"),
    ("psql -c '\\set x 1'", "unknown", "\\set"),
    ("psql -c '\\gexec'", "unknown", "\\gexec"),
    ("psql -c '\\c otherdb'", "unknown", "connects"),
    ("psql -c '\\lo_export 1 /tmp/x'", "unknown", "\\lo_export"),
    ("psql -c '\\encoding UTF8'", "unknown", "\\encoding"),
    ("psql -c '\\echo `rm -rf x`'", "unknown", "backquotes"),
    ("psql -c '\\frobnicate'", "unknown", "not known"),
    ("psql -c '\\echo hi \\\\ DROP TABLE t;'", "destructive", "DROP"),
    ("psql -c 'SELECT 1 \\; DELETE FROM t'", "destructive", "DELETE without WHERE"),
    ("psql -c '\\d'", "safe", ""),
    ("psql -c '\\dt'", "safe", ""),
    ("psql -c '\\dt+ public.*'", "safe", ""),
    ("psql -c '\\dn'", "safe", ""),
    ("psql -c '\\df+ my_func'", "safe", ""),
    ("psql -c '\\d+ users'", "safe", ""),
    ("psql -c '\\dx'", "safe", ""),
    ("psql -c '\\l+'", "safe", ""),
    ("psql -c '\\du'", "safe", ""),
    ("psql -c '\\x'", "safe", ""),
    ("psql -c '\\x auto'", "safe", ""),
    ("psql -c '\\conninfo'", "safe", ""),
    ("psql -c '\\timing on'", "safe", ""),
    ("psql -c '\\?'", "safe", ""),
    ("psql -c '\\encoding'", "safe", ""),
    ("psql -c '\\echo hello'", "safe", ""),
    ("psql -c 'SELECT 1 \\g'", "safe", ""),
    ("psql -c '\\x \\\\ SELECT 1'", "safe", ""),
]

# 2. Options that change what runs, and sqlite dot-commands.
OPTIONS = [
    ("psql -o '|CMD' -c 'select 1'", "unknown", "pipes query output to a program"),
    ("psql --output='|CMD' -c 'select 1'", "unknown", "pipes query output"),
    ("psql -o out.txt -c 'select 1'", "destructive", "writes query output over out.txt"),
    ("psql --out=out.txt -c 'select 1'", "destructive", "--output writes query output"),
    ("psql -o /dev/null -c 'select 1'", "safe", ""),
    ("psql -c 'select 1' -f evil.sql", "unknown", "-f runs the commands in evil.sql"),
    ("psql -f evil.sql", "unknown", "runs the commands"),
    ("psql -L file -c 'select 1'", "unknown", "-L appends to file"),
    ("psql --log-file=x -c 'select 1'", "unknown", "--log-file appends to x"),
    ("psql --com='DROP TABLE t'", "destructive", "DROP"),
    ("psql --c 'select 1'", "unknown", "--c is not known"),  # --command or --csv
    ("psql -tAc 'select 1'", "safe", ""),
    ("psql -e -c 'select 1'", "safe", ""),  # -e echoes queries
    ("psql -X -v ON_ERROR_STOP=1 -d app -c 'select 1'", "safe", ""),
    ("psql -l", "safe", ""),
    ("psql $DB -c 'select 1'", "unknown", "computed at run time"),
    ('psql -c "$SQL"', "unknown", "computed at run time"),
    ("psql --frobnicate -c 'select 1'", "unknown", "not known"),
    ("mysql --init-command='DROP DATABASE x' -e 'select 1'", "destructive", "DROP"),
    ("mysql --init_command='DROP DATABASE x' -e 'select 1'", "destructive", "DROP"),
    ("mysql --loose-init-command='DROP DATABASE x' -e 'select 1'", "destructive", "DROP"),
    ("mysql --init-command='SET NAMES utf8' -e 'select 1'", "unknown", "SET"),
    ("mysql --exec='DROP TABLE t' app", "destructive", "DROP"),
    ("mysql --pager=less -e 'select 1'", "unknown", "--pager"),
    ("mysql --tee=out.log -e 'select 1'", "unknown", "--tee appends"),
    ("mysql --defaults-file=x.cnf -e 'select 1'", "unknown", "reads options from a file"),
    ("mysql --plugin-dir=/tmp -e 'select 1'", "unknown", "plugins"),
    ("mysql --delimiter=// -e 'select 1'", "unknown", "where statements end"),
    ("mysql -BNe 'select 1' app", "safe", ""),
    ("mysql -G -e $'SELECT 1\\nsystem rm -rf x' app", "unknown", "client commands"),
    ("mysql --named-commands -e 'SELECT 1' app", "unknown", "client commands"),
    ("mysql -uroot -psecret -h db -e 'SELECT 1' app", "safe", ""),
    ("mysql app", "unknown", "opens a database session"),
    ("sqlite3 db .tables .schema", "safe", ""),
    ("sqlite3 db '.indexes' '.databases' '.headers on' '.mode csv' 'select 1'", "safe", ""),
    ("sqlite3 db '.shell rm -rf x'", "unknown", ".shell runs a shell command"),
    ("sqlite3 db '.system rm -rf x'", "unknown", ".system"),
    ("sqlite3 db '.output x' 'select 1'", "unknown", ".output"),
    ("sqlite3 db '.once out.csv' 'select 1'", "unknown", ".once"),
    ("sqlite3 db '.import data.csv t'", "unknown", ".import"),
    ("sqlite3 db '.restore backup.db'", "unknown", ".restore"),
    ("sqlite3 db '.save x.db'", "unknown", ".save"),
    ("sqlite3 db '.backup x.db'", "unknown", ".backup"),
    ("sqlite3 db '.load ./evil'", "unknown", ".load"),
    ("sqlite3 db '.read x.sql'", "unknown", ".read"),
    ("sqlite3 db '.sh x'", "unknown", "not known"),  # sqlite reads .sh as .shell
    ("sqlite3 db '.frobnicate'", "unknown", "not known"),
    ("sqlite3 -cmd '.shell x' db 'select 1'", "unknown", ".shell"),
    ("sqlite3 -init evil.sql db 'select 1'", "unknown", "-init runs the commands"),
    ("sqlite3 -readonly -json db 'select count(*) from t'", "safe", ""),
    ("sqlite3 db", "unknown", "opens a database session"),
    ("sqlite3 -A -cf out.zip db", "unknown", "archive"),
    ("duckdb -c 'select 42'", "safe", ""),
    ("duckdb -c 'FROM t LIMIT 5'", "safe", ""),
    ("duckdb -unsigned -c 'select 1'", "unknown", "unsigned"),
    ("duckdb -c \"COPY t TO 'out.csv'\"", "unknown", "COPY"),
    ("cqlsh -e 'SELECT * FROM ks.t'", "safe", ""),
    ("cqlsh -e 'TRUNCATE ks.t'", "destructive", "TRUNCATE"),
    ("cqlsh -f x.cql", "unknown", "runs the commands"),
    ("clickhouse-client -q 'SELECT count() FROM system.parts'", "safe", ""),
    ("clickhouse-client --query='DROP TABLE t'", "destructive", "DROP"),
]

# 3-6. SQL itself.
STATEMENTS = [
    (
        "psql -c 'WITH x AS (DELETE FROM users RETURNING *) SELECT * FROM x'",
        "destructive",
        "DELETE",
    ),
    ("psql -c 'WITH x AS (DELETE FROM u WHERE id = 1 RETURNING *) SELECT * FROM x'", "unknown", ""),
    ("psql -c 'EXPLAIN ANALYZE DELETE FROM users'", "destructive", "DELETE without WHERE"),
    ("psql -c 'EXPLAIN ANALYZE SELECT * FROM users'", "unknown", "EXPLAIN ANALYZE"),
    ("psql -c 'EXPLAIN (ANALYZE, BUFFERS) SELECT 1'", "unknown", "EXPLAIN ANALYZE"),
    ("psql -c 'EXPLAIN SELECT * FROM users'", "safe", ""),
    ("psql -c 'UPDATE t SET a = (SELECT max(b) FROM c WHERE x)'", "destructive", "UPDATE without"),
    ("psql -c 'UPDATE t SET a = 1 WHERE id = 2'", "unknown", "changes data"),
    ("psql -c 'SELECT 1' -c 'DELETE FROM t'", "destructive", "DELETE without WHERE"),
    ("mysql -e 'DELETE t1 FROM t1 JOIN t2 ON t1.id = t2.id' app", "destructive", "DELETE"),
    ("psql -c 'DELETE FROM t USING u WHERE t.id = u.id'", "unknown", "changes data"),
    ("psql -c 'SELECT * FROM t FOR UPDATE'", "unknown", "UPDATE"),
    ("psql -c 'INSERT INTO t VALUES (1) ON CONFLICT (id) DO UPDATE SET a = 1'", "unknown", ""),
    ("psql -c 'ALTER TABLE t ADD FOREIGN KEY (a) REFERENCES b ON DELETE CASCADE'", "unknown", ""),
    ("psql -c 'GRANT SELECT, UPDATE, DELETE ON t TO bob'", "unknown", "GRANT"),
    ("psql -c 'ALTER TABLE t DROP COLUMN c'", "destructive", "ALTER … DROP"),
    ("psql -c 'VACUUM (FULL) t'", "unknown", "VACUUM"),
    ("psql -c 'SELECT 1 INTO new_table'", "unknown", "INTO"),
    ("psql -c 'CALL refresh_all()'", "unknown", "CALL"),
    ("psql -c 'DO $$BEGIN DELETE FROM t; END$$'", "unknown", "DO"),
    ("sqlite3 db \"SELECT writefile('f', 'x')\"", "unknown", "writefile()"),
    ("sqlite3 db \"SELECT load_extension('x')\"", "unknown", "load_extension()"),
    ("sqlite3 db \"SELECT edit('x')\"", "unknown", "edit()"),
    ("mysql -e \"SELECT * FROM t INTO OUTFILE '/tmp/x'\" app", "unknown", "INTO"),
    ("mysql -e \"SELECT 'x' INTO DUMPFILE '/tmp/x'\" app", "unknown", "INTO"),
    ("psql -c 'SELECT pg_terminate_backend(pid) FROM pg_stat_activity'", "destructive", "kills"),
    ("psql -c 'SELECT pg_catalog.pg_terminate_backend(1)'", "destructive", "kills"),
    ("psql -c \"SELECT nextval('s')\"", "unknown", "nextval()"),
    ("psql -c \"SELECT setval('s', 1)\"", "unknown", "setval()"),
    ("psql -c \"SELECT lo_export(1, '/tmp/x')\"", "unknown", "lo_export()"),
    ("psql -c \"SELECT lo_import('/etc/passwd')\"", "unknown", "lo_import()"),
    ("psql -c 'SELECT pg_reload_conf()'", "unknown", "pg_reload_conf()"),
    ("psql -c \"SELECT set_config('a', 'b', false)\"", "unknown", "set_config()"),
    ("psql -c \"SELECT dblink_exec('x', 'DROP TABLE t')\"", "unknown", "dblink_exec()"),
    ("mysql -e \"SELECT xp_cmdshell('dir')\" app", "unknown", "xp_cmdshell()"),
    ("mysql -e 'SELECT sleep(100)' app", "unknown", "sleep()"),
    ("psql -c 'SELECT \"pg_terminate_backend\"(1)'", "unknown", "not known to be read-only"),
    ("psql -c 'SELECT evil.lower(x) FROM t'", "unknown", "evil.lower()"),
    ("mysql -e 'SELECT TRUNCATE(price, 2) FROM products' shop", "safe", ""),
    ("mysql -e 'KILL 42' app", "destructive", "KILL"),
    ("psql -c 'DROP/**/TABLE users'", "destructive", "DROP"),
    ("psql -c 'DROP--x\nTABLE users'", "destructive", "DROP"),
    ("mysql -e 'DROP#x\nTABLE users' app", "destructive", "DROP"),
    ("psql -c 'dRoP   tAbLe users'", "destructive", "DROP"),
    # readers
    (
        "psql -c \"SELECT count(*), max(id) FROM users WHERE ts > now() - interval '1 day'\"",
        "safe",
        "",
    ),
    ("psql -c 'SELECT lower(a), coalesce(b, 0) FROM t GROUP BY 1 ORDER BY 2 LIMIT 5'", "safe", ""),
    ("psql -c 'select a from t where b in (select c from d) and exists (select 1)'", "safe", ""),
    ("psql -c 'SELECT count(*) FILTER (WHERE x) OVER (PARTITION BY y) FROM t'", "safe", ""),
    (
        "psql -c 'WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 5) "
        "SELECT sum(n) FROM t'",
        "safe",
        "",
    ),
    ("psql -c 'SELECT * FROM generate_series(1, 3) AS g(n)'", "safe", ""),
    ("psql -c 'SELECT CAST(x AS varchar(10)), x::numeric(10,2) FROM t'", "safe", ""),
    ("psql -c 'SELECT pg_size_pretty(pg_database_size(current_database()))'", "safe", ""),
    ("psql -c 'SELECT version(), current_user, current_schema()'", "safe", ""),
    ("psql -c 'SHOW search_path'", "safe", ""),
    ("psql -c 'VALUES (1), (2)'", "safe", ""),
    ("psql -c '(SELECT 1) UNION (SELECT 2)'", "safe", ""),
    ("psql -c 'TABLE users'", "safe", ""),
    ("psql -c 'BEGIN; SELECT 1; COMMIT'", "safe", ""),
    ("psql -c \"SELECT x FROM t WHERE a = 'it''s'\"", "safe", ""),
    ('psql -c "SELECT \\$\\$ DROP TABLE t \\$\\$"', "safe", ""),
    ("mysql -e 'SHOW CREATE TABLE users' app", "safe", ""),
    ("mysql -e 'SHOW TABLES' app", "safe", ""),
    ("mysql -e 'DESCRIBE users' app", "safe", ""),
    ("mysql -e 'USE app; SELECT 1'", "safe", ""),
    ("mysql -e 'select * from t\\G' app", "safe", ""),
    ("mysql -e 'SELECT `delete` FROM t' app", "safe", ""),
    ("sqlite3 db 'PRAGMA table_info(users)'", "safe", ""),
    ("sqlite3 db 'PRAGMA integrity_check'", "safe", ""),
    ("sqlite3 db 'PRAGMA journal_mode=WAL'", "unknown", "changes a setting"),
    ("sqlite3 db 'PRAGMA user_version(5)'", "unknown", "PRAGMA"),
    # mysql client commands
    ("mysql -e 'select 1\\! rm -rf x' app", "unknown", "runs a shell command"),
    ("mysql -e 'select 1; system rm -rf /' app", "unknown", "SYSTEM"),
    ("mysql -e 'source x.sql' app", "unknown", "SOURCE"),
    ("mysql -e '\\. x.sql' app", "unknown", "runs the commands in a file"),
]

# Text one database reads as a literal or a comment and another as code.
QUOTING = [
    ("psql -c \"SELECT 'a\\' ; DROP TABLE t; --'\"", "destructive", "DROP"),
    ("psql -c \"SELECT E'a\\'' ; DROP TABLE t; --'\"", "destructive", "DROP"),
    ("psql -c \"SELECT 1e'a\\'' ; DROP TABLE t; --'\"", "destructive", "DROP"),
    ("psql -c \"/* /* */ ' */ DROP TABLE t; -- '\"", "destructive", "DROP"),
    ("psql -c \"SELECT \\$a\\$ ' \\$a\\$; DROP TABLE t; -- '\"", "destructive", "DROP"),
    ("psql -c \"SELECT 1 # '\\$\\$'\"", "safe", ""),
    ("mysql -e \"SELECT 'a\\' , ' ; DROP TABLE t; -- '\" app", "destructive", "DROP"),
    ("mysql -e 'SELECT 1--1; DROP TABLE t' app", "destructive", "DROP"),
    ("mysql -e 'SELECT 1 /*!50000 ; DROP TABLE t */' app", "destructive", "DROP"),
    ("mysql -e $'SELECT 1 # \\'\\nDROP TABLE t; -- \\'' app", "destructive", "DROP"),
    ("sqlite3 db \"SELECT [x'] ; DROP TABLE t; --']\"", "destructive", "DROP"),
    ("sqlite3 db $'SELECT 1;\\n.shell rm -rf x'", "unknown", ".shell"),
    ("cqlsh -e $'SELECT 1 // \\'\\nDROP TABLE ks.t; -- \\''", "destructive", "DROP"),
    ("psql -c \"/* /*/ ' */ */ DROP TABLE t; -- '\"", "destructive", "DROP"),  # nested
    ("psql -c 'SELECT 1 /* a /* b */ c */'", "safe", ""),
    # The mysql client escapes inside `names` when it splits statements; the server does not.
    ("mysql -e \"SELECT \\`a\\\\\\`, ' \\`; DROP TABLE t; -- '\" app", "destructive", "DROP"),
    ("mysql -e \"SELECT * FROM t WHERE name = 'O''Brien'\" app", "safe", ""),
    ("mysql -e \"SELECT * FROM t WHERE name = 'O\\\\'Brien'\" app", "unknown", "quote"),
    ("duckdb -c 'SELECT [1, 2, 3] AS l'", "safe", ""),
    ('psql -c "SELECT \'unterminated"', "unknown", "unterminated"),
    ("psql -c 'SELECT a$b$ FROM t'", "safe", ""),
]

REDIS_MONGO = [
    ("redis-cli -h host -p 6379 KEYS 'user:*'", "safe", ""),
    ("redis-cli -n 2 DBSIZE", "safe", ""),
    ("redis-cli --scan --pattern 'user:*'", "safe", ""),
    ("redis-cli CONFIG GET dir", "safe", ""),
    ("redis-cli CONFIG SET dir /tmp", "unknown", "CONFIG"),
    ("redis-cli CLIENT KILL ID 5", "destructive", "CLIENT KILL"),
    ("redis-cli -h host del k", "destructive", "DEL"),
    ("redis-cli --rdb dump.rdb", "destructive", "--rdb"),
    ("redis-cli --eval x.lua", "unknown", "Lua"),
    ("redis-cli --pipe", "unknown", "--pipe"),
    ("redis-cli", "unknown", "opens a session"),
    ("redis-cli SET k v", "unknown", "SET"),
    ("mongosh --eval 'db.users.find()'", "unknown", "may change data"),
    ("mongosh --eval 'db.runCommand({drop: \"users\"})'", "destructive", "drops or deletes"),
    ("mongosh mydb", "unknown", "opens a database session"),
    ("mongosh mydb script.js", "unknown", "runs a script file"),
]


@pytest.mark.parametrize(
    ("command", "level", "fragment"),
    KEPT + META + OPTIONS + STATEMENTS + QUOTING + REDIS_MONGO,
)
def test_check(command: str, level: str, fragment: str) -> None:
    verdict = judge(command)
    assert verdict.level == level, verdict
    assert fragment in " | ".join(verdict.reasons), verdict
    if level == "safe":
        assert verdict.reasons == ()


@pytest.mark.parametrize(
    ("command", "level", "fragment"),
    [
        ("sudo -u postgres psql -c 'DROP DATABASE analytics;'", "destructive", "via sudo"),
        ("psql -c '\\o |CMD'", "unknown", "\\o"),
        ("bash -c \"psql -c 'SELECT pg_terminate_backend(1)'\"", "destructive", "kills"),
        ("psql -d app -c 'SELECT 1' | head", "safe", ""),
        ("mysql -e 'SELECT TRUNCATE(price, 2) FROM products' shop", "safe", ""),
        ("redis-cli GET k", "safe", ""),
    ],
)
def test_through_the_classifier(command: str, level: str, fragment: str) -> None:
    verdict = classify(command)
    assert verdict.level == level, verdict
    assert fragment in " | ".join(verdict.reasons), verdict


def test_stdin_script_read_by_every_dialect() -> None:
    assert sql_verdict("SELECT 1;\n") == Verdict("safe")
    verdict = sql_verdict("SELECT 1;\n\\o |sh\nSELECT 'rm -rf ~';\n")
    assert verdict is not None and verdict.level == "unknown"
    verdict = sql_verdict("DELETE FROM t;")
    assert verdict is not None and verdict.level == "destructive"
    verdict = sql_verdict("SELECT '__aish_dynamic_value__'")
    assert verdict is not None and verdict.level == "unknown"


def test_sql_verdict_for_a_named_client() -> None:
    assert sql_verdict(".tables\nSELECT 1;", "sqlite3") == Verdict("safe")
    assert sql_verdict("\\dt\nSELECT 1;", "psql") == Verdict("safe")
    verdict = sql_verdict(".tables", "psql")
    assert verdict is not None and verdict.level == "unknown"


# ---- properties ---------------------------------------------------------------------------

_BLANKS = st.sampled_from([" ", "  ", "\n", "\t", "/**/", " /* x */ ", "\n-- note\n"])
_PREFIXES = st.sampled_from(
    [
        "",
        "SELECT 1; ",
        "select * from t where a = 'x'; ",
        "WITH x AS (",
        "EXPLAIN ANALYZE ",
        "explain ",
        "(",
        "/* c */ ",
        "BEGIN; ",
        "with a as (select 1), b as (",
    ]
)
_SUFFIXES = st.sampled_from(
    ["", " WHERE id = 1", ")", ") SELECT * FROM x", " RETURNING *", "; SELECT 1", " -- c", ";"]
)


def _mixed_case(word: str, mask: int) -> str:
    return "".join(c.upper() if mask >> i & 1 else c.lower() for i, c in enumerate(word))


@settings(max_examples=300, deadline=None)
@given(
    prefix=_PREFIXES,
    blank1=_BLANKS,
    blank2=_BLANKS,
    suffix=_SUFFIXES,
    case1=st.integers(0, 63),
    case2=st.integers(0, 15),
    table=st.sampled_from(["users", '"Users"', "public.users", "`users`", "t1"]),
    program=st.sampled_from([*SQL_CLIENTS, None]),
)
def test_delete_from_outside_literals_is_never_safe(
    prefix: str,
    blank1: str,
    blank2: str,
    suffix: str,
    case1: int,
    case2: int,
    table: str,
    program: str | None,
) -> None:
    delete = _mixed_case("delete", case1) + blank1 + _mixed_case("from", case2) + blank2
    sql = prefix + delete + table + suffix
    verdict = sql_verdict(sql, program)
    assert verdict is not None and verdict.level != "safe", (sql, program, verdict)
    if " WHERE " not in suffix and "explain " not in prefix.lower():
        # No WHERE of its own, wherever it stands: destructive (or unreadable quoting).
        assert verdict.level == "destructive", (sql, program, verdict)


@settings(max_examples=200, deadline=None)
@given(
    blank=_BLANKS,
    case=st.integers(0, 15),
    what=st.sampled_from(["TABLE users", "DATABASE app", "SCHEMA s CASCADE", "VIEW v"]),
    client=st.sampled_from(["psql -c", "mysql -e", "sqlite3 db", "duckdb -c", "cqlsh -e"]),
)
def test_drop_stays_destructive_through_case_and_comments(
    blank: str, case: int, what: str, client: str
) -> None:
    sql = _mixed_case("drop", case) + blank + what
    program, flag = client.split()
    verdict = check_sql_client(program, ArgView((), (), (flag, sql)))
    assert verdict is not None and verdict.level == "destructive", (sql, verdict)


@settings(max_examples=300, deadline=None)
@given(
    text=st.text(st.characters(codec="utf-8", exclude_characters="'\\")),
    program=st.sampled_from(["psql", "mysql", "sqlite3", "duckdb", "cqlsh"]),
)
def test_mentions_inside_string_literals_are_data(text: str, program: str) -> None:
    verdict = sql_verdict(f"SELECT '{text}' AS mention", program)
    assert verdict == Verdict("safe"), (text, verdict)


@settings(max_examples=500, deadline=None)
@given(text=st.text(), program=st.sampled_from([*SQL_CLIENTS, None]))
def test_any_text_gets_a_verdict(text: str, program: str | None) -> None:
    verdict = sql_verdict(text, program)
    assert verdict is not None and verdict.level in ("safe", "unknown", "destructive")


@settings(max_examples=300, deadline=None)
@given(
    words=st.lists(
        st.one_of(
            st.none(),
            st.text(max_size=12),
            st.sampled_from(["-c", "-e", "-o", "--eval", "-cmd", "--command=", "-f", "--"]),
        ),
        max_size=6,
    ),
    program=st.sampled_from(sorted(SQL_CHECKS)),
)
def test_any_arguments_get_a_verdict(words: list[str | None], program: str) -> None:
    verdict = SQL_CHECKS[program](program, ArgView((), (), tuple(words)))
    assert verdict is not None and verdict.level in ("safe", "unknown", "destructive")
