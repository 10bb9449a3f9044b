"""One SQL statement's verdict, read from its tokens once the lexer has blanked its literals.

DROP, TRUNCATE (the statement), DELETE or UPDATE without a WHERE of their own (also inside a
WITH or an EXPLAIN ANALYZE), KILL, SHUTDOWN and `pg_terminate_backend()` are destructive. A
statement is safe only when it is a reader (SELECT, WITH, VALUES, TABLE, SHOW, DESCRIBE, EXPLAIN
without ANALYZE, a read-only PRAGMA, USE, transaction control), nothing inside it changes data,
and every function it calls is on the allowlist of functions known to be pure; anything else is
unknown. Pure: no I/O, and no input makes these functions raise.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from aish.safety.reasons import unknown
from aish.safety.verdict import SAFE, Verdict


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_TOKEN = re.compile(r"''|[^\W\d][\w$]*|\d[\w.]*|\S")

_READER_HEADS = _words("select with values table show describe desc explain from")
_TRANSACTION_HEADS = _words("begin commit end rollback abort start")
# Heads that change data only as the first word: elsewhere replace() is a function, SET a clause.
_DML_HEADS = _words("replace set")
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
        return unknown(f"SQL starting with {first!r} is not known to be read-only")
    objections = _reader_objections(st)
    if objections is None:
        if first in _CHANGING or first in _DML_HEADS:
            return unknown(f"SQL {first.upper()} changes data")
        return unknown(f"SQL {first.upper()} is not known to be read-only")
    if objections:
        return Verdict("unknown", tuple(dict.fromkeys(objections)))
    return SAFE


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
