"""What a line of bash assigns: every kind of value each name gets, and where it certainly has one.

`evaluated_data` asks this before trusting a name in arithmetic (or as an indirect name): the
name must be one the line sets only ever to a number (or a plain name), and one assignment
must certainly have run before the place that reads it — a statement earlier in the same list,
the first part of `&&`/`||`, a `for ((…))` initialiser, a `for` over numbers. Every other way a
line can assign (`read`, `mapfile`, `printf -v`, `getopts`, `${n:=…}`, `declare n`, `unset`, a
loop over other words) marks the name as holding something else; `eval`, `source`, `builtin`,
`command` or a computed command name may assign anything, so then no name is trusted.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from aish.safety.bash.arithmetic import read_arithmetic
from aish.safety.bash.syntax import node_text, word_value

if TYPE_CHECKING:
    from tree_sitter import Node

__all__ = [
    "Kind",
    "LineAssignments",
    "command_words",
    "for_sections",
    "let_expressions",
    "let_start",
    "line_assignments",
]

Kind = Literal["number", "name", "other"]

# Statements in these run one after another, so an assignment among them has happened by the
# time any later statement in them runs.
_SEQUENCES = frozenset(("program", "compound_statement", "subshell", "do_group"))
# Variables bash keeps numeric whatever is assigned to them (or read-only integers).
_NUMERIC_BY_CONSTRUCTION = frozenset(
    ["RANDOM", "SRANDOM", "SECONDS", "LINENO", "BASHPID", "PPID", "UID", "EUID", "EPOCHSECONDS"]
)
# Commands that may assign any variable without the line saying which one.
_OPAQUE_ASSIGNERS = frozenset(["eval", "source", ".", "builtin", "command", "trap", "exec", "fc"])
# Builtins that assign the names among their words (`read n`, `printf -v n`, `getopts o n`).
_ASSIGNING_BUILTINS = frozenset(["read", "mapfile", "readarray", "printf", "getopts", "wait"])
# Words before a command that leave it the same command: `builtin let`, `command let`, `time let`.
_TRANSPARENT = frozenset(("builtin", "command", "time", "-p", "--"))
_PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_NUMBER_WORD = re.compile(r"-?[0-9]+")


@dataclass(frozen=True)
class _Definite:
    """`name` certainly holds a value of `kind` at any point of [after, end) in the line."""

    name: str
    kind: Kind
    after: int
    end: int


@dataclass
class LineAssignments:
    """What the line assigns: every kind of value each name gets, and where it certainly has one."""

    kinds: dict[str, set[Kind]] = field(default_factory=dict)
    definite: list[_Definite] = field(default_factory=list)
    # Something on the line can assign any name (`eval`, `source`, a computed command name).
    opaque: bool = False

    def add(self, name: str, kind: Kind, scope: tuple[int, int] | None = None) -> None:
        self.kinds.setdefault(name, set()).add(kind)
        if scope is not None:
            self.definite.append(_Definite(name, kind, *scope))

    def literal(self, name: str, kind: Kind, position: int) -> bool:
        if kind == "number" and name in _NUMERIC_BY_CONSTRUCTION:
            return True
        if self.opaque or self.kinds.get(name, {"other"}) != {kind}:
            return False
        return any(
            d.name == name and d.kind == kind and d.after <= position < d.end for d in self.definite
        )


def line_assignments(nodes: Sequence[Node]) -> LineAssignments:
    """What the assignments among `nodes` (a walk of one line) give each name."""
    facts = LineAssignments()
    for node in nodes:
        kind = node.type
        if kind == "variable_assignment":
            _assignment(node, facts)
        elif kind in ("declaration_command", "unset_command"):
            for child in node.named_children:
                if child.type == "variable_assignment":
                    continue
                value, _quoted = word_value(child)
                if value is None:
                    facts.opaque = True  # `declare "$x"`: any name
                elif not value.startswith(("-", "+")):
                    facts.add(value.split("=", 1)[0], "other")
        elif kind in ("for_statement", "select_statement"):
            _loop_variable(node, facts)
        elif kind == "c_style_for_statement":
            sections = for_sections(node)
            scope = (sections[1][0], node.end_byte) if len(sections) > 1 else None
            for name in read_arithmetic(sections[0][1] if sections else "").assigns:
                facts.add(name, "number", scope)
        elif kind == "compound_statement" and node_text(node).startswith("(("):
            scope = _definite_scope(node)
            for name in read_arithmetic(node_text(node)[2:-2]).assigns:
                facts.add(name, "number", scope)
        elif kind == "command":
            _command(node, facts)
        elif kind == "expansion":
            operator = next((c.type for c in node.children[2:] if not c.is_named), "")
            defaulted = _expanded_name(node)
            if operator in ("=", ":=") and defaulted is not None:
                facts.add(defaulted, "other")  # `${n:=…}`
    return facts


def _assignment(node: Node, facts: LineAssignments) -> None:
    parent = node.parent
    if parent is not None and parent.type == "c_style_for_statement":
        return  # its header is arithmetic, read with the loop
    target = node.child_by_field_name("name")
    value = node.child_by_field_name("value")
    if target is None:
        return
    if target.type == "subscript":
        base = target.child_by_field_name("name")
        facts.add(node_text(base) if base is not None else node_text(target), "other")
        return
    kind = _value_kind(value)
    facts.add(node_text(target), kind, _definite_scope(node) if kind != "other" else None)


def _value_kind(value: Node | None) -> Kind:
    if value is None:
        return "other"  # `n=` is empty, which arithmetic reads as 0, but `${!n}` cannot
    if value.type == "arithmetic_expansion":
        return "number"
    if value.type == "string" and [c.type for c in value.named_children] == [
        "arithmetic_expansion"
    ]:
        return "number"
    literal, _quoted = word_value(value)
    if literal is None:
        return "other"
    if _NUMBER_WORD.fullmatch(literal):
        return "number"
    return "name" if _PLAIN_NAME.fullmatch(literal) else "other"


def _loop_variable(node: Node, facts: LineAssignments) -> None:
    """`for i in 1 2 3` gives i a number in the body, `for v in HOME PATH` a plain name."""
    variable = node.child_by_field_name("variable")
    if variable is None:
        return
    name = node_text(variable)
    values = [word_value(v)[0] for v in node.children_by_field_name("value")]
    body = node.child_by_field_name("body")
    if node.type == "for_statement" and values and body is not None:
        scope = (body.start_byte, body.end_byte)
        if all(v is not None and _NUMBER_WORD.fullmatch(v) for v in values):
            facts.add(name, "number", scope)
            return
        if all(v is not None and _PLAIN_NAME.fullmatch(v) for v in values):
            facts.add(name, "name", scope)
            return
    facts.add(name, "other")


def _command(node: Node, facts: LineAssignments) -> None:
    words = command_words(node)
    if not words:
        return
    name = words[0][1]
    if name is None or name in _OPAQUE_ASSIGNERS:
        facts.opaque = True
        return
    if name == "let":
        scope = _definite_scope(node)
        for text in let_expressions(words[1:]):
            for assigned in read_arithmetic(text).assigns:
                facts.add(assigned, "number", scope)
    elif name in _ASSIGNING_BUILTINS:
        # Every word that could be a name counts: more than the builtin assigns, never fewer.
        for _node, value in words[1:]:
            if value is None:
                facts.opaque = True
            elif (named := _PLAIN_NAME.match(value)) is not None:
                facts.add(named.group(), "other")


def command_words(node: Node) -> list[tuple[Node, str | None]]:
    """The command's name and arguments with their values (None when computed)."""
    words: list[tuple[Node, str | None]] = []
    for child in node.children:
        if child.type == "command_name" and child.named_child_count:
            inner = child.named_children[0]
            words.append((inner, word_value(inner)[0]))
        elif words and child.is_named and not child.type.endswith(("_redirect", "comment")):
            words.append((child, word_value(child)[0]))
    return words


def _definite_scope(node: Node) -> tuple[int, int] | None:
    """From the end of `node` to the end of the statement list it certainly runs in, or None
    when it may not run (after `&&`, in a pipeline, an `if`, a loop, a prefix assignment)."""
    statement = node
    while True:
        parent = statement.parent
        if parent is None:
            return None
        if parent.type in ("variable_assignments", "declaration_command") or (
            parent.type == "list" and parent.child(0) == statement
        ):
            statement = parent
        elif parent.type in _SEQUENCES and not (
            parent.type == "compound_statement" and node_text(parent).startswith("((")
        ):
            return node.end_byte, parent.end_byte
        else:
            return None


def for_sections(node: Node) -> list[tuple[int, str]]:
    """The three parts of `for ((init; test; step))`, each with where it starts."""
    sections: list[tuple[int, str]] = []
    start, parts = node.start_byte, list[str]()
    for child in node.children:
        if child.type in ("for", "(("):
            continue
        if child.type in (";", "))") and not child.is_named:
            sections.append((start, " ".join(parts)))
            start, parts = child.end_byte, []
            if child.type == "))":
                break
        else:
            parts.append(node_text(child))
    return sections


def let_start(words: list[tuple[Node, str | None]]) -> int | None:
    """Index of the first expression of a `let` command (past `builtin`/`command`), or None."""
    for index, (_node, value) in enumerate(words):
        if value == "let":
            return index + 1
        if value not in _TRANSPARENT:
            return None
    return None


def let_expressions(words: Sequence[tuple[Node, str | None]]) -> list[str]:
    return [value if value is not None else node_text(node) for node, value in words]


def _expanded_name(node: Node) -> str | None:
    target = next((c for c in node.children if c.is_named), None)
    return node_text(target) if target is not None and target.type == "variable_name" else None
