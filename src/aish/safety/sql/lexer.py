"""How each database splits SQL text into code, string literals, comments and client commands.

A `Dialect` says what one database (or its client) reads as a quote, an escape, a comment or
a command of its own: quotes with and without backslash escapes, PostgreSQL's dollar quotes and
nested comments, MySQL's `#` comments, `-- ` and executable `/*! … */` comments, SQLite's
`[names]`, CQL's `//` comments, psql and mysql `\\x` and sqlite `.x` commands. `lex` reads a
script the way one dialect does and hands back its statements as code only (every string
literal `''`, every quoted name `_q_`, every comment a blank), so that what is judged later is
only what would run. Pure: no I/O, and no input makes `lex` raise.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Literal

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

# The mysql client's commands without arguments, which only print or toggle output: the lexer
# must know that they end after their letter, where the line goes on as SQL.
MYSQL_BARE = "ptnqWws#"

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
        if letter and letter in MYSQL_BARE:
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
