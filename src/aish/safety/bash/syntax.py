"""One line of bash, parsed by tree-sitter-bash and described as plain data.

`parse_bash(text)` answers the questions the line router asks and the safety classifier will
build on: does the text parse cleanly, what are its simple commands (command word after any
assignments and redirections, arguments, assignments, redirections), and does it use control
operators, redirections, assignments or expansions at all.

The parser is built on first use, not at import, so importing this module stays cheap. Parsing
never raises on any text; what bash would reject (tree-sitter's ERROR/MISSING nodes, and reserved
words such as `then` or `done` in command position, which tree-sitter accepts as command names)
comes back as `ok=False` with a short reason.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from collections.abc import Callable

    from tree_sitter import Node, Parser

__all__ = [
    "BashLine",
    "Lead",
    "SimpleCommand",
    "Word",
    "misplaced_reserved_word",
    "node_text",
    "parse_bash",
    "parsed_tree",
    "unescape_double_quoted",
    "unescape_word",
    "word_value",
]

LeadKind = Literal["empty", "comment", "command", "assignment", "redirection", "compound"]


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Reserved words that tree-sitter-bash, recovering from an incomplete construct, reads as plain
# command names (`then what?`, `done`, `! case`); bash rejects them as the first word of a command.
_MISPLACED_RESERVED = _names(
    "then else elif fi do done esac in } ]] if case for select while until function { [["
)
_REDIRECTS = _names("file_redirect heredoc_redirect herestring_redirect")
_OPERATORS = _names("| |& && || ; & ;; ;& ;;&")
_SUBSTITUTIONS = _names("command_substitution process_substitution")
_EXPANSIONS = _SUBSTITUTIONS | _names(
    "simple_expansion expansion arithmetic_expansion brace_expression"
)
_ASSIGNMENTS = _names("variable_assignment variable_assignments")
_COMMAND_TYPES = _ASSIGNMENTS | _names("command declaration_command unset_command")
# Statements whose first token is a keyword or an opening bracket.
_COMPOUND = _names(
    "for_statement c_style_for_statement while_statement if_statement case_statement "
    "function_definition compound_statement subshell test_command negated_command"
)
_DQ_ESCAPABLE = frozenset('$`"\\\n')
_ANSI_C_ESCAPES = dict(zip("ntrabeEfv\\'\"?", "\n\t\r\a\b\x1b\x1b\f\v\\'\"?", strict=True))


@dataclass(frozen=True)
class Word:
    """One shell word.

    `text` is the word as written. `value` is what it means after quote removal and backslash
    unescaping, or None when it contains a parameter, command, arithmetic or brace expansion
    (its value is only known at run time); glob characters, `~` and brace lists like `{a,b}`
    (which tree-sitter does not mark) are kept literally. `quoted`
    says whether any part of it was quoted or backslash-escaped.
    """

    text: str
    value: str | None
    quoted: bool


@dataclass(frozen=True)
class SimpleCommand:
    """A simple command: optional assignments and redirections around an optional command word.

    `name` is the command word (the first word after assignments and redirections); None for a
    line like `x=1` or `> out.log`. `in_substitution` marks commands inside `$(…)`, backticks or
    `<(…)`/`>(…)`. `redirection_first` says a redirection comes before the command word
    (`2>/dev/null ls`).
    """

    name: Word | None
    arguments: tuple[Word, ...]
    assignments: tuple[str, ...]
    redirections: tuple[str, ...]
    in_substitution: bool
    redirection_first: bool = False


@dataclass(frozen=True)
class Lead:
    """What the first statement of the line starts with.

    kind `command`: a simple command with a command word (`command` holds it);
    `assignment` / `redirection`: a statement made only of assignments / redirections (a
    redirection wins when both are present); `compound`: a keyword construct or bracket, named by
    `token` (`for`, `while`, `until`, `select`, `if`, `case`, `function` (also for `f() …`),
    `(`, `{`, `((`, `[`, `[[`, `!`); `comment`: only a comment; `empty`: nothing at all.
    """

    kind: LeadKind
    token: str = ""
    command: SimpleCommand | None = None


@dataclass(frozen=True)
class BashLine:
    """The parse of one line (or a few lines) of bash."""

    source: str
    ok: bool
    error: str | None
    lead: Lead
    commands: tuple[SimpleCommand, ...]
    statement_count: int
    has_operators: bool
    has_redirections: bool
    has_assignments: bool
    has_expansions: bool
    has_comment: bool


_lock = threading.Lock()


@cache
def _parser() -> Parser:
    import tree_sitter_bash
    from tree_sitter import Language, Parser

    return Parser(Language(tree_sitter_bash.language()))


def parse_bash(text: str) -> BashLine:
    """Parse `text` as bash. Never raises; a parse failure is reported in the result."""
    data = text.encode("utf-8", "surrogatepass")
    token = _SOURCE.set(data)
    try:
        root = _parse(data)
        error = _syntax_error(root)
        delimiters = _heredoc_delimiters(root) if error is not None else []
        if delimiters:
            # A one-line `cat <<EOF` has no body yet; bash accepts it (with a warning), so does
            # this.
            closed = data + b"".join(b"\n" + d.encode() for d in delimiters)
            _SOURCE.set(closed)
            retry = _parse(closed)
            if _syntax_error(retry) is None:
                root, error = retry, None
            else:
                _SOURCE.set(data)
        return _describe(text, root, error)
    finally:
        _SOURCE.reset(token)


@contextmanager
def parsed_tree(text: str, *, reserved_words: bool = True) -> Iterator[tuple[Node, str | None]]:
    """The syntax tree of `text` and its first syntax error (None when it parses cleanly).

    Inside the block, `node_text` and `word_value` read nodes of this tree. The tree is the
    same one `parse_bash` describes, so both agree on what is a command and what is an error.
    Without `reserved_words`, a reserved word in command position (`then`, `done`) is left for
    the caller to report (`misplaced_reserved_word`), saving a walk of the whole tree.
    """
    data = text.encode("utf-8", "surrogatepass")
    token = _SOURCE.set(data)
    try:
        root = _parse(data)
        yield root, _syntax_error(root, reserved_words=reserved_words)
    finally:
        _SOURCE.reset(token)


def node_text(node: Node) -> str:
    """A node's text as written (inside `parsed_tree`)."""
    return _text(node)


def unescape_word(text: str) -> str:
    """Backslash removal as in an unquoted word."""
    return _unescape(text)


def unescape_double_quoted(text: str) -> str:
    """Backslash removal as inside double quotes (only before $ ` " \\ and newline)."""
    return _unescape_dq(text)


def word_value(node: Node) -> tuple[str | None, bool]:
    """A word's value after quote removal (None if it expands at run time), and if quoted."""
    return _value(node)


# tree-sitter-bash 0.25 can read out of bounds, and crash the process, on `{` followed by a
# 4-byte UTF-8 character (tree-sitter/tree-sitter-bash#337). Bash never gives a non-ASCII byte
# a meaning of its own (they are all word characters), so the parser is given a copy with every
# such byte replaced by `%`, also a plain word character; byte offsets stay the same, and node
# text is read from the original bytes (`_SOURCE`).
_ASCII_ONLY = bytes(range(128)) + b"%" * 128
_SOURCE: ContextVar[bytes] = ContextVar("bash_syntax_source")


def _parse(data: bytes) -> Node:
    safe = data.translate(_ASCII_ONLY)
    with _lock:  # a tree-sitter Parser must not be used by two threads at once
        return _parser().parse(safe).root_node


def misplaced_reserved_word(name: str) -> str | None:
    """The syntax error of a reserved word bash rejects as a command name (`done`, `then`)."""
    if name in _MISPLACED_RESERVED:
        return f"syntax error near unexpected token `{name}`"
    return None


def _syntax_error(root: Node, *, reserved_words: bool = True) -> str | None:
    if root.has_error:
        bad = _first(root, lambda n: (n.is_error or n.is_missing) and not _nameless_command(n))
        if bad is not None and bad.is_missing:
            return f"syntax error: missing `{bad.type}`"
        if bad is not None:
            return f"syntax error near `{_snippet(_text(bad))}`"
    if not reserved_words:
        return None
    for node in _walk(root):
        if node.type != "command" or not node.child_count:
            continue
        first = node.children[0]  # after an assignment or a redirection, `done` is a plain word
        word = _text(first)
        if first.type == "command_name" and word in _MISPLACED_RESERVED:
            return f"syntax error near unexpected token `{word}`"
        if first.type != "command_name" or word not in ("time", "coproc"):
            continue
        # The word after `time` or `coproc` is in command position too.
        after = node.named_children[1] if node.named_child_count > 1 else None
        if after is None and word == "coproc":
            return "syntax error: `coproc` without a command"
        if after is not None and _text(after) in _MISPLACED_RESERVED:
            return f"syntax error near unexpected token `{_text(after)}`"
    return None


def _nameless_command(node: Node) -> bool:
    """tree-sitter's missing command word in `FOO=1 > out.log`, which bash accepts as it is."""
    name = node.parent
    command = name.parent if name is not None else None
    return (
        node.is_missing
        and name is not None
        and name.type == "command_name"
        and command is not None
        and command.type == "command"
        and all(
            c.type in _REDIRECTS or c.type == "variable_assignment" or c == name
            for c in command.children
        )
    )


def _heredoc_delimiters(root: Node) -> list[str]:
    return [
        _text(n).strip("'\"\\")
        for n in _walk(root)
        if n.type == "heredoc_start" and _text(n).strip("'\"\\")
    ]


def _describe(source: str, root: Node, error: str | None) -> BashLine:
    statements = [c for c in root.named_children if c.type != "comment"]
    nodes = _walk(root)
    types = {n.type for n in nodes}
    return BashLine(
        source=source,
        ok=error is None,
        error=error,
        lead=_lead(statements[0]) if statements else _empty_lead(root),
        commands=tuple(_commands(root)),
        statement_count=len(statements),
        has_operators=any(not n.is_named and n.type in _OPERATORS for n in nodes),
        has_redirections=bool(types & _REDIRECTS),
        has_assignments=bool(types & _ASSIGNMENTS),
        has_expansions=bool(types & _EXPANSIONS),
        has_comment="comment" in types,
    )


def _empty_lead(root: Node) -> Lead:
    return Lead("comment") if root.named_child_count else Lead("empty")


def _lead(node: Node) -> Lead:
    while True:
        if node.type in ("list", "pipeline") and node.named_child_count:
            node = node.named_children[0]
        elif node.type == "redirected_statement":
            body = node.child_by_field_name("body")
            if body is None:
                return Lead("redirection", command=_simple_command(node, False))
            node = body
        else:
            break
    if node.type == "function_definition":
        return Lead("compound", token="function")
    if node.type in _COMPOUND or node.type not in _COMMAND_TYPES:
        return Lead("compound", token=_text(node.children[0]) if node.child_count else node.type)
    command = _simple_command(node, False)
    if command.name is not None:
        return Lead("command", token=command.name.text, command=command)
    kind: LeadKind = "redirection" if command.redirections else "assignment"
    return Lead(kind, command=command)


def _commands(root: Node) -> list[SimpleCommand]:
    """Every simple command, in source order (an enclosing command before the ones inside it)."""
    found: list[tuple[int, SimpleCommand]] = []
    stack: list[tuple[Node, bool, bool]] = [(root, False, False)]
    while stack:
        node, in_sub, in_command = stack.pop()
        counts = _counts_as_command(node, in_command)
        if counts:
            found.append((node.start_byte, _simple_command(node, in_sub)))
        inner_sub = in_sub or node.type in _SUBSTITUTIONS
        inner_command = (in_command or counts) and node.type not in _SUBSTITUTIONS
        stack.extend((c, inner_sub, inner_command) for c in reversed(node.children))
    found.sort(key=lambda item: item[0])
    return [command for _, command in found]


def _counts_as_command(node: Node, in_command: bool) -> bool:
    if in_command:
        return False  # an assignment inside a command (`FOO=1 ls`, `export A=1`) is part of it
    if node.type in ("command", "declaration_command", "unset_command", "variable_assignments"):
        return True
    if node.type == "variable_assignment":
        parent = node.parent
        return parent is None or parent.type not in ("variable_assignments", "for_statement")
    if node.type == "redirected_statement":
        return node.child_by_field_name("body") is None
    return False


def _simple_command(node: Node, in_sub: bool) -> SimpleCommand:
    if node.type in ("variable_assignment", "variable_assignments"):
        parts = [node] if node.type == "variable_assignment" else node.named_children
        return SimpleCommand(None, (), tuple(_text(p) for p in parts), (), in_sub)
    name: Word | None = None
    arguments: list[Word] = []
    assignments: list[str] = []
    redirections: list[str] = []
    if node.type in ("declaration_command", "unset_command") and node.child_count:
        keyword = _text(node.children[0])
        name = Word(keyword, keyword, False)
    parent = node.parent
    around = parent.children if parent is not None and parent.type == "redirected_statement" else []
    redirection_first = False
    for child in [*node.children, *(c for c in around if c.type in _REDIRECTS)]:
        if child.type in _REDIRECTS:
            redirections.append(_text(child))
            redirection_first = redirection_first or name is None
        elif child.type == "command_name":
            if child.end_byte > child.start_byte:  # zero width: tree-sitter's missing name
                inner = child.named_children[0] if child.named_child_count else child
                name = _word(inner)
        elif child.type == "variable_assignment" and name is None:
            assignments.append(_text(child))
        elif child.is_named and child.type != "comment":
            arguments.append(_word(child))
    return SimpleCommand(
        name, tuple(arguments), tuple(assignments), tuple(redirections), in_sub, redirection_first
    )


def _word(node: Node) -> Word:
    value, quoted = _value(node)
    return Word(_text(node), value, quoted)


def _value(node: Node) -> tuple[str | None, bool]:
    """The word's value after quote removal (None if it expands at run time), and if quoted."""
    kind, text = node.type, _text(node)
    if kind == "word":
        return _unescape(text), "\\" in text
    if kind in ("number", "variable_name", "test_operator", "regex", "extglob_pattern"):
        return text, False
    if kind == "raw_string":
        return text[1:-1], True
    if kind == "ansi_c_string":
        return _ansi_c(text[2:-1]), True
    if kind in ("string", "translated_string"):
        if any(part.type != "string_content" for part in node.named_children):
            return None, True
        # The text between the quotes, not the joined content nodes: tree-sitter leaves the
        # newlines between content pieces out of them.
        return _unescape_dq(text[text.index('"') + 1 : -1]), True
    if kind in ("concatenation", "variable_assignment"):
        values, quoted = [], False
        for part in node.children:
            part_value, part_quoted = _value(part) if part.is_named else (_text(part), False)
            if part_value is None:
                return None, True
            values.append(part_value)
            quoted = quoted or part_quoted
        return "".join(values), quoted
    return None, False


def _unescape(text: str) -> str:
    out: list[str] = []
    chars = iter(text)
    for ch in chars:
        if ch == "\\":
            nxt = next(chars, "")
            if nxt != "\n":
                out.append(nxt)
        else:
            out.append(ch)
    return "".join(out)


def _unescape_dq(text: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text) and text[i + 1] in _DQ_ESCAPABLE:
            if text[i + 1] != "\n":
                out.append(text[i + 1])
            i += 2
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


_ANSI_C_NUMERIC = re.compile(
    r"\\(?:x([0-9A-Fa-f]{1,2})|u([0-9A-Fa-f]{1,4})|U([0-9A-Fa-f]{1,8})|([0-7]{1,3})|c(.))", re.S
)


def _ansi_c(text: str) -> str:
    """The value of `$'…'`: named escapes, \\xHH, \\uHHHH, \\UHHHHHHHH, octal and \\cX."""
    out: list[str] = []
    i = 0
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text) and text[i + 1] in _ANSI_C_ESCAPES:
            out.append(_ANSI_C_ESCAPES[text[i + 1]])
            i += 2
            continue
        numeric = _ANSI_C_NUMERIC.match(text, i) if text[i] == "\\" else None
        if numeric is None:
            out.append(text[i])
            i += 1
            continue
        hex_byte, short, long, octal, control = numeric.groups()
        if control is not None:
            out.append(chr(ord(control.upper()) ^ 0x40) if control != "?" else "\x7f")
        else:
            code = int(hex_byte or short or long, 16) if octal is None else int(octal, 8)
            out.append(chr(min(code, 0x10FFFF)))
        i = numeric.end()
    return "".join(out)


def _walk(root: Node) -> list[Node]:
    """All nodes in pre-order, iteratively (deeply nested input must not hit recursion limits)."""
    out: list[Node] = []
    stack = [root]
    while stack:
        node = stack.pop()
        out.append(node)
        stack.extend(reversed(node.children))
    return out


def _first(root: Node, predicate: Callable[[Node], bool]) -> Node | None:
    return next((n for n in _walk(root) if predicate(n)), None)


def _text(node: Node) -> str:
    """The node's text, from the original bytes (the parser saw an ASCII-only copy)."""
    return _SOURCE.get()[node.start_byte : node.end_byte].decode("utf-8", "replace")


def _snippet(text: str, limit: int = 24) -> str:
    text = text.strip().splitlines()[0] if text.strip() else text
    return text if len(text) <= limit else text[: limit - 1] + "…"
