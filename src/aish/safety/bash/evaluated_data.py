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
from typing import TYPE_CHECKING

from aish.safety.bash.arithmetic import read_arithmetic
from aish.safety.bash.line_assignments import (
    LineAssignments,
    command_words,
    for_sections,
    let_expressions,
    let_start,
    line_assignments,
)
from aish.safety.bash.syntax import node_text, word_value

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

_ARITHMETIC_TESTS = frozenset(("-eq", "-ne", "-lt", "-le", "-gt", "-ge"))
_LET_WORDS = frozenset(("let", "builtin", "command", "time"))
_TESTED_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\[([0-9]+|@|\*)\])?")


def evaluation_concerns(nodes: Sequence[Node]) -> list[str]:
    """Why the line evaluates data it cannot vouch for, one reason per site (empty: none)."""
    sites = [node for node in nodes if _is_site(node)]
    if not sites:
        return []
    facts = line_assignments(nodes)
    concerns: list[str] = []
    for site in sites:
        concerns += _site_concerns(site, facts)
    return list(dict.fromkeys(concerns))


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
        first = next((c for c in node.children if c.type == "command_name"), None)
        if first is None:
            return False
        # Cheap first: most commands are neither `let` nor `builtin`/`command`/`time` before it.
        name = node_text(first).replace("'", "").replace('"', "").replace("\\", "")
        return name in _LET_WORDS and let_start(command_words(node)) is not None
    return False


def _site_concerns(node: Node, facts: LineAssignments) -> Iterator[str]:
    kind = node.type
    label = _label(node_text(node))
    if kind == "arithmetic_expansion":
        text = node_text(node)
        inner = text[3:-2] if text.startswith("$((") else text[2:-1]
        yield from _arithmetic(label, inner, node.start_byte, facts)
    elif kind == "compound_statement":
        yield from _arithmetic(label, node_text(node)[2:-2], node.start_byte, facts)
    elif kind == "c_style_for_statement":
        for position, text in for_sections(node):
            yield from _arithmetic("for ((…))", text, position, facts)
    elif kind == "test_command":
        yield from _test(node, facts)
    elif kind == "expansion":
        yield from _expansion(node, label, facts)
    elif kind == "variable_assignment":
        yield from _array_indexes(node, facts)
    elif kind == "command":
        words = command_words(node)
        start = let_start(words) or 0
        for text in let_expressions(words[start:]):
            yield from _arithmetic(f"let {_label(text)}", text, node.start_byte, facts)


def _arithmetic(label: str, text: str, position: int, facts: LineAssignments) -> Iterator[str]:
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


def _test(node: Node, facts: LineAssignments) -> Iterator[str]:
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


def _expansion(node: Node, label: str, facts: LineAssignments) -> Iterator[str]:
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


def _array_indexes(node: Node, facts: LineAssignments) -> Iterator[str]:
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


def _label(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= 40 else text[:39] + "…"
