"""Every simple command and every redirection in a line of bash, as plain data.

The classifier judges what runs, so this walk visits every place bash runs a command:
pipelines and lists, subshells and groups, `$(…)` and backticks, `<(…)`/`>(…)`, loops, `if`,
`case`, function bodies (judged whether or not the function is called), and command
substitutions inside unquoted heredoc bodies and inside assignments. Quoted text is data: a
word's value is its text after quote and backslash removal, or None when it expands at run time.

For text that bash will itself re-read as code (`bash -c '…'`, `eval`, a heredoc fed to a
shell) each word also carries `code`: its literal text with every expansion replaced by a
marker word, so the re-parsed command can tell "a variable was here" from a plain name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from aish.safety.bash.brace_expansion import expand_braces
from aish.safety.bash.evaluated_data import EVALUATION_NODES, evaluation_concerns
from aish.safety.bash.integration_state import lists_every_variable
from aish.safety.bash.syntax import (
    misplaced_reserved_word,
    node_text,
    parsed_tree,
    unescape_double_quoted,
    unescape_word,
    word_value,
)

if TYPE_CHECKING:
    from tree_sitter import Node

__all__ = [
    "COMMAND_OUTPUT",
    "DYNAMIC_VALUE",
    "Arg",
    "Invocation",
    "Redirect",
    "Walk",
    "walk_bash",
]

# Marker words standing in for expansions in re-parsed code. They are ordinary bash words that
# no real program is called, so a marker in command position means "the name is computed".
DYNAMIC_VALUE = "__aish_dynamic_value__"
COMMAND_OUTPUT = "__aish_command_output__"

# Where a command's input comes from; "command" is `< <(cmd)`, another command's output.
Stdin = Literal["inherited", "pipe", "file", "text", "command"]

_EXPANSIONS = frozenset(("simple_expansion", "expansion", "arithmetic_expansion"))
_SUBSTITUTIONS = frozenset(("command_substitution", "process_substitution"))
_ASSIGNMENT_HOLDERS = frozenset(("declaration_command", "unset_command"))


@dataclass(frozen=True)
class Arg:
    """One word. `value` is None when it expands at run time; `substitution` marks a whole
    `<(…)`/`>(…)` argument (a pipe to a command, not a file)."""

    text: str
    value: str | None
    code: str
    substitution: bool = False
    # A computed word that may turn out to be an option: `-$x`, `${x:--delete}`, `$(cmd)`.
    maybe_option: bool = False


@dataclass(frozen=True)
class Invocation:
    """A simple command: its name, arguments, leading assignments and where stdin comes from.

    `stdin_code` is the text of a here-string or heredoc fed to the command, as code (with
    expansion markers), for shells that would run it.
    """

    name: Arg
    args: tuple[Arg, ...]
    assignments: tuple[tuple[str, Arg], ...]
    stdin: Stdin
    stdin_code: str | None = None


@dataclass(frozen=True)
class Redirect:
    """An output or input redirection; `target` is None for a descriptor (`2>&1`, `>&-`)."""

    operator: str
    target: Arg | None


@dataclass(frozen=True)
class Walk:
    """What a line contains. `error` is bash's objection to it, if any."""

    error: str | None
    invocations: tuple[Invocation, ...]
    redirects: tuple[Redirect, ...]
    # Variables a statement sets with no command (`x=1`, `export PATH=…`, `unset IFS`).
    assigned: tuple[str, ...]
    # Functions the line defines: calling one runs its body, not the program of that name.
    functions: tuple[str, ...] = ()
    # Code bash runs that tree-sitter leaves as text: backticks in an unquoted heredoc body,
    # backticks escaped inside backticks.
    embedded: tuple[str, ...] = ()
    # Why parts of the line are beyond judging (`${x@P}` runs the commands in x's value).
    concerns: tuple[str, ...] = ()
    # Variables exported to every later command (`export X=…`, `declare -x X`).
    exported: tuple[str, ...] = ()


def walk_bash(text: str) -> Walk:
    """Parse `text` and collect what it would run. Never raises."""
    with parsed_tree(text, reserved_words=False) as (root, error):
        invocations: list[Invocation] = []
        redirects: list[Redirect] = []
        assigned: list[str] = []
        functions: list[str] = []
        embedded: list[str] = []
        concerns: list[str] = []
        exported: list[str] = []
        evaluation: list[Node] = []  # where bash may evaluate data, and what the line assigns
        stack = [root]
        while stack:
            node = stack.pop()
            kind = node.type
            if kind in EVALUATION_NODES:
                evaluation.append(node)
            if kind == "variable_assignment" and _stores_code(node):
                concerns.append(f"{node_text(node)[:40]} stores command text in a variable")
            if kind == "command":
                invocation = _invocation(node)
                if invocation is not None:
                    invocations.append(invocation)
                    if error is None and invocation.assignments == ():
                        error = misplaced_reserved_word(invocation.name.text)
                else:
                    assigned.extend(_assigned_names(node))
            elif kind == "variable_assignments" or (  # `A=1 B=2` with no command
                kind == "variable_assignment" and _is_statement(node)
            ):
                assigned.extend(_assigned_names(node))
            elif kind in _ASSIGNMENT_HOLDERS:
                names = _declared_names(node)
                assigned.extend(names)
                exported.extend(names if _exports(node) else [])
                words = [node_text(c) for c in node.children]
                listing = lists_every_variable(words[0], words[1:]) if words else None
                if listing is not None:
                    concerns.append(listing)
            elif kind == "file_redirect":
                redirects.append(_redirect(node))
            elif kind == "function_definition":
                name = node.child_by_field_name("name")
                functions += [node_text(name)] if name is not None else []
                # The definition outlives the line: `ls() { rm "$@"; }` makes a later `ls` delete.
                defined = node_text(name) if name is not None else "a function"
                concerns.append(f"defines {defined}(), which changes what {defined} runs later")
            elif kind in ("for_statement", "select_statement"):
                variable = node.child_by_field_name("variable")
                assigned += [node_text(variable)] if variable is not None else []
            elif kind == "binary_expression" and _arithmetic_assignment(node):
                left = node.child_by_field_name("left")
                assigned += [node_text(left)] if left is not None else []
            elif kind in ("raw_string", "string") and _subscript_code(node_text(node)):
                concerns.append(
                    f"{node_text(node)[:40]}: bash may evaluate this as an array subscript, "
                    "which runs the command in it"
                )
            elif kind == "expansion":
                text = node_text(node)
                embedded += [_unescape_backticked(m.group(1)) for m in _BACKTICKS.finditer(text)]
                defaulted = _DEFAULT_ASSIGNMENT.match(text)
                if defaulted:  # `${VAR:=value}` assigns VAR
                    assigned.append(defaulted.group(1))
                if text.endswith("@P}"):
                    concerns.append("${…@P} runs the commands in a variable's value")
            elif kind == "heredoc_redirect":
                embedded += _heredoc_backticks(node)
            elif kind == "command_substitution":
                embedded += _escaped_backticks(node)
            stack.extend(node.children)
        concerns += evaluation_concerns(evaluation)
        return Walk(
            error,
            tuple(invocations),
            tuple(redirects),
            tuple(assigned),
            tuple(functions),
            tuple(embedded),
            tuple(concerns),
            tuple(exported),
        )


_DEFAULT_ASSIGNMENT = re.compile(r"^\$\{([A-Za-z_][A-Za-z0-9_]*):?=")
_BACKTICKS = re.compile(r"`((?:\\.|[^`\\])*)`")


_ARITHMETIC_OPERATORS = frozenset(
    ("=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "^=", "|=")
)


def _arithmetic_assignment(node: Node) -> bool:
    """`(( HISTSIZE=0 ))`, `$((x+=1))`: an assignment inside arithmetic."""
    operator = next((c for c in node.children if not c.is_named), None)
    return operator is not None and operator.type in _ARITHMETIC_OPERATORS


def _subscript_code(text: str) -> bool:
    return "[" in text and ("$(" in text or "`" in text)


def _heredoc_backticks(node: Node) -> list[str]:
    """Backticks in an unquoted heredoc body run when the heredoc is read."""
    start = next((c for c in node.children if c.type == "heredoc_start"), None)
    body = next((c for c in node.children if c.type == "heredoc_body"), None)
    if start is None or body is None or any(q in node_text(start) for q in "'\"\\"):
        return []
    return [_unescape_backticked(m.group(1)) for m in _BACKTICKS.finditer(node_text(body))]


def _escaped_backticks(node: Node) -> list[str]:
    """Inside backticks, \\` is a nested backtick: the inner text is code again."""
    text = node_text(node)
    if not text.startswith("`") or "\\`" not in text:
        return []
    return [_unescape_backticked(text[1:-1])]


def _unescape_backticked(text: str) -> str:
    return re.sub(r"\\([`$\\])", r"\1", text)


def _stores_code(node: Node) -> bool:
    """`x='$(cmd)'`: quoted command text kept for later (`$((x))`, `eval`, `${x@P}` run it)."""
    value = node.child_by_field_name("value")
    if value is None or value.type not in ("raw_string", "string", "concatenation"):
        return False
    literal, _quoted = word_value(value)
    return literal is not None and ("$(" in literal or "`" in literal)


def _invocation(node: Node) -> Invocation | None:
    name: Arg | None = None
    args: list[Arg] = []
    assignments: list[tuple[str, Arg]] = []
    for child in node.children:
        if child.type == "command_name":
            if child.end_byte > child.start_byte and child.named_child_count:
                name = _arg(child.named_children[0])
        elif child.type == "variable_assignment" and name is None:
            assignments.append(_assignment(child))
        elif (
            name is not None
            and child.is_named
            and child.type != "comment"
            and not (child.type.endswith("_redirect"))
        ):
            args.extend(_args(child))
    if name is None:
        return None
    stdin, stdin_code = _stdin(node)
    return Invocation(name, tuple(args), tuple(assignments), stdin, stdin_code)


def _stdin(node: Node) -> tuple[Stdin, str | None]:
    redirections = list(node.children)
    parent = node.parent
    if parent is not None and parent.type == "redirected_statement":
        redirections += parent.children
    for child in redirections:
        if child.type == "herestring_redirect" and child.named_child_count:
            return "text", _code(child.named_children[-1])
        if child.type == "heredoc_redirect":
            body = next((c for c in child.children if c.type == "heredoc_body"), None)
            return "text", _heredoc_code(body) if body is not None else ""
        if child.type == "file_redirect" and _operator(child) == "<":
            source = child.child_by_field_name("destination")
            if source is not None and source.type == "process_substitution":
                return "command", None
            return "file", None
    return ("pipe" if _receives_pipe(node) else "inherited"), None


def _receives_pipe(node: Node) -> bool:
    """Whether the command's input is another command's output: a later pipeline stage, or
    the first command of a subshell, group or `>(…)` that is one."""
    child, parent = node, node.parent
    while parent is not None and parent.type in ("subshell", "compound_statement"):
        if parent.named_child(0) != child:
            return False
        child, parent = parent, parent.parent
    if parent is not None and parent.type == "process_substitution":
        return node_text(parent).startswith(">(") and parent.named_child(0) == child
    while parent is not None and parent.type == "redirected_statement":
        child, parent = parent, parent.parent
    if parent is None or parent.type != "pipeline":
        return False
    # After a heredoc, tree-sitter hangs the rest of the pipeline (`| sh`) under the heredoc
    # redirect, starting with the bare `|`.
    first = parent.child(0)
    return first is None or not first.is_named or parent.named_child(0) != child


def _is_statement(node: Node) -> bool:
    parent = node.parent
    return parent is None or parent.type not in (
        "command",
        "declaration_command",
        "variable_assignments",
        "for_statement",
    )


def _assigned_names(node: Node) -> list[str]:
    if node.type == "variable_assignment":
        target = node.child_by_field_name("name")
        return [node_text(target)] if target is not None else []
    return [n for c in node.children if c.type == "variable_assignment" for n in _assigned_names(c)]


def _exports(node: Node) -> bool:
    words = [node_text(c) for c in node.children]
    keyword = words[0] if words else ""
    return keyword == "export" or (
        keyword in ("declare", "typeset", "local")
        and any(w.startswith("-") and "x" in w[1:] for w in words[1:])
    )


def _declared_names(node: Node) -> list[str]:
    """The names `declare`/`export`/`unset` … set, after quote removal (`declare "PATH=/x"`);
    a computed name comes back as its text, which no harmless name matches."""
    names: list[str] = []
    unset = node.type == "unset_command"
    options = ""
    for child in node.named_children:
        if child.type == "variable_assignment":
            names += _assigned_names(child)
        elif child.type in ("variable_name", "word", "string", "raw_string", "concatenation"):
            value, _quoted = word_value(child)
            text = value if value is not None else "$" + node_text(child)
            if text.startswith("-"):
                options += text[1:]
            if unset:
                names += [] if text.startswith("-") else [text]
            elif text in ("-n", "--nameref") or (text.startswith("-") and "n" in text[1:]):
                names.append("declare -n (a name reference)")
            elif text.startswith("-") and "i" in text[1:]:
                names.append("declare -i (an integer attribute)")
            elif not text.startswith(("-", "+")):
                names.append(text.split("=", 1)[0].rstrip("+"))
    if unset and "v" not in options:
        # `unset -f rm`, and plain `unset rm` when no variable is called rm, remove a function:
        # one the user may rely on (`rm() { trash "$@"; }`).
        return [f"unset -f {name}" for name in names]
    return names


def _assignment(node: Node) -> tuple[str, Arg]:
    target = node.child_by_field_name("name")
    value = node.child_by_field_name("value")
    empty = Arg("", "", "")
    return (node_text(target) if target is not None else "", _arg(value) if value else empty)


def _redirect(node: Node) -> Redirect:
    operator = _operator(node)
    destination = node.child_by_field_name("destination")
    if destination is None or (operator in (">&", "<&") and destination.type == "number"):
        return Redirect(operator, None)
    if operator in (">&", "<&") and node_text(destination) == "-":
        return Redirect(operator, None)
    return Redirect(operator, _arg(destination))


def _operator(node: Node) -> str:
    return next((c.type for c in node.children if not c.is_named), "")


def _args(node: Node) -> list[Arg]:
    """A word as bash passes it on: `-{delete,print}` is two words, `-delete -print`."""
    if node.type != "concatenation" or not _plain_braces(node):
        arg = _arg(node)
        if node.type == "concatenation" and _quoted_braces(node):
            # `"-"{delete,print}`: bash expands it, and it can be options; judge it unknown.
            return [Arg(arg.text, None, DYNAMIC_VALUE, maybe_option=True)]
        return [arg]
    words = expand_braces(node_text(node))
    if words is None:
        text = node_text(node)
        return [Arg(text, None, DYNAMIC_VALUE, maybe_option=True)]
    return [Arg(w, unescape_word(w), unescape_word(w)) for w in words]


def _quoted_braces(node: Node) -> bool:
    """Unquoted `{…,…}` next to quoted or computed parts."""
    texts = [node_text(c) for c in node.children if c.type == "word"]
    return "{" in texts and "}" in texts and any("," in t for t in texts)


def _plain_braces(node: Node) -> bool:
    """Unquoted `{…,…}` made only of plain words (quotes and expansions are left dynamic)."""
    texts = [node_text(c) for c in node.children]
    return (
        "{" in texts
        and "}" in texts
        and all(c.type == "word" for c in node.children)
        and any("," in t for t in texts)
    )


def _arg(node: Node) -> Arg:
    value, _quoted = word_value(node)
    # A literal word reads the same as code; only expanding words need their markers.
    code = value if value is not None else _code(node)
    text = node_text(node)
    substitution = node.type == "process_substitution"
    return Arg(text, value, code, substitution, value is None and _may_be_option(text))


_OPTION_DEFAULT = re.compile(r"^\$\{[^}]*?:?[-=+?]-")


def _may_be_option(text: str) -> bool:
    """Whether a computed word could expand to an option: `-$x`, `${x:--delete}`, `$(cmd)`."""
    bare = text.lstrip('"')
    return bare.startswith(("-", "$(", "`")) or bool(_OPTION_DEFAULT.match(bare))


def _code(node: Node) -> str:
    """The word as code for a re-parse: literal text, with expansions as marker words."""
    kind = node.type
    if kind in _SUBSTITUTIONS:
        return COMMAND_OUTPUT
    if kind in _EXPANSIONS:
        return DYNAMIC_VALUE
    if kind == "string":
        # Literal stretches (newlines included) unescaped, expansions replaced by markers.
        raw = node_text(node).encode("utf-8", "surrogatepass")
        start = node.start_byte + raw.index(b'"') + 1
        end = node.end_byte - 1
        parts, cursor = [], start
        for part in node.named_children:
            if part.type == "string_content":
                continue
            parts.append(_literal(raw, node.start_byte, cursor, part.start_byte))
            parts.append(_code(part))
            cursor = part.end_byte
        parts.append(_literal(raw, node.start_byte, cursor, end))
        return "".join(parts)
    if kind == "concatenation":
        return "".join(_code(c) if c.is_named else node_text(c) for c in node.children)
    value, _quoted = word_value(node)
    return value if value is not None else DYNAMIC_VALUE


def _literal(raw: bytes, base: int, start: int, end: int) -> str:
    text = raw[start - base : max(start, end) - base].decode("utf-8", "replace")
    return unescape_double_quoted(text)


def _heredoc_code(body: Node) -> str:
    """A heredoc body as code. In an unquoted heredoc the expansions are live: mark them."""
    text = node_text(body)
    start = body.start_byte
    pieces: list[str] = []
    cursor = 0
    raw = text.encode("utf-8", "surrogatepass")
    for child in body.named_children:
        if child.type in _SUBSTITUTIONS or child.type in _EXPANSIONS:
            pieces.append(raw[cursor : child.start_byte - start].decode("utf-8", "replace"))
            pieces.append(_code(child))
            cursor = child.end_byte - start
    pieces.append(raw[cursor:].decode("utf-8", "replace"))
    return "".join(pieces)
