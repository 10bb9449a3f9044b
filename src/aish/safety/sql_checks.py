"""Database clients: the SQL, redis commands and mongo scripts they are handed.

`psql -c`, `mysql -e`, `sqlite3 db 'SQL'`, `duckdb -c`, `clickhouse-client -q`, `cqlsh -e`,
`redis-cli CMD` and `mongosh --eval`: the danger is in the script. Each check first reads the
client's own options the way the client does (an option can run a program, read a script file
or write the output over a file), then judges the script. Only what is proven read-only is
`safe`.

SQL is read as each database that could receive it reads it: quotes with and without backslash
escapes, PostgreSQL's dollar quotes and nested comments, MySQL's `#` comments, `-- ` and
executable `/*! … */` comments, SQLite's `[names]`, CQL's `//` comments. The verdict is the
worst over those readings, so quoting that one database reads differently from another cannot
hide a statement. String literals are data, comments are blanks, everything else is code:

- DROP, TRUNCATE (the statement), DELETE or UPDATE without a WHERE of their own (also inside
  a WITH or an EXPLAIN ANALYZE), KILL, SHUTDOWN and `pg_terminate_backend()` are destructive;
- a statement is safe only when it is a reader (SELECT, WITH, VALUES, TABLE, SHOW, DESCRIBE,
  EXPLAIN without ANALYZE, a read-only PRAGMA, USE, transaction control), nothing inside it
  changes data, and every function it calls is known to be pure;
- client commands (psql and mysql `\\…`, sqlite `.…`) are safe only from a short list of
  describe and list commands; `\\o`, `\\!`, `\\copy`, `\\i`, `.shell`, `.output` and anything
  unfamiliar are unknown.

Pure: no I/O, and no input makes these functions raise.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from aish.safety.command_walk import COMMAND_OUTPUT, DYNAMIC_VALUE
from aish.safety.options import ArgView
from aish.safety.verdict import SAFE, Verdict, worst

__all__ = [
    "SQL_CHECKS",
    "SQL_CLIENTS",
    "check_mongo",
    "check_redis",
    "check_sql_client",
    "sql_verdict",
]

Check = Callable[[str, ArgView], Verdict | None]

SQL_CLIENTS = ("psql", "mysql", "mariadb", "sqlite3", "duckdb", "clickhouse-client", "cqlsh")


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


def _unknown(reason: str) -> Verdict:
    return Verdict("unknown", (reason,))


def _destructive(reason: str) -> Verdict:
    return Verdict("destructive", (reason,))


# ---- how each database reads its text ------------------------------------------------------

Meta = Literal["psql", "mysql", "dot", "none"]


@dataclass(frozen=True)
class Dialect:
    """How one database (or its client) splits text into code, literals and comments."""

    name: str
    backslash: str = ""  # the quote characters inside which a backslash escapes the next one
    e_strings: bool = False  # E'…' escapes with backslashes (PostgreSQL)
    dollar: bool = False  # $tag$ … $tag$ strings
    nested: bool = False  # /* /* … */ */ nests
    hash: bool = False  # `#` starts a comment
    dash_space: bool = False  # `--` starts a comment only before a blank (MySQL)
    slash: bool = False  # `//` starts a comment (CQL)
    executable: bool = False  # /*! … */ runs its content (MySQL)
    backticks: bool = False  # `name`
    brackets: bool = False  # [name] (SQLite)
    meta: Meta = "none"  # the client's own commands: psql `\x`, mysql `\x`, sqlite `.x`


POSTGRES = Dialect("postgres", e_strings=True, dollar=True, nested=True, meta="psql")
# standard_conforming_strings = off: every '…' escapes with backslashes
POSTGRES_LEGACY = Dialect(
    "postgres-legacy", backslash="'", e_strings=True, dollar=True, nested=True, meta="psql"
)
_MYSQL_DIALECT = Dialect(
    "mysql", hash=True, dash_space=True, executable=True, backticks=True, meta="mysql"
)
MYSQL = replace(_MYSQL_DIALECT, backslash="'\"")
# The mysql client splits statements escaping inside `names` too; the server does not.
MYSQL_CLIENT = replace(_MYSQL_DIALECT, name="mysql-client", backslash="'\"`")
MYSQL_ANSI = replace(_MYSQL_DIALECT, name="mysql-ansi-quotes", backslash="'")  # "…" names a column
MYSQL_PLAIN = replace(_MYSQL_DIALECT, name="mysql-no-backslash-escapes")  # client and server alike
SQLITE = Dialect("sqlite", backticks=True, brackets=True, meta="dot")
# DuckDB's shell splits like SQLite's; its parser reads like PostgreSQL's.
DUCKDB = Dialect("duckdb", e_strings=True, dollar=True, nested=True, meta="dot")
CLICKHOUSE = Dialect(
    "clickhouse", backslash="'\"`", dollar=True, nested=True, hash=True, backticks=True
)
CLICKHOUSE_FLAT = Dialect("clickhouse-flat", backslash="'\"`", hash=True, backticks=True)
CQL = Dialect("cql", dollar=True, slash=True)

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

CommandKind = Literal["psql", "mysql", "dot", "unclear"]


@dataclass(frozen=True)
class Lexed:
    """A script as one dialect reads it.

    `statements` hold code only: each string literal is `''`, each quoted name `_q_`, each
    comment a blank. `commands` are the client's own commands; `problems` say why the rest of
    the text could not be read (an unterminated quote …), which stops the reading. `splits`
    are the offsets where statements end and commands start.
    """

    statements: tuple[str, ...]
    commands: tuple[tuple[CommandKind, str], ...]
    problems: tuple[str, ...]
    splits: tuple[int, ...]


_PLAIN = re.compile(r"[^'\"`\[\\$;\n#/*-]+")
_QUOTE_OR_BACKSLASH = {q: re.compile(rf"[{q}\\\\]") for q in "'\"`"}
_DOLLAR_TAG = re.compile(r"\$(?:[^\W\d]\w*)?\$")
_EXECUTABLE_COMMENT = re.compile(r"/\*M?!\d{0,6}")
_LOOKBEHIND = 64


def _name_char(ch: str) -> bool:
    return ch.isalnum() or ch in "_$" or ord(ch) >= 128


def _starts_token(text: str, i: int) -> bool | None:
    """Whether PostgreSQL starts a new token at `i` (True), is inside a name (False), or it
    cannot be told from here (None)."""
    j = i
    while j > 0 and i - j <= _LOOKBEHIND and _name_char(text[j - 1]):
        j -= 1
    run = text[j:i]
    if not run:
        return True
    if i - j > _LOOKBEHIND:
        return None
    if run.isascii() and run.isdigit():
        return True  # after a number: `1e'…'` is 1 followed by E'…'
    first = run[0]
    if first.isalpha() or first == "_" or ord(first) >= 128:
        return False
    return None


def _line_end(text: str, i: int) -> int:
    end = text.find("\n", i)
    return len(text) if end < 0 else end


class _Lexer:
    def __init__(self, text: str, dialect: Dialect) -> None:
        self.text = text
        self.d = dialect
        self.statements: list[str] = []
        self.commands: list[tuple[CommandKind, str]] = []
        self.problems: list[str] = []
        self.splits: list[int] = []
        self.buf: list[str] = []
        self.pending = False  # the current statement holds code, not only blanks
        self.executable = False  # inside a MySQL /*! … */

    def run(self) -> Lexed:
        text, n = self.text, len(self.text)
        i = 0
        line_start = True
        while i < n and not self.problems:
            if line_start and self.d.meta == "dot" and not self.pending and text[i] in ".#":
                # The sqlite shell reads a line starting with `.` (a dot-command) or `#` (a
                # comment) as its own when no statement is pending.
                end = _line_end(text, i)
                if text[i] == ".":
                    self.splits.append(i)
                    self.commands.append(("dot", text[i:end]))
                i = end
                line_start = False
                continue
            line_start = False
            plain = _PLAIN.match(text, i)
            if plain:
                self.code(plain.group())
                i = plain.end()
            elif text[i] == "\n":
                self.buf.append("\n")
                i += 1
                line_start = True
            else:
                i = self.special(i)
        self.end_statement()
        return Lexed(
            tuple(self.statements),
            tuple(self.commands),
            tuple(self.problems),
            tuple(self.splits),
        )

    def code(self, piece: str) -> None:
        self.buf.append(piece)
        if not self.pending and not piece.isspace():
            self.pending = True

    def end_statement(self) -> None:
        if self.pending:
            self.statements.append("".join(self.buf))
        self.buf.clear()
        self.pending = False

    def problem(self, what: str) -> int:
        self.problems.append(what)
        return len(self.text)

    def special(self, i: int) -> int:
        text, d = self.text, self.d
        ch = text[i]
        after = text[i + 1 : i + 2]
        if ch == "'":
            escapes = "'" in d.backslash
            if not escapes and d.e_strings and i > 0 and text[i - 1] in "eE":
                starts = _starts_token(text, i - 1)
                if starts is None:
                    return self.problem("a quote glued to a word (E'…' or not?)")
                escapes = starts
            return self.quoted(i, "'", escapes, "''")
        if ch == '"':
            return self.quoted(i, '"', '"' in d.backslash, " _q_ ")
        if ch == "`" and d.backticks:
            return self.quoted(i, "`", "`" in d.backslash, " _q_ ")
        if ch == "[" and d.brackets:
            end = text.find("]", i + 1)
            if end < 0:
                return self.problem("an unterminated [name]")
            self.code(" _q_ ")
            return end + 1
        if ch == "\\":
            return self.backslash(i)
        if ch == "$" and d.dollar:
            return self.dollar(i)
        if ch == ";":
            self.splits.append(i)
            self.end_statement()
            return i + 1
        if ch == "#" and d.hash:
            return self.line_comment(i)
        if ch == "-" and after == "-":
            third = text[i + 2 : i + 3]
            if not d.dash_space or not third or third.isspace() or ord(third) < 32:
                return self.line_comment(i)
        if ch == "/" and after == "/" and d.slash:
            return self.line_comment(i)
        if ch == "/" and after == "*":
            return self.block_comment(i)
        if ch == "*" and after == "/" and self.executable:
            self.executable = False
            self.code(" ")
            return i + 2
        self.code(ch)
        return i + 1

    def quoted(self, i: int, quote: str, escapes: bool, placeholder: str) -> int:
        text = self.text
        ends = _QUOTE_OR_BACKSLASH[quote]
        j = i + 1
        while True:
            if escapes:
                found = ends.search(text, j)
                k = found.start() if found else -1
            else:
                k = text.find(quote, j)
            if k < 0:
                return self.problem(f"an unterminated {quote}…{quote} quote")
            if text[k] == "\\":
                j = k + 2
                continue
            if text[k + 1 : k + 2] == quote:
                j = k + 2
                continue
            self.code(placeholder)
            return k + 1

    def line_comment(self, i: int) -> int:
        self.code(" ")
        return _line_end(self.text, i)

    def block_comment(self, i: int) -> int:
        text, d = self.text, self.d
        if d.executable:
            opening = _EXECUTABLE_COMMENT.match(text, i)
            if opening:  # MySQL runs what is inside
                self.executable = True
                self.code(" ")
                return opening.end()
        depth, j = 1, i + 2
        close = text.find("*/", j)
        while depth:
            if close < 0:
                return self.problem("an unterminated /* comment")
            # Read left to right: in `/*/`, the `/*` comes first.
            inner = text.find("/*", j, close + 1) if d.nested else -1
            if inner >= 0:
                depth += 1
                j = inner + 2
                if j > close:
                    close = text.find("*/", j)
            else:
                depth -= 1
                j = close + 2
                close = text.find("*/", j)
        self.code(" ")
        return j

    def dollar(self, i: int) -> int:
        text = self.text
        tag = _DOLLAR_TAG.match(text, i)
        if not tag:
            self.code("$")  # $1, a parameter
            return i + 1
        starts = _starts_token(text, i)
        if starts is None:
            return self.problem("a $ glued to a word (a dollar quote or not?)")
        if not starts:
            self.code("$")  # part of a name: a$b
            return i + 1
        end = text.find(tag.group(), tag.end())
        if end < 0:
            return self.problem("an unterminated dollar-quoted string")
        self.code("''")
        return end + len(tag.group())

    def backslash(self, i: int) -> int:
        meta = self.d.meta
        if meta == "psql":
            return self.psql_command(i)
        if meta == "mysql":
            return self.mysql_command(i)
        self.code("\\")
        return i + 1

    def psql_command(self, i: int) -> int:
        """psql reads a backslash command to the end of its line; `\\\\` ends it early and the
        line goes on as SQL; another backslash starts the next command."""
        text = self.text
        line = text[i : _line_end(text, i)]
        if line.startswith("\\\\"):
            return i + 2
        if line.startswith(("\\;", "\\:")):  # a `;` or `:` put into the query, as SQL
            if line[1] == ";":
                self.splits.append(i)
                self.end_statement()
            else:
                self.code(":")
            return i + 2
        self.splits.append(i)
        self.end_statement()  # the query so far is sent (\g) or kept: judge it on its own
        separator = line.find("\\\\")
        commands = line if separator < 0 else line[:separator]
        if separator >= 0 and any(q in commands for q in "'\"`"):
            # psql reads quotes in the arguments: whether `\\` ends them cannot be told here.
            self.commands.append(("unclear", "psql command arguments with quotes and \\\\"))
            commands, separator = line, -1
        self.commands.extend(("psql", c) for c in re.findall(r"\\[^\\]*", commands))
        return i + len(commands) + (2 if separator >= 0 else 0)

    def mysql_command(self, i: int) -> int:
        """The mysql client's `\\x`: one letter; commands with arguments read up to the end of
        the line or the delimiter."""
        text = self.text
        letter = text[i + 1 : i + 2]
        self.splits.append(i)
        if letter in ("g", "G", "c"):
            self.end_statement()  # \g and \G send the statement, \c drops it
            self.commands.append(("mysql", "\\" + letter))
            return i + 2
        if letter and letter in _MYSQL_BARE:
            self.commands.append(("mysql", "\\" + letter))
            return i + 2
        end = _line_end(text, i)
        delimiter = text.find(";", i, end)
        end = end if delimiter < 0 else delimiter
        self.end_statement()
        self.commands.append(("mysql", text[i:end]))
        return end


def lex(text: str, dialect: Dialect) -> Lexed:
    """`text` as `dialect` reads it."""
    return _Lexer(text, dialect).run()


# ---- judging one statement --------------------------------------------------------------------

_TOKEN = re.compile(r"''|[^\W\d][\w$]*|\d[\w.]*|\S")

_READER_HEADS = _words("select with values table show describe desc explain from")
_TRANSACTION_HEADS = _words("begin commit end rollback abort start")
# Words that change data wherever they stand in a statement (as keywords, not as calls).
_CHANGING = _words(
    "delete update insert merge copy upsert grant revoke create alter drop truncate call do "
    "lock vacuum reindex cluster refresh attach detach load install import export"
)
# `delete`/`update` after these words name an event or a privilege, not a statement.
_NOT_DML_AFTER = _words("on for key do then after before of or instead grant revoke ,")
# Keywords that can stand before `(` without being a function call.
_NOT_CALLS = _words(
    "in exists values as from join any all some over filter within group not and or on using "
    "where select case when then else lateral by distinct array row union intersect except "
    "having limit offset like ilike between is with recursive materialized explain describe "
    "desc table sets rollup cube qualify overlaps to top match against interval of partition "
    "index key into returning"
)
_PURE_FUNCTIONS = _words(
    # aggregates and windows
    "count sum avg min max total string_agg array_agg group_concat listagg json_agg jsonb_agg "
    "json_object_agg jsonb_object_agg bool_and bool_or every stddev stddev_pop stddev_samp "
    "variance var_pop var_samp percentile_cont percentile_disc mode row_number rank dense_rank "
    "percent_rank cume_dist ntile lag lead first_value last_value nth_value "
    # conditionals and types
    "coalesce nullif ifnull isnull nvl iif if greatest least cast convert try_cast typeof "
    "pg_typeof char varchar character numeric decimal float double real int integer bigint "
    "smallint tinyint timestamp timestamptz time date datetime binary varbinary bit "
    # text
    "lower upper length char_length character_length octet_length bit_length substr "
    "substring substring_index trim ltrim rtrim btrim concat concat_ws replace reverse "
    "repeat lpad rpad left right position strpos instr locate split_part translate initcap "
    "ascii chr format printf quote quote_ident quote_literal quote_nullable regexp_replace "
    "regexp_matches regexp_match regexp_like regexp_substr regexp_split_to_array "
    "string_to_array md5 sha1 sha2 sha224 sha256 sha384 sha512 hex unhex to_hex encode "
    "decode find_in_set starts_with "
    # numbers
    "round floor ceil ceiling abs trunc truncate mod power pow sqrt exp ln log log2 log10 "
    "sign pi degrees radians sin cos tan asin acos atan atan2 random width_bucket "
    # dates
    "now current_date current_time current_timestamp localtime localtimestamp "
    "clock_timestamp statement_timestamp transaction_timestamp julianday unixepoch strftime "
    "to_char to_date to_timestamp to_number extract date_part date_trunc date_format "
    "str_to_date datediff date_add date_sub timestampdiff timestampadd from_unixtime "
    "unix_timestamp year month day dayofmonth dayofweek dayofyear hour minute second week "
    "weekday quarter last_day curdate curtime sysdate utc_timestamp age make_date "
    "make_interval make_timestamp justify_days justify_hours epoch "
    # json and arrays
    "json_extract json_unquote json_keys json_length json_valid json_type json_array "
    "json_object json_contains json_search json_each json_tree json_extract_path "
    "json_extract_path_text jsonb_extract_path jsonb_extract_path_text json_array_length "
    "jsonb_array_length jsonb_pretty jsonb_typeof json_typeof json_object_keys "
    "jsonb_object_keys jsonb_each json_build_object jsonb_build_object json_build_array "
    "jsonb_build_array to_json to_jsonb row_to_json jsonb_path_query array_length "
    "array_to_string array_position array_upper array_lower cardinality unnest "
    "generate_series range "
    # the session and the catalog, read
    "version current_database current_user current_schema current_schemas current_role "
    "session_user system_user user database schema connection_id sqlite_version "
    "current_setting pg_backend_pid pg_is_in_recovery pg_postmaster_start_time "
    "pg_current_wal_lsn pg_last_wal_replay_lsn pg_wal_lsn_diff pg_blocking_pids "
    "pg_size_pretty pg_database_size pg_relation_size pg_total_relation_size pg_table_size "
    "pg_indexes_size pg_tablespace_size pg_column_size pg_get_viewdef pg_get_functiondef "
    "pg_get_indexdef pg_get_constraintdef pg_get_triggerdef pg_get_userbyid pg_get_expr "
    "pg_get_serial_sequence pg_encoding_to_char format_type obj_description col_description "
    "to_regclass has_table_privilege has_schema_privilege has_database_privilege "
    "pg_has_role inet_server_addr inet_server_port pragma_table_info pragma_table_list "
    "pragma_index_list pragma_index_info pragma_foreign_key_list pragma_database_list "
    # cql and clickhouse
    "token writetime ttl totimestamp tounixtimestamp dateof unixtimestampof mintimeuuid "
    "maxtimeuuid uuid gen_random_uuid tostring todate todatetime today yesterday "
    "formatreadablesize uniq uniqexact countif sumif avgif"
)
# Functions whose call is destructive by itself, with what they do.
_DESTRUCTIVE_FUNCTIONS = {
    "pg_terminate_backend": "kills database sessions",
    "pg_drop_replication_slot": "drops a replication slot",
    "lo_unlink": "deletes a large object",
}
# PRAGMAs that only read; the first set also takes an argument (a table, a limit).
_PRAGMA_QUERIES = _words(
    "table_info table_xinfo table_list index_list index_info index_xinfo foreign_key_list "
    "foreign_key_check integrity_check quick_check storage_info show"
)
_PRAGMA_SETTINGS = _words(
    "database_list collation_list compile_options function_list module_list pragma_list "
    "page_count page_size freelist_count encoding user_version schema_version application_id "
    "journal_mode synchronous foreign_keys auto_vacuum cache_size data_version show_tables "
    "show_tables_expanded database_size version"
)


def _is_word(token: str) -> bool:
    return token[0].isalpha() or token[0] == "_"


def _show(token: str) -> str:
    return '"…"' if token == "_q_" else token


@dataclass(frozen=True)
class _Statement:
    tokens: tuple[str, ...]
    head: int  # the index of the first token past opening parentheses
    closing: dict[int, int]  # `(` index → its `)` index

    @property
    def first(self) -> str:
        return self.tokens[self.head] if self.head < len(self.tokens) else ""

    def at(self, index: int) -> str:
        return self.tokens[index] if 0 <= index < len(self.tokens) else ""


def _statement(code: str) -> _Statement:
    tokens = tuple(_TOKEN.findall(code.lower()))
    head = 0
    while head < len(tokens) and tokens[head] == "(":
        head += 1
    closing: dict[int, int] = {}
    opened: list[int] = []
    for index, token in enumerate(tokens):
        if token == "(":
            opened.append(index)
        elif token == ")" and opened:
            closing[opened.pop()] = index
    return _Statement(tokens, head, closing)


def statement_verdict(code: str) -> Verdict:
    """One statement's verdict; `code` is a statement as `lex` returns it."""
    st = _statement(code)
    if not st.tokens or st.head >= len(st.tokens):
        return SAFE  # only parentheses: nothing runs
    destroys = _destroys(st)
    if destroys:
        return Verdict("destructive", tuple(destroys))
    first = st.first
    if not _is_word(first):
        return _unknown(f"SQL starting with {first!r} is not known to be read-only")
    objections = _reader_objections(st)
    if objections is None:
        if first in _CHANGING or first in _DML_HEADS:
            return _unknown(f"SQL {first.upper()} changes data")
        return _unknown(f"SQL {first.upper()} is not known to be read-only")
    if objections:
        return Verdict("unknown", tuple(dict.fromkeys(objections)))
    return SAFE


_DML_HEADS = _words("replace set")


def _destroys(st: _Statement) -> list[str]:
    tokens = st.tokens
    first = st.first
    reasons: list[str] = []
    privileges = first in ("grant", "revoke")
    # DELETE and UPDATE whose own clause has no WHERE: per parenthesis group, the candidates
    # not yet followed by a WHERE, and where the last FROM and SET stood.
    groups: list[tuple[list[tuple[str, int]], list[int]]] = [([], [-1, -1])]

    def settle(group: tuple[list[tuple[str, int]], list[int]]) -> None:
        pending, (last_from, last_set) = group
        for kind, index in pending:
            target = last_from if kind == "delete" else last_set
            if target > index:
                reasons.append(f"SQL {kind.upper()} without WHERE changes every row")

    for index, token in enumerate(tokens):
        if token == "(":
            groups.append(([], [-1, -1]))
            continue
        if token == ")":
            if len(groups) > 1:
                settle(groups.pop())
            continue
        if not _is_word(token):
            continue
        before, after = st.at(index - 1), st.at(index + 1)
        if after == "(" and before != ".":
            if token in _DESTRUCTIVE_FUNCTIONS:
                reasons.append(f"SQL {token}() {_DESTRUCTIVE_FUNCTIONS[token]}")
            continue
        if before == "." and token in _DESTRUCTIVE_FUNCTIONS and after == "(":
            if st.at(index - 2) == "pg_catalog":
                reasons.append(f"SQL {token}() {_DESTRUCTIVE_FUNCTIONS[token]}")
            continue
        if before == "." or after == ".":
            continue  # part of a qualified name
        pending, marks = groups[-1]
        if token == "drop" and not privileges:
            reasons.append(
                "SQL ALTER … DROP deletes data" if first == "alter" else "SQL DROP deletes data"
            )
        elif token in ("delete", "update") and not privileges and before not in _NOT_DML_AFTER:
            pending.append((token, index))
        elif token == "where":
            pending.clear()
        elif token == "from":
            marks[0] = index
        elif token == "set":
            marks[1] = index
    while groups:
        settle(groups.pop())
    if first == "truncate" and st.at(st.head + 1) not in ("", "("):
        reasons.append("SQL TRUNCATE deletes every row")
    if first == "kill":
        reasons.append("SQL KILL ends a database session or query")
    if first == "shutdown":
        reasons.append("SQL SHUTDOWN stops the database server")
    return list(dict.fromkeys(reasons))


def _reader_objections(st: _Statement) -> list[str] | None:
    """Why a reader statement is not proven read-only (empty: it is); None: not a reader."""
    first = st.first
    rest = st.tokens[st.head + 1 :]
    if first == "pragma":
        return _pragma_objections(rest)
    if first == "use":
        return [] if len(rest) == 1 and _is_word(rest[0]) else None
    if first in _TRANSACTION_HEADS:
        if first == "start" and st.at(st.head + 1) != "transaction":
            return None
        return [] if all(_is_word(t) for t in rest) else None
    if first not in _READER_HEADS:
        return None
    objections: list[str] = []
    tokens = st.tokens
    for index in range(st.head, len(tokens)):
        token = tokens[index]
        if not _is_word(token):
            continue
        before, after = st.at(index - 1), st.at(index + 1)
        if after == "(":
            if token in _NOT_CALLS or before == "as" or _names_columns(st, index):
                continue
            qualifier = st.at(index - 2) if before == "." else ""
            if qualifier in ("", "pg_catalog") and token in _PURE_FUNCTIONS:
                continue
            name = f"{_show(qualifier)}.{_show(token)}" if qualifier else _show(token)
            objections.append(f"SQL calls {name}(), which is not known to be read-only")
            continue
        if before == "." or after == ".":
            continue
        if token in _CHANGING or (token == "replace" and after == "into"):
            if first == "show" and index == st.head + 1:
                continue  # SHOW CREATE TABLE
            objections.append(f"SQL {first.upper()} contains {token.upper()}, which changes data")
        elif token == "into":
            objections.append("SQL SELECT … INTO writes a table or a file")
        elif token in ("analyze", "analyse") and first in ("explain", "describe", "desc"):
            objections.append("SQL EXPLAIN ANALYZE runs the statement it explains")
    return objections


def _names_columns(st: _Statement, index: int) -> bool:
    """`name (a, b) AS (` in a WITH: a query's name and its columns, not a call."""
    if st.at(index - 1) not in ("with", "recursive", ","):
        return False
    close = st.closing.get(index + 1)
    if close is None or st.at(close + 1) != "as":
        return False
    return st.at(close + 2) in ("(", "materialized", "not")


def _pragma_objections(rest: Sequence[str]) -> list[str] | None:
    words = list(rest)
    if len(words) >= 3 and words[1] == ".":
        words = words[2:]  # schema.name
    if not words or not _is_word(words[0]):
        return None
    name, tail = words[0], words[1:]
    if "=" in tail:
        return [f"SQL PRAGMA {name} = changes a setting"]
    if not tail and (name in _PRAGMA_SETTINGS or name in _PRAGMA_QUERIES):
        return []
    argument = len(tail) == 3 and tail[0] == "(" and tail[2] == ")"
    if argument and name in _PRAGMA_QUERIES:
        return []
    return [f"SQL PRAGMA {name} may change the database"]


# ---- the clients' own commands ----------------------------------------------------------------

_MYSQL_BARE = "ptnqWws#"  # mysql commands without arguments that only print or toggle output
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
_PSQL_COMMANDS = {
    "!": "runs a shell command",
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
        return _unknown(text)
    if kind == "mysql":
        return _mysql_command(text)
    match = re.match(r"([\\.])(\S*)\s*(.*)", text, re.S)
    name, args = (match.group(2), match.group(3).strip()) if match else ("", "")
    if kind == "dot":
        if name in _DOT_READERS:
            return SAFE
        return _unknown(f"sqlite .{name} {_DOT_COMMANDS.get(name, 'is not known to be read-only')}")
    return _psql_command(name, args)


def _psql_command(name: str, args: str) -> Verdict:
    if "`" in args or "`" in name:
        return _unknown(f"psql \\{name} runs a shell command in backquotes")
    if _PSQL_DESCRIBE.fullmatch(name) or name == "echo":
        return SAFE
    if name in _PSQL_BARE and not args:
        return SAFE
    if name in _PSQL_CHOICES and (not args or args.lower() in _PSQL_CHOICES[name]):
        return SAFE
    if name.startswith("!"):
        return _unknown(f"psql \\{name} runs a shell command")
    if name.startswith("g") and args:
        return _unknown(f"psql \\{name} {args} sends the result to a file or a program")
    what = _PSQL_COMMANDS.get(name, "is not known to be read-only")
    return _unknown(f"psql \\{name} {what}")


def _mysql_command(text: str) -> Verdict:
    letter = text[1:2]
    if letter in ("g", "G", "c") or (letter and letter in _MYSQL_BARE):
        return SAFE
    if letter == "u":
        return SAFE  # \u db: use a database
    what = _MYSQL_COMMANDS.get(letter, "is not known to be read-only")
    return _unknown(f"mysql \\{letter} {what}")


# ---- a whole script -------------------------------------------------------------------------


def dialect_verdict(sql: str, dialect: Dialect) -> Verdict:
    """The verdict on `sql` as `dialect` reads it."""
    return _lexed_verdict(lex(sql, dialect), {})


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
    parts += [_unknown(f"SQL with {p} cannot be read") for p in lexed.problems]
    if not parts:
        return _unknown("no SQL to judge")
    return worst(parts)


def sql_verdict(sql: str, program: str | None = None) -> Verdict | None:
    """The verdict on a SQL script (with client commands) given to `program`, or to any SQL
    client when `program` is None: the worst over every way it could be read."""
    seen: dict[tuple[str, str], Verdict] = {}
    parts: list[Verdict] = []
    for group in _READINGS.get(program or "", _ALL_READINGS):
        readings = dict.fromkeys(lex(sql, d) for d in group)
        if len({r.splits for r in readings}) > 1:
            parts.append(_unknown("SQL whose quoting the client and the server read differently"))
        parts += [_lexed_verdict(r, seen) for r in readings]
    if DYNAMIC_VALUE in sql or COMMAND_OUTPUT in sql:
        parts.append(_unknown("SQL computed at run time"))
    return worst(sorted(parts, key=lambda v: v.reasons))


# ---- the clients' options -------------------------------------------------------------------

# What an option does: harmless (`flag`, `value`, `optional`: its value only attached), or
# `sql` (a script to judge), `file` (a script file), `output` (psql -o: a file or `|program`),
# `append` (a log file), `program` (a pager), `var` (psql -v), `list` (psql -l), `unsafe:<why>`.
Effect = str


@dataclass(frozen=True)
class _Client:
    short: dict[str, Effect]
    long: dict[str, Effect]
    style: Literal["getopt", "single"] = "getopt"
    mysql_names: bool = False  # --skip-/--enable-/--loose- prefixes, `_` for `-`
    operand_scripts: bool = False  # sqlite3 db 'SQL' '.tables'
    prefix_args: tuple[str, ...] = ()  # long options matched by prefix: --param_x=…


_TAKES_VALUE = ("value", "sql", "file", "output", "append", "var")


def _options(**groups: str) -> dict[str, Effect]:
    table: dict[str, Effect] = {}
    for effect, names in groups.items():
        for name in names.split():
            table[name] = effect
    return table


def _short(**groups: str) -> dict[str, Effect]:
    return {letter: effect for effect, letters in groups.items() for letter in letters}


_PSQL = _Client(
    short=_short(flag="aAbeEHnqsStVwWxXz?01", value="dhpFPRTU", sql="c", file="f")
    | {
        "o": "output",
        "L": "append",
        "v": "var",
        "l": "list",
    },
    long=_options(
        flag="echo-all no-align echo-queries echo-errors echo-hidden field-separator-zero html "
        "no-readline single-transaction quiet record-separator-zero single-step single-line "
        "tuples-only version no-password password expanded no-psqlrc csv",
        value="dbname field-separator host port pset record-separator table-attr username",
        optional="help",
        sql="command",
        file="file",
        output="output",
        append="log-file",
        var="set variable",
        list="list",
    ),
)
_OPTIONS_FILE = "unsafe:reads options from a file, which can change what runs (init-command …)"
# Client commands (`system …`) at the start of any line, even inside a statement.
_MYSQL_NAMED = "unsafe:reads client commands such as `system` on any line"
_MYSQL = _Client(
    short=_short(flag="?IABCcEfgHXibjLnNoqrstUvVwWT", value="DhPSu", sql="e", optional="p")
    | {"#": "unsafe:writes a debug trace file", "G": _MYSQL_NAMED},
    long=_options(
        flag="auto-rehash auto-vertical-output batch binary-as-hex binary-mode column-names "
        "column-type-info comments compress connect-expired-password debug-check debug-info "
        "enable-cleartext-plugin force get-server-public-key help html ignore-spaces "
        "line-numbers no-auto-rehash no-beep no-defaults one-database pipe "
        "print-defaults quick raw reconnect safe-updates i-am-a-dummy secure-auth "
        "show-warnings sigint-ignore silent skip-column-names skip-line-numbers skip-pager "
        "syslog table unbuffered verbose version vertical wait xml no-tee "
        "ssl-session-data-continue-on-failed-reuse",
        value="bind-address character-sets-dir compression-algorithms connect-timeout database "
        "default-character-set dns-srv-name host login-path max-allowed-packet max-join-size "
        "net-buffer-length network-namespace port prompt protocol select-limit "
        "server-public-key-path shared-memory-base-name socket ssl-ca ssl-capath ssl-cert "
        "ssl-cipher ssl-crl ssl-crlpath ssl-fips-mode ssl-key ssl-mode ssl-session-data "
        "tls-ciphersuites tls-version tls-sni-servername user zstd-compression-level histignore "
        "load-data-local-dir",
        optional="password local-infile system-command commands",
        sql="execute init-command init-command-add",
        append="tee",
        program="pager",
    )
    | {
        "debug": "unsafe:writes a debug trace file",
        "defaults-file": _OPTIONS_FILE,
        "defaults-extra-file": _OPTIONS_FILE,
        "defaults-group-suffix": _OPTIONS_FILE,
        "plugin-dir": "unsafe:loads client plugins (native code) from a directory",
        "default-auth": "unsafe:loads a client plugin (native code)",
        "delimiter": "unsafe:changes where statements end",
        "named-commands": _MYSQL_NAMED,
    },
    mysql_names=True,
)
_ARCHIVE = "unsafe:creates or extracts archive files"
_SQLITE_LONG = _options(
    flag="append ascii bail batch box column csv deserialize echo header noheader help html "
    "interactive json line list markdown memtrace multiplex nofollow no-rowid-in-view quote "
    "readonly safe stats table tabs utf8 version zip pcachetrace",
    value="separator newline nullvalue vfs maxsize mmap sorterref nonce escape",
    value2="lookaside pagecache heap",
    sql="cmd",
    file="init",
) | {
    "A": _ARCHIVE,
    "unsafe-testing": "unsafe:turns off the shell's safety checks",
}
_SQLITE = _Client(short={}, long=_SQLITE_LONG, style="single", operand_scripts=True)
_DUCKDB = _Client(
    short={},
    long=_SQLITE_LONG
    | _options(flag="no-stdin", sql="c s", file="f")
    | {
        "unsigned": "unsafe:allows loading unsigned extensions (native code)",
        "ui": "unsafe:starts the web interface",
    },
    style="single",
    operand_scripts=True,
)
_CLICKHOUSE = _Client(
    short=_short(flag="mntsEV", value="dhuf", sql="q") | {"C": _OPTIONS_FILE},
    long=_options(
        flag="multiline multiquery time stacktrace secure vertical version help echo "
        "ask-password progress",
        value="database host port user password format history_file",
        sql="query",
        file="queries-file",
    )
    | {"config-file": _OPTIONS_FILE},
    prefix_args=("param_",),
)
_CQLSH = _Client(
    short=_short(flag="Ct", value="kup", sql="e", file="f"),
    long=_options(
        flag="ssl color no-color debug tty no-file-io disable-history version help "
        "insecure-password-without-warning",
        value="keyspace username password cqlversion protocol-version connect-timeout "
        "request-timeout encoding secure-connect-bundle",
        sql="execute",
        file="file",
    )
    | {
        "browser": "unsafe:opens a browser",
        "cqlshrc": "unsafe:reads settings from a file",
    },
)
_CLIENTS: dict[str, _Client] = {
    "psql": _PSQL,
    "mysql": _MYSQL,
    "mariadb": _MYSQL,
    "sqlite3": _SQLITE,
    "duckdb": _DUCKDB,
    "clickhouse-client": _CLICKHOUSE,
    "cqlsh": _CQLSH,
}


@dataclass
class _Parsed:
    options: list[tuple[Effect, str, str | None]]  # effect, the option as written, its value
    operands: list[str]
    problems: list[str]


def _long_effect(client: _Client, name: str) -> tuple[Effect | None, str]:
    """The effect of `--name` (an unambiguous prefix counts, as getopt_long reads it), and the
    option's full name."""
    table = client.long
    if client.mysql_names:
        name = name.replace("_", "-")
        if name.startswith("loose-"):
            name = name[len("loose-") :]
    if any(name.startswith(p) for p in client.prefix_args):
        return "value", name
    if name in table:
        return table[name], name
    matches = [n for n in table if n.startswith(name)] if name else []
    if len(matches) == 1:
        return table[matches[0]], matches[0]
    if client.mysql_names:
        for prefix in ("skip-", "disable-", "enable-"):
            if name.startswith(prefix):
                effect, full = _long_effect(client, name[len(prefix) :])
                if effect in ("flag", "optional"):
                    return "flag", full
                return None, name
        if name.startswith("maximum-"):
            return "value", name
    return None, name


def _parse(program: str, client: _Client, words: Sequence[str | None]) -> _Parsed:
    parsed = _Parsed([], [], [])
    index = 0
    ended = False

    def value_at(at: int) -> str | None:
        return words[at] if at < len(words) else ""

    while index < len(words):
        word = words[index]
        index += 1
        if word is None:
            parsed.problems.append(f"{program} argument computed at run time")
            continue
        if ended or not word.startswith("-") or word == "-":
            parsed.operands.append(word)
            continue
        if word == "--" and client.style == "getopt":
            ended = True
            continue
        if client.style == "single" or word.startswith("--"):
            single = client.style == "single"
            body = word[2:] if word.startswith("--") else word[1:]
            if single:  # sqlite3 -cmd: exact names, values in the next word
                effect, full, attached, eq = client.long.get(body), body, "", False
            else:
                name, sep, attached = body.partition("=")
                effect, full = _long_effect(client, name)
                eq = bool(sep)
            if effect is None:
                parsed.problems.append(f"{program} option {word} is not known")
                continue
            shown = ("-" if single else "--") + full
            if effect == "value2":
                index += 2
            elif effect in _TAKES_VALUE:
                if eq:
                    parsed.options.append((effect, shown, attached))
                else:
                    parsed.options.append((effect, shown, value_at(index)))
                    index += 1
            else:
                parsed.options.append((effect, shown, attached if eq else ""))
                if effect == _ARCHIVE:
                    break  # sqlite3 -A takes every later word
            continue
        # A bundle of short options: `-tAc 'SQL'`, `-uroot`.
        for at in range(1, len(word)):
            letter = word[at]
            effect = client.short.get(letter)
            if effect is None:
                parsed.problems.append(f"{program} option -{letter} is not known")
                break
            rest = word[at + 1 :]
            if effect in _TAKES_VALUE:
                if rest:
                    parsed.options.append((effect, "-" + letter, rest))
                else:
                    parsed.options.append((effect, "-" + letter, value_at(index)))
                    index += 1
                break
            if effect == "optional":
                parsed.options.append((effect, "-" + letter, rest))
                break
            parsed.options.append((effect, "-" + letter, ""))
    return parsed


_HARMLESS_TARGETS = frozenset(("/dev/null", "/dev/stdout", "/dev/stderr", "-"))


def _option_verdict(program: str, effect: Effect, shown: str, value: str | None) -> Verdict:
    if effect.startswith("unsafe:"):
        return _unknown(f"{program} {shown} {effect[len('unsafe:') :]}")
    if value is None and effect in ("file", "output", "append", "var", "program"):
        return _unknown(f"{program} {shown} takes a value computed at run time")
    value = value or ""
    if effect == "file":
        return _unknown(f"{program} {shown} runs the commands in {value or 'a file'}")
    if effect == "append":
        return _unknown(f"{program} {shown} appends to {value or 'a file'}")
    if effect == "program":
        return _unknown(f"{program} {shown} pipes the output through a program")
    if effect == "var" and "`" in value:
        return _unknown(f"{program} {shown} sets a variable with a backquoted command")
    if effect == "output":
        if value.startswith("|"):
            return _unknown(f"{program} {shown} pipes query output to a program: {value[1:]}")
        if value not in _HARMLESS_TARGETS:
            return _destructive(f"{program} {shown} writes query output over {value}")
    return SAFE


def check_sql_client(program: str, view: ArgView) -> Verdict | None:
    """psql, mysql, sqlite3, duckdb, clickhouse-client, cqlsh: options, then the scripts."""
    client = _CLIENTS.get(program)
    if client is None:
        return _unknown(f"{program} opens a database session")
    parsed = _parse(program, client, view.words)
    parts = [_unknown(p) for p in parsed.problems]
    scripts: list[str | None] = []
    sources = 0  # scripts and script files
    listing = False
    for effect, shown, value in parsed.options:
        if effect == "sql":
            scripts.append(value)
        elif effect == "list":
            listing = True
        else:
            sources += effect == "file"
            parts.append(_option_verdict(program, effect, shown, value))
    if client.operand_scripts:
        scripts += parsed.operands[1:]  # after the database file
    for script in scripts:
        if script is None:
            parts.append(_unknown("SQL computed at run time"))
        else:
            parts.append(sql_verdict(script, program) or SAFE)
    if not scripts and not sources and not listing:
        parts.append(_unknown(f"{program} opens a database session"))
    return worst(parts)


# ---- redis ----------------------------------------------------------------------------------

_REDIS_DESTRUCTIVE = _words(
    "flushall flushdb del unlink shutdown swapdb rename restore migrate expire pexpire "
    "expireat pexpireat getdel replicaof slaveof"
)
_REDIS_DESTRUCTIVE_PAIRS = {
    ("client", "kill"): "redis CLIENT KILL ends client connections",
    ("script", "flush"): "redis SCRIPT FLUSH deletes every script",
    ("function", "flush"): "redis FUNCTION FLUSH deletes every function",
    ("function", "delete"): "redis FUNCTION DELETE deletes a library",
    ("cluster", "reset"): "redis CLUSTER RESET forgets the cluster",
    ("cluster", "flushslots"): "redis CLUSTER FLUSHSLOTS drops every slot",
    ("acl", "deluser"): "redis ACL DELUSER deletes users",
}
_REDIS_READERS = _words(
    "get mget keys scan info ping ttl pttl type exists strlen llen lrange lindex hget hgetall "
    "hkeys hvals hlen hexists hmget hstrlen hscan smembers scard sismember smismember sscan "
    "zrange zrangebyscore zrevrange zrevrangebyscore zcard zscore zrank zrevrank zcount zscan "
    "dbsize time echo lastsave role xrange xrevrange xlen getrange randomkey bitcount getbit "
    "pfcount geopos geodist"
)
_REDIS_READER_PAIRS = frozenset(
    (
        ("config", "get"),
        ("client", "list"),
        ("client", "info"),
        ("client", "getname"),
        ("client", "id"),
        ("memory", "usage"),
        ("memory", "stats"),
        ("memory", "doctor"),
        ("cluster", "info"),
        ("cluster", "nodes"),
        ("cluster", "slots"),
        ("cluster", "shards"),
        ("acl", "list"),
        ("acl", "whoami"),
        ("acl", "users"),
        ("command", "count"),
        ("command", "docs"),
        ("command", "info"),
        ("slowlog", "get"),
        ("slowlog", "len"),
        ("latency", "latest"),
        ("latency", "doctor"),
        ("module", "list"),
        ("function", "list"),
        ("script", "exists"),
        ("object", "encoding"),
        ("object", "idletime"),
        ("object", "freq"),
        ("object", "refcount"),
        ("xinfo", "stream"),
        ("xinfo", "groups"),
    )
)
_REDIS_VALUE_OPTIONS = _words(
    "-h -p -s -a -u -r -i -n -d -D -t -X --user --pass --sni --cacert --cacertdir --cert --key "
    "--tls-ciphers --tls-ciphersuites --show-pushes --pattern --count --quoted-pattern "
    "--memkeys-samples --keystats-samples --pipe-timeout --intrinsic-latency"
)
_REDIS_FLAGS = _words(
    "-2 -3 -4 -6 -x -c -e --tls --insecure --raw --no-raw --quoted-input --csv --json "
    "--quoted-json --askpass --no-auth-warning --verbose --help --version --ldb "
    "--ldb-sync-mode --latency-dist"
)
# Modes that only watch or sample the server.
_REDIS_WATCHERS = _words(
    "--stat --latency --latency-history --bigkeys --memkeys --keystats --hotkeys --scan "
    "--replica --intrinsic-latency"
)
_REDIS_UNSAFE = {
    "--eval": "runs a Lua script",
    "--pipe": "sends every command it reads from its input",
    "--cluster": "manages the cluster",
    "--lru-test": "writes test keys",
    "--functions-rdb": "writes a dump file",
}


def check_redis(program: str, view: ArgView) -> Verdict | None:
    words = view.words
    operands: list[str | None] = []
    parts: list[Verdict] = []
    watching = False
    index = 0
    while index < len(words):
        word = words[index]
        index += 1
        if operands or word is None or not word.startswith("-"):
            operands.append(word)
            continue
        if word in _REDIS_VALUE_OPTIONS:
            index += 1
            watching = watching or word == "--intrinsic-latency"
        elif word in _REDIS_WATCHERS:
            watching = True
        elif word == "--rdb":
            target = words[index] if index < len(words) else None
            parts.append(_destructive(f"redis-cli --rdb writes a dump over {target or 'a file'}"))
            index += 1
        elif word in _REDIS_UNSAFE:
            parts.append(_unknown(f"redis-cli {word} {_REDIS_UNSAFE[word]}"))
            break
        elif word not in _REDIS_FLAGS:
            parts.append(_unknown(f"redis-cli option {word} is not known"))
    if operands:
        parts.append(_redis_command(operands))
    elif not watching and not parts:
        parts.append(_unknown("redis-cli opens a session"))
    return worst(parts)


def _redis_command(operands: Sequence[str | None]) -> Verdict:
    if operands[0] is None:
        return _unknown("redis command computed at run time")
    command = operands[0].lower()
    sub = (operands[1] or "").lower() if len(operands) > 1 else ""
    if command in _REDIS_DESTRUCTIVE:
        return _destructive(f"redis {command.upper()} deletes data")
    if (command, sub) in _REDIS_DESTRUCTIVE_PAIRS:
        return _destructive(_REDIS_DESTRUCTIVE_PAIRS[(command, sub)])
    if command in _REDIS_READERS or (command, sub) in _REDIS_READER_PAIRS:
        return SAFE
    return _unknown(f"redis {command.upper() or 'command'} may change data")


# ---- mongo ----------------------------------------------------------------------------------

_MONGO_DESTRUCTIVE = re.compile(
    r"\.(drop|dropDatabase|deleteMany|deleteOne|remove|findOneAndDelete|dropIndexes?|"
    r"dropUser|dropAllUsers|dropRole|dropAllRoles|dropSearchIndex)\s*\(|"
    r"[{,]\s*[\"']?(drop|dropDatabase|delete|dropIndexes|dropAllUsersFromDatabase)[\"']?\s*:"
)


def check_mongo(program: str, view: ArgView) -> Verdict | None:
    words = view.words
    scripts: list[str | None] = []
    parts: list[Verdict] = []
    for index, word in enumerate(words):
        if word == "--eval":
            scripts.append(words[index + 1] if index + 1 < len(words) else "")
        elif word is not None and word.startswith("--eval="):
            scripts.append(word.split("=", 1)[1])
        elif word in ("-f", "--file") or (word or "").endswith(".js"):
            parts.append(_unknown(f"{program} runs a script file"))
    if any(s is None or _MONGO_DESTRUCTIVE.search(s) for s in scripts):
        return _destructive("mongo script drops or deletes data")
    if scripts:
        parts.append(_unknown("mongo script may change data"))
    elif not parts:
        parts.append(_unknown(f"{program} opens a database session"))
    return worst(parts)


SQL_CHECKS: dict[str, Check] = {
    **{name: check_sql_client for name in SQL_CLIENTS},
    "redis-cli": check_redis,
    "mongosh": check_mongo,
    "mongo": check_mongo,
}
