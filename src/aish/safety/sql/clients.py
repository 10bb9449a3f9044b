"""SQL clients' command lines: psql, mysql, mariadb, sqlite3, duckdb, clickhouse-client, cqlsh.

Each client's options are read the way the client reads them (getopt bundles and attached
values, unambiguous long-option prefixes, mysql's `--skip-`/`--loose-` names, sqlite3's
single-dash long options), because an option can itself run a program, read a script file,
write the output over a file or read settings that change what runs. Then every script handed
over (`-c`, `-e`, `-q`, sqlite3's operands) is judged by `sql_verdict`; a client given no
script opens an interactive session, which is unknown. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from aish.safety.bash.options import ArgView
from aish.safety.reasons import destructive, unknown
from aish.safety.sql.scripts import sql_verdict
from aish.safety.verdict import SAFE, Verdict, worst

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
SQL_CLIENTS = tuple(_CLIENTS)


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
        return unknown(f"{program} {shown} {effect[len('unsafe:') :]}")
    if value is None and effect in ("file", "output", "append", "var", "program"):
        return unknown(f"{program} {shown} takes a value computed at run time")
    value = value or ""
    if effect == "file":
        return unknown(f"{program} {shown} runs the commands in {value or 'a file'}")
    if effect == "append":
        return unknown(f"{program} {shown} appends to {value or 'a file'}")
    if effect == "program":
        return unknown(f"{program} {shown} pipes the output through a program")
    if effect == "var" and "`" in value:
        return unknown(f"{program} {shown} sets a variable with a backquoted command")
    if effect == "output":
        if value.startswith("|"):
            return unknown(f"{program} {shown} pipes query output to a program: {value[1:]}")
        if value not in _HARMLESS_TARGETS:
            return destructive(f"{program} {shown} writes query output over {value}")
    return SAFE


def check_sql_client(program: str, view: ArgView) -> Verdict | None:
    """psql, mysql, sqlite3, duckdb, clickhouse-client, cqlsh: options, then the scripts."""
    client = _CLIENTS.get(program)
    if client is None:
        return unknown(f"{program} opens a database session")
    parsed = _parse(program, client, view.words)
    parts = [unknown(p) for p in parsed.problems]
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
            parts.append(unknown("SQL computed at run time"))
        else:
            parts.append(sql_verdict(script, program))
    if not scripts and not sources and not listing:
        parts.append(unknown(f"{program} opens a database session"))
    return worst(parts)
