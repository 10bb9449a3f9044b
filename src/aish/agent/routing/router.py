"""Routing of a typed line to the shell, the model or a meta command (SPEC §1).

`route_line` is pure and deterministic given its inputs: it parses the line with
tree-sitter-bash, checks its first command word against a `KnownCommands` set given by the
caller, and asks a `names_path` test given by the caller whether a word names something in the
shell's current directory (the REPL answers from the live shell's cwd; without it nothing does).
It never looks at the filesystem, PATH or environment itself. The rules, first match wins:

1. An empty or blank line goes to the shell with empty text (the REPL ignores it).
2. `:ask <text>` goes to the model with `<text>`; any other `:word …` is a meta command.
3. `!…` forces the shell (`!` removed; `!!…`, history expansion, is passed unchanged);
   `^old^new`, bash's quick substitution (the last command with a change), goes to the shell;
   `?…` forces the model (`?` removed).
4. A line bash cannot parse goes to the model (tree-sitter-bash, plus reserved words such as
   `done` or `then` in command position, which bash rejects). Valid bash that tree-sitter
   misreads (`exec 3<>file`, `;;&`, `echo $%`, extended globs) is parsed through a stand-in of
   the same shape (`repair`).
5. A line led by shell syntax goes to the shell: a keyword construct (`for`, `if`, `[[`, `(`,
   `{`, …), an assignment, a redirection, an assignment or redirection before the command word,
   a command word built from an expansion (`$EDITOR`), a path (`./x`, `/usr/bin/x`, `~/x`; any
   word with a `/`, as bash decides), or only a comment.
6. A first command word that is a builtin, keyword, alias, function or executable goes to the
   shell — unless the line reads as an English sentence (see `english`), which goes to
   the model. Words that name files in the cwd count for the command (`mv a b`). Backticks
   around words inside such a sentence are markdown quoting, not command substitution
   ("convert all the `.doc` files here to PDF"): the sentence is read with each quoted span as
   one plain word.
7. Everything else goes to the model.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from aish.agent.routing.english import NO_PATHS, NameTest, SentenceVerdict, read_as_sentence
from aish.agent.routing.names import BASH_BUILTINS, BASH_KEYWORDS, executables_on_path
from aish.agent.routing.repair import stand_in
from aish.safety.bash.syntax import BashLine, SimpleCommand, parse_bash

__all__ = ["NO_PATHS", "KnownCommands", "NameTest", "Route", "RouteTarget", "route_line"]

RouteTarget = Literal["shell", "model", "meta"]


@dataclass(frozen=True)
class KnownCommands:
    """Every name that can start a command: builtins, keywords, aliases, functions, executables.

    Bash's builtins and keywords count as known even when missing from `names`.
    """

    names: frozenset[str]

    @classmethod
    def from_system(cls, extra: Iterable[str] = ()) -> KnownCommands:
        """Bash builtins and keywords, every executable on `$PATH`, and `extra` (the live
        shell's aliases and functions, supplied by the REPL)."""
        return cls(BASH_BUILTINS | BASH_KEYWORDS | executables_on_path() | frozenset(extra))

    def __contains__(self, name: object) -> bool:
        return name in self.names or name in BASH_BUILTINS or name in BASH_KEYWORDS


@dataclass(frozen=True)
class Route:
    """Where a line goes, the text to run or ask, and one short sentence saying why."""

    target: RouteTarget
    text: str
    reason: str


_BACKTICK_SPAN = re.compile(r"`[^`\n]*`")
_QUOTED_SPAN_WORD = "code"  # a neutral plain word: no English clue, no shell syntax


@dataclass(frozen=True)
class _Judge:
    """What the router is given besides the line: the known commands and the path test."""

    known: KnownCommands
    names_path: NameTest

    def is_command(self, word: str) -> bool:
        return word in self.known


def route_line(line: str, known: KnownCommands, names_path: NameTest = NO_PATHS) -> Route:
    """Decide where `line` goes. Pure: the only facts it uses are `known` and `names_path`.

    `names_path(word)` answers whether `word`, as a path (or a glob) relative to the shell's
    current directory, names something that exists; the default says nothing does.
    """
    stripped = line.strip()
    if not stripped:
        return Route("shell", "", "an empty line")
    forced = _forced(stripped)
    if forced is not None:
        return forced
    judge = _Judge(known, names_path)
    parsed = parse_bash(stripped)
    if not parsed.ok:
        repaired = stand_in(stripped)
        fixed = parse_bash(repaired) if repaired is not None else None
        if fixed is None or not fixed.ok:
            return Route("model", stripped, f"bash cannot parse it ({parsed.error})")
        parsed = fixed
    quoting = _backticks_as_quoting(stripped, judge)
    if quoting is not None:
        return quoting
    return _route_parsed(stripped, parsed, judge)


def _forced(line: str) -> Route | None:
    """The prefixes that decide by themselves: `:word`, `:ask`, `!`, `?`."""
    first = line[0]
    if first == ":" and len(line) > 1 and line[1].isalpha():
        word, *rest = line.split(maxsplit=1)
        if word == ":ask" and rest:
            return Route("model", rest[0], "`:ask` sends the rest of the line to the model")
        return Route("meta", line, f"`{word}` is a meta command")
    if line.startswith("!!"):
        return Route("shell", line, "`!!` is bash history expansion")
    if first == "!":
        return Route("shell", line[1:].strip(), "the `!` prefix forces the shell")
    if first == "^" and len(line) > 1:
        return Route("shell", line, "`^old^new` is bash quick substitution: the last line, changed")
    if first == "?":
        return Route("model", line[1:].strip(), "the `?` prefix forces the model")
    return None


def _backticks_as_quoting(line: str, judge: _Judge) -> Route | None:
    """An English sentence that quotes words in markdown backticks goes to the model."""
    if "`" not in line:
        return None
    plain = _BACKTICK_SPAN.sub(_QUOTED_SPAN_WORD, line)
    if "`" in plain:
        return None
    parsed = parse_bash(plain)
    command = parsed.lead.command
    if not parsed.ok or command is None or command.name is None:
        return None
    name = command.name.value
    if name is None or name not in judge.known or not _is_plain_single_command(parsed):
        return None
    # The spans stand for text we cannot see, so whether they fit the command is not judged.
    arguments = [(a.text, a.quoted) for a in command.arguments]
    verdict = read_as_sentence(
        name, arguments, judge.is_command, judge.names_path, judge_operands=False
    )
    if not verdict.is_sentence:
        return None
    what = _kind_of(name)
    clues = _clue_list(verdict)
    return Route(
        "model",
        line,
        f"`{name}` is {what}, but the line reads as English ({clues}); "
        "its backticks quote words, they run nothing",
    )


def _sentence(name: str, command: SimpleCommand, judge: _Judge) -> SentenceVerdict:
    arguments = [(a.text, a.quoted) for a in command.arguments]
    return read_as_sentence(name, arguments, judge.is_command, judge.names_path)


def _clue_list(verdict: SentenceVerdict) -> str:
    return ", ".join(dict.fromkeys(verdict.evidence))


def _route_parsed(line: str, parsed: BashLine, judge: _Judge) -> Route:
    lead = parsed.lead
    if lead.kind == "comment":
        return Route("shell", line, "only a comment, which bash ignores")
    if lead.kind == "compound":
        return Route("shell", line, _compound_reason(lead.token))
    if lead.kind == "assignment":
        return Route("shell", line, "it starts with a variable assignment")
    if lead.kind == "redirection":
        return Route("shell", line, "it starts with a redirection")
    command = lead.command
    if command is None or command.name is None:  # `empty` cannot happen for a non-blank line
        return Route("model", line, "it has no command word")
    return _route_command(line, parsed, command, judge)


def _route_command(line: str, parsed: BashLine, command: SimpleCommand, judge: _Judge) -> Route:
    assert command.name is not None
    name, written = command.name.value, command.name.text
    if command.assignments:
        return Route("shell", line, "it starts with a variable assignment before the command")
    if command.redirection_first:
        return Route("shell", line, "it starts with a redirection before the command")
    if name is None:
        return Route("shell", line, f"the command word `{written}` is an expansion")
    if "/" in name or name.startswith("~"):
        return Route("shell", line, f"`{written}` is a path to a program")
    if name not in judge.known:
        return Route(
            "model", line, f"`{name}` is not a builtin, keyword, alias, function or program on PATH"
        )
    what = _kind_of(name)
    if _is_plain_single_command(parsed):
        verdict = _sentence(name, command, judge)
        if verdict.is_sentence:
            return Route(
                "model",
                line,
                f"`{name}` is {what}, but the line reads as English ({_clue_list(verdict)})",
            )
        if verdict.paths:
            named = ", ".join(f"`{word}`" for word in verdict.paths)
            files = "name files" if len(verdict.paths) > 1 else "names a file"
            return Route("shell", line, f"`{name}` is {what}, and {named} {files} here")
    return Route("shell", line, f"`{name}` is {what}")


def _is_plain_single_command(parsed: BashLine) -> bool:
    """One simple command with words only: no operators, redirections or expansions."""
    return (
        parsed.statement_count == 1
        and len(parsed.commands) == 1
        and not parsed.has_operators
        and not parsed.has_redirections
        and not parsed.has_assignments
        and not parsed.has_expansions
    )


def _compound_reason(token: str) -> str:
    if token == "(":
        return "it is a subshell `( … )`"
    if token == "function":
        return "it defines a shell function"
    if token == "((":
        return "it is an arithmetic command `(( … ))`"
    if token in BASH_KEYWORDS:
        return f"it starts with the shell keyword `{token}`"
    if token in BASH_BUILTINS:
        return f"it starts with the shell builtin `{token}`"
    return f"it starts with the shell syntax `{token}`"


def _kind_of(name: str) -> str:
    if name in BASH_KEYWORDS:
        return "a shell keyword"
    if name in BASH_BUILTINS:
        return "a shell builtin"
    return "a known command"
