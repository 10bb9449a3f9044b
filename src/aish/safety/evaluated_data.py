"""Where bash evaluates data as code, and whether the line itself vouches for that data.

Bash evaluates arithmetic recursively (see `arithmetic`), so a value read from a file, the
environment or an earlier command runs commands when it reaches an arithmetic context:
`$((…))`, `$[…]`, `((…))`, `for ((…))`, `let`, the operands of `[[ … -eq … ]]` (not of `[` or
`test`, which only accept numbers), an indexed array subscript (`${a[…]}`, `a=([…]=v)`) or a
substring offset (`${x:off:len}`). An indirect name (`${!x}`, `[[ -v $x ]]`) evaluates the
subscript in the name it finds. Each such site is judged here: it is literal when every name it
reads is one this line sets, before the site and unconditionally, only ever to a number (for an
indirect name: only ever to a plain name), or one bash keeps numeric itself (`$#`, `$?`,
`RANDOM`, `${#x}`). Anything else — a name from `read`, the environment or the live shell, a
positional parameter, a command's output — is a concern the classifier reports as `unknown`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from aish.safety.arithmetic import read_arithmetic
from aish.safety.bash_syntax import node_text, word_value

if TYPE_CHECKING:
    from tree_sitter import Node

__all__ = ["EVALUATION_NODES", "evaluation_concerns"]

# The node types `evaluation_concerns` needs to see: the sites and every way a line assigns.
EVALUATION_NODES = frozenset(
    (
        "arithmetic_expansion",
        "compound_statement",
        "c_style_for_statement",
        "test_command",
        "expansion",
        "command",
        "variable_assignment",
        "declaration_command",
        "unset_command",
        "for_statement",
        "select_statement",
    )
)

Kind = Literal["number", "name", "other"]

# Statements in these run one after another, so an assignment among them has happened by the
# time any later statement in them runs.
_SEQUENCES = frozenset(("program", "compound_statement", "subshell", "do_group"))
_ARITHMETIC_TESTS = frozenset(("-eq", "-ne", "-lt", "-le", "-gt", "-ge"))
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
_LET_WORDS = frozenset(("let", "builtin", "command", "time"))
_PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_TESTED_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\[([0-9]+|@|\*)\])?")
_NUMBER_WORD = re.compile(r"-?[0-9]+")


@dataclass(frozen=True)
class _Definite:
    """`name` certainly holds a value of `kind` at any point of [after, end) in the line."""

    name: str
    kind: Kind
    after: int
    end: int


@dataclass
class _Facts:
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


def evaluation_concerns(nodes: Sequence[Node]) -> list[str]:
    """Why the line evaluates data it cannot vouch for, one reason per site (empty: none)."""
    sites = [node for node in nodes if _is_site(node)]
    if not sites:
        return []
    facts = _facts(nodes)
    concerns: list[str] = []
    for site in sites:
        concerns += _site_concerns(site, facts)
    return list(dict.fromkeys(concerns))


# ---- what the line assigns ---------------------------------------------------------------------


def _facts(nodes: Sequence[Node]) -> _Facts:
    facts = _Facts()
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
            sections = _for_sections(node)
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


def _assignment(node: Node, facts: _Facts) -> None:
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


def _loop_variable(node: Node, facts: _Facts) -> None:
    variable = node.child_by_field_name("variable")
    if variable is None:
        return
    name = node_text(variable)
    values = node.children_by_field_name("value")
    body = node.child_by_field_name("body")
    numbers = [word_value(v)[0] for v in values]
    numeric = all(v is not None and _NUMBER_WORD.fullmatch(v) for v in numbers)
    if node.type == "for_statement" and values and body is not None and numeric:
        facts.add(name, "number", (body.start_byte, body.end_byte))
        return
    facts.add(name, "other")


def _command(node: Node, facts: _Facts) -> None:
    words = _command_words(node)
    if not words:
        return
    name = words[0][1]
    if name is None or name in _OPAQUE_ASSIGNERS:
        facts.opaque = True
        return
    if name == "let":
        scope = _definite_scope(node)
        for text in _let_expressions(words[1:]):
            for assigned in read_arithmetic(text).assigns:
                facts.add(assigned, "number", scope)
    elif name in _ASSIGNING_BUILTINS:
        # Every word that could be a name counts: more than the builtin assigns, never fewer.
        for _node, value in words[1:]:
            if value is None:
                facts.opaque = True
            elif (named := _PLAIN_NAME.match(value)) is not None:
                facts.add(named.group(), "other")


def _command_words(node: Node) -> list[tuple[Node, str | None]]:
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


# ---- the sites ---------------------------------------------------------------------------------


def _is_site(node: Node) -> bool:
    kind = node.type
    if kind in ("arithmetic_expansion", "c_style_for_statement"):
        return True
    if kind == "compound_statement":
        return node_text(node).startswith("((")
    if kind == "test_command":
        return True
    if kind == "expansion":
        children = node.children
        return (
            (len(children) > 1 and children[1].type == "!" and not children[1].is_named)
            or any(c.type == ":" and not c.is_named for c in children)
            or any(c.type == "subscript" for c in children)
        )
    if kind == "variable_assignment":
        value = node.child_by_field_name("value")
        return value is not None and value.type == "array"
    if kind == "command":
        first = node.child(0)
        if first is None or first.type != "command_name":
            return False
        # Cheap first: most commands are neither `let` nor `builtin`/`command`/`time` before it.
        name = node_text(first).replace("'", "").replace('"', "").replace("\\", "")
        return name in _LET_WORDS and _let_position(_command_words(node)) is not None
    return False


def _site_concerns(node: Node, facts: _Facts) -> Iterator[str]:
    kind = node.type
    label = _label(node_text(node))
    if kind == "arithmetic_expansion":
        text = node_text(node)
        inner = text[3:-2] if text.startswith("$((") else text[2:-1]
        yield from _arithmetic(label, inner, node.start_byte, facts)
    elif kind == "compound_statement":
        yield from _arithmetic(label, node_text(node)[2:-2], node.start_byte, facts)
    elif kind == "c_style_for_statement":
        for position, text in _for_sections(node):
            yield from _arithmetic("for ((…))", text, position, facts)
    elif kind == "test_command":
        yield from _test(node, facts)
    elif kind == "expansion":
        yield from _expansion(node, label, facts)
    elif kind == "variable_assignment":
        yield from _array_indexes(node, facts)
    elif kind == "command":
        words = _command_words(node)
        start = _let_position(words) or 0
        for text in _let_expressions(words[start:]):
            yield from _arithmetic(f"let {_label(text)}", text, node.start_byte, facts)


def _arithmetic(label: str, text: str, position: int, facts: _Facts) -> Iterator[str]:
    read = read_arithmetic(text)
    if read.opaque is not None:
        yield f"{label} evaluates {read.opaque} as arithmetic, which can run the commands in it"
        return
    for name in read.reads:
        if not facts.literal(name, "number", position):
            yield (
                f"{label} evaluates {name} as arithmetic, and this line does not set it to a "
                "number: a value read at run time can run commands"
            )
            return


def _test(node: Node, facts: _Facts) -> Iterator[str]:
    """`[[ a -lt b ]]` evaluates both operands as arithmetic (`[ a -lt b ]` only accepts
    numbers); `[[ -v $x ]]` and `[ -v "$x" ]` evaluate the subscript in the name x holds."""
    arithmetic = node_text(node).startswith("[[")
    stack = list(node.named_children)
    while stack:
        child = stack.pop()
        if child.type in ("command_substitution", "process_substitution"):
            continue
        operator = child.child_by_field_name("operator")
        op = node_text(operator) if operator is not None else ""
        if child.type == "binary_expression" and op in _ARITHMETIC_TESTS and arithmetic:
            for side in (child.child_by_field_name("left"), child.child_by_field_name("right")):
                if side is not None:
                    label = f"[[ … {op} … ]]"
                    yield from _arithmetic(label, _operand(side), side.start_byte, facts)
        elif child.type == "unary_expression" and op == "-v" and child.named_child_count > 1:
            tested = child.named_children[-1]
            value, _quoted = word_value(tested)
            if value is None or not _TESTED_NAME.fullmatch(value):
                yield f"-v {_label(node_text(tested))} evaluates a name that is not literal"
        stack.extend(child.named_children)


def _operand(node: Node) -> str:
    """An operand of `[[ … -eq … ]]` as arithmetic text: a literal word's value, else as written."""
    value, _quoted = word_value(node)
    return value if value is not None else node_text(node)


def _expansion(node: Node, label: str, facts: _Facts) -> Iterator[str]:
    children = node.children
    prefix = children[1].type if len(children) > 1 and not children[1].is_named else ""
    target = next((c for c in children if c.is_named), None)
    if target is None:
        return
    if target.type == "subscript":
        index = target.child_by_field_name("index")
        text = node_text(index) if index is not None else ""
        if text not in ("@", "*"):
            yield from _arithmetic(f"{label} (a subscript)", text, node.start_byte, facts)
    if prefix == "!" and not _lists_names(node, target):
        name = node_text(target)
        if target.type != "variable_name" or not facts.literal(name, "name", node.start_byte):
            yield (
                f"{label} takes a variable name from {name}, which this line does not set to "
                "a plain name: a subscript in it can run commands"
            )
    colon = next((c for c in children if c.type == ":" and not c.is_named), None)
    if colon is not None and prefix != "!":
        raw = node_text(node).encode("utf-8", "surrogatepass")
        inner = raw[colon.end_byte - node.start_byte : -1].decode("utf-8", "replace")
        yield from _arithmetic(f"{label} (an offset)", inner, node.start_byte, facts)


def _lists_names(node: Node, target: Node) -> bool:
    """`${!prefix*}`, `${!prefix@}` and `${!a[@]}` list names or keys; they evaluate nothing."""
    if target.type == "subscript":
        index = target.child_by_field_name("index")
        return index is not None and node_text(index) in ("@", "*")
    text = node_text(node)
    return text.endswith(("*}", "@}")) and text[3 + len(node_text(target)) :] in ("*}", "@}")


def _expanded_name(node: Node) -> str | None:
    target = next((c for c in node.children if c.is_named), None)
    return node_text(target) if target is not None and target.type == "variable_name" else None


def _array_indexes(node: Node, facts: _Facts) -> Iterator[str]:
    """`a=([i]=v)`: in an indexed array each `[…]` is arithmetic. `declare -A` arrays are
    keyed by strings, which bash does not evaluate."""
    parent = node.parent
    if parent is not None and parent.type == "declaration_command":
        options = [node_text(c) for c in parent.named_children if node_text(c).startswith("-")]
        if any("A" in option for option in options):
            return
    value = node.child_by_field_name("value")
    for element in value.named_children if value is not None else []:
        text = node_text(element)
        if text.startswith("[") and "]=" in text:
            index = text[1 : text.index("]=")]
            label = f"{_label(text)} (a subscript)"
            yield from _arithmetic(label, index, element.start_byte, facts)


def _for_sections(node: Node) -> list[tuple[int, str]]:
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


def _let_position(words: list[tuple[Node, str | None]]) -> int | None:
    """Index of the first expression of a `let` command (past `builtin`/`command`), or None."""
    for index, (_node, value) in enumerate(words):
        if value == "let":
            return index + 1
        if value not in _TRANSPARENT:
            return None
    return None


def _let_expressions(words: Sequence[tuple[Node, str | None]]) -> list[str]:
    return [value if value is not None else node_text(node) for node, value in words]


def _label(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= 40 else text[:39] + "…"
