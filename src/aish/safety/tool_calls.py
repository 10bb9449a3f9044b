"""Verdicts on MCP tool calls: the server's annotations, the tool's name, the commands inside.

MCP annotations are hints, and the MCP spec says a client should never decide anything on
annotations from a server it does not trust. So a call is judged on three things, each a part
of the verdict:

- **annotations**: from a server the user did not mark trusted they count for nothing, and the
  spec's defaults hold (`destructiveHint` true): every tool of such a server is `destructive`,
  whatever it says about itself. From a trusted server, `readOnlyHint: true` is `safe`,
  `destructiveHint: false` (the tool only adds) is `unknown`, anything else is `destructive`.
  A hint of the wrong type counts as absent.
- **the name** (`tool_names`): a delete-ish verb is `destructive`, a write-ish one `unknown`.
- **commands**: a string under a command-like key (`command`, `cmd`, `script`, with `args`) is
  checked by the bash classifier. A tool whose name says it runs commands (`*shell*`, `*exec*`,
  `run_*`) but has no such key has every string argument checked, and is `unknown` at least.

Names and commands never lower a verdict; the verdict is the worst part, and its reasons name
every rule that raised any part, worst first.

One exception to "worst of all parts": a shell-like tool from a *trusted* server whose command
was found. Its `destructiveHint` (given or by default) describes every command the tool could
run; the classifier judges the one it will run, so that verdict replaces the hint (a trusted
`run_command` with `ls` is as safe as typing `ls`). That holds only for the command alone: any
other argument of such a tool (`env`, `stdin`, an object where a word list belongs) could change
what runs, so it makes the call `unknown` at least. Only a timeout, a note (`description`) and a
working directory are inert: a read-only command stays read-only wherever it runs, and a command
that is not read-only is not `safe` anyway. An argument tree too large to read whole is `unknown`.

Pure, no I/O, never raises: arguments and annotations may have any JSON shape.
"""

from __future__ import annotations

import re
import shlex
from collections import deque
from collections.abc import Mapping, Sequence
from itertools import islice, product

from aish.safety.classifier import classify
from aish.safety.rules.user import UserRules
from aish.safety.tool_names import name_parts, name_words, shell_named
from aish.safety.verdict import SAFE, Level, Verdict, worst

__all__ = ["classify_tool_call", "tool_call_commands"]

# Bounds on how much of an argument tree is read: a call is judged in microseconds, whatever
# the model sends. What lies beyond them is not checked, so it makes the call `unknown`.
_MAX_DEPTH = 12
_MAX_NODES = 2000
_MAX_COMMANDS = 32
_MAX_NAMED = 8
_LABEL_LIMIT = 80


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Argument keys (lower case, without `_`, `-` or spaces) that hold a command line.
_COMMAND_KEYS = _words(
    "command cmd commandline cmdline shellcommand bashcommand script shellscript bashscript"
)
_COMMAND_LIST_KEYS = _words("commands cmds scripts")
_ARGV_KEYS = _words("args argv arguments")
_CODE_KEYS = _words("code source")
_LANGUAGE_KEYS = _words("language lang")
_SHELL_LANGUAGES = _words("bash sh shell zsh")
# A shell tool's arguments that cannot change what runs: how long it may take, why it runs, and
# where (a working directory does not make a read-only command write).
_TIMEOUT_KEYS = _words("timeout timeoutms timeoutsec timeoutsecs timeoutseconds")
_NOTE_KEYS = _words("description desc title reason justification explanation purpose comment")
_CWD_KEYS = _words("cwd workdir workingdir workingdirectory directory")
_PATH_KEYS = _words(
    "path paths file files filename filepath source destination dest src dst target "
    "directory dir folder oldpath newpath"
)
_PATH_PREFIXES = ("/", "~", "./", "../")

# Control characters, surrogates and bidirectional overrides: a server's name must not
# restyle or reorder the line it is shown on.
_UNPRINTABLE = re.compile(r"[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")

_NOT_TEXT = "a command argument is not text"
_TOO_LARGE = "arguments too large to check"
_TOO_MANY = f"more than {_MAX_COMMANDS} commands; not all checked"

# One value in the argument tree: the normalised key it sits under (a list's items sit under
# the list's key), the value, and for an object the entries that were read: (key, normalised
# key, value).
_Entry = tuple[object, str, object]
_Node = tuple[str, object, tuple[_Entry, ...]]


def classify_tool_call(
    server: str,
    tool: str,
    arguments: Mapping[str, object],
    annotations: Mapping[str, object] | None,
    server_trusted: bool,
    user_rules: UserRules | None = None,
) -> Verdict:
    """The verdict on calling `tool` of `server` with `arguments`. Pure; never raises."""
    try:
        return _classify(server, tool, arguments, annotations, server_trusted is True, user_rules)
    except Exception:  # a bug here must not let the call through, nor crash the gate
        return Verdict("destructive", ("tool call: could not be checked",))


def tool_call_commands(tool: str, arguments: Mapping[str, object]) -> list[str]:
    """The command lines a call would run, as the verdict reads them (for the permission
    policy); for a shell tool with none under a command key, every text argument."""
    shell = shell_named(frozenset(name_words(tool)))
    nodes, _ = _nodes(arguments)
    commands, _ = _commands(nodes, shell=shell)
    if not commands and shell:
        commands = [v for _, v, _ in nodes if isinstance(v, str) and v.strip()]
    return commands[:_MAX_COMMANDS]


def _classify(
    server: object,
    tool: object,
    given: object,  # typed as a mapping by the caller, but it comes from a model: check it
    annotations: object,
    trusted: bool,  # anything but an explicit yes is no
    user_rules: UserRules | None,
) -> Verdict:
    label = _label(server, tool)
    name = name_words(tool)
    shell = shell_named(frozenset(name))
    nodes, cut = _nodes(given)
    commands, notes = _commands(nodes, shell=shell)

    parts = [
        _annotation_part(annotations, server, trusted, hint_replaced=shell and bool(commands)),
        *name_parts(label, name, _has_path(nodes)),
    ]
    if not isinstance(given, Mapping):
        notes.insert(0, "tool arguments are not an object")
    if cut:
        notes.append(_TOO_LARGE)
    parts += [Verdict("unknown", (note,)) for note in notes]
    if commands:
        parts.append(_commands_part(commands, user_rules))
        if shell:
            parts += [Verdict("unknown", (note,)) for note in _loose(nodes)]
    elif shell:
        parts.append(_unkeyed_part(label, nodes, user_rules))
    return _combine(parts)


# ---- annotations -----------------------------------------------------------------------------


def _annotation_part(
    annotations: object, server: object, trusted: bool, *, hint_replaced: bool
) -> Verdict:
    if not trusted:
        return Verdict(
            "destructive",
            (
                f"untrusted server {_printable(server)}: annotations are not trusted; "
                "MCP default destructiveHint=true",
            ),
        )
    notes: list[str] = []
    hints: Mapping[object, object] = {}
    if isinstance(annotations, Mapping):
        hints = annotations
    elif annotations is not None:
        notes.append("annotations are not an object; ignored")
    if _hint(hints, "readOnlyHint", notes) or hint_replaced:
        return SAFE
    destructive = _hint(hints, "destructiveHint", notes)
    if destructive is None:
        return Verdict("destructive", ("annotation destructiveHint (default true)", *notes))
    if destructive:
        return Verdict("destructive", ("annotation destructiveHint", *notes))
    return Verdict("unknown", ("annotation destructiveHint false (additive updates)", *notes))


def _hint(hints: Mapping[object, object], key: str, notes: list[str]) -> bool | None:
    """The hint's value, or None when it is absent or not a boolean (then the default holds)."""
    value = hints.get(key)
    if value is None:
        return None
    if isinstance(value, bool):
        return value
    notes.append(f"annotation {key} is not a boolean; ignored")
    return None


# ---- arguments -------------------------------------------------------------------------------


def _nodes(value: object) -> tuple[list[_Node], bool]:
    """Every value in the argument tree, breadth first, bounded in depth and count; and
    whether a bound left part of the tree unread."""
    nodes: list[_Node] = []
    cut = False
    queue: deque[tuple[str, object, int]] = deque([("", value, 0)])
    queued = 1
    while queue:
        key, node, depth = queue.popleft()
        if not isinstance(node, (Mapping, list, tuple)):
            nodes.append((key, node, ()))
            continue
        room = 0 if depth >= _MAX_DEPTH else _MAX_NODES - queued  # never queue more than is read
        if isinstance(node, Mapping):
            entries = tuple((k, _key(k), v) for k, v in islice(node.items(), room))
            children = [(k, v) for _, k, v in entries]
        else:
            entries, children = (), [(key, v) for v in islice(node, room)]
        cut = cut or len(children) < len(node)
        nodes.append((key, node, entries))
        queue.extend((k, v, depth + 1) for k, v in children)
        queued += len(children)
    return nodes, cut


def _key(key: object) -> str:
    text = key if isinstance(key, str) else ""
    return re.sub(r"[\s_\-]", "", text).lower()


def _commands(nodes: list[_Node], *, shell: bool) -> tuple[list[str], list[str]]:
    """The command lines found in the arguments (no more than one past the bound), and notes
    on command arguments of the wrong shape."""
    found: list[str] = []
    notes: list[str] = []

    def add(lines: list[str], note: str | None) -> None:
        found.extend(line for line in lines if line.strip())
        if note and note not in notes:
            notes.append(note)

    for _, _, entries in nodes:
        if len(found) > _MAX_COMMANDS:
            break
        heads = [(k, v) for k, n, v in entries if n in _COMMAND_KEYS and v is not None]
        argvs = [(k, v) for k, n, v in entries if n in _ARGV_KEYS and v is not None]
        if not heads and shell:
            heads, argvs = argvs, []  # a shell tool's `args` alone is the whole argv
            add([], next((_shape(k) for k, v in heads if isinstance(v, Mapping)), None))
        if len(heads) > _MAX_COMMANDS or len(argvs) > _MAX_COMMANDS:
            add([], _TOO_MANY)  # each head with each argv: keep the pairs few
        for (_, head), argv in product(
            heads[:_MAX_COMMANDS], argvs[:_MAX_COMMANDS] or [(None, None)]
        ):
            add(*_command_line(head, *argv))
        for items in (v for _, n, v in entries if n in _COMMAND_LIST_KEYS):
            for item in islice(items, _MAX_NODES) if isinstance(items, (list, tuple)) else [items]:
                if isinstance(item, str):
                    add([item], None)
                elif isinstance(item, (list, tuple)):
                    add(*_command_line(item, None, None))
                elif item is not None and not isinstance(item, Mapping):
                    add([], _NOT_TEXT)
        if any(n in _LANGUAGE_KEYS and _shell_language(v) for _, n, v in entries):
            add([v for _, n, v in entries if n in _CODE_KEYS and isinstance(v, str)], None)
    return found, notes


def _command_line(command: object, argv_key: object, argv: object) -> tuple[list[str], str | None]:
    """`command` (text or an argv list) with `argv` appended, and a note when either is not
    of a shape that can be read as words."""
    if isinstance(command, Mapping):
        return [], None  # a nested object the walk visits on its own
    if any(isinstance(v, (list, tuple)) and len(v) > _MAX_NODES for v in (command, argv)):
        return [], _TOO_LARGE
    head = _argv_text(command) if isinstance(command, (list, tuple)) else command
    if not isinstance(head, str):
        return [], _NOT_TEXT
    if argv is None:
        return [head], None
    if isinstance(argv, Mapping):
        return [head], _shape(argv_key)
    tail = _argv_text(argv) if isinstance(argv, (list, tuple)) else argv
    if not isinstance(tail, str):
        return [head], _NOT_TEXT
    return [f"{head} {tail}"], None


def _shape(key: object) -> str:
    return f"argument {_printable(key)} is not a list of words"


def _argv_text(items: Sequence[object]) -> str | None:
    """An argv list as one shell line, quoted so the classifier sees the same words."""
    words = []
    for item in items:
        if isinstance(item, bool) or not isinstance(item, (str, int, float)):
            return None
        words.append(str(item))
    return shlex.join(words)


def _shell_language(value: object) -> bool:
    return isinstance(value, str) and value.strip().lower() in _SHELL_LANGUAGES


def _loose(nodes: list[_Node]) -> list[str]:
    """Notes naming every argument of a shell tool (at the top, or in an object in a list of
    commands) that is neither part of its command nor inert: what the tool does with it is not
    known."""
    names: list[str] = []
    for key, _, entries in nodes:
        if key and key not in _COMMAND_LIST_KEYS:
            continue  # inside an argument that has a note of its own
        shell_code = any(n in _LANGUAGE_KEYS and _shell_language(v) for _, n, v in entries)
        names += [
            _printable(k)
            for k, n, v in entries
            if not _part_of_command(n, v, shell_code) and not _inert(n, v)
        ]
    notes = [f"argument {name} of a shell tool is not checked" for name in names[:_MAX_NAMED]]
    if len(names) > _MAX_NAMED:
        notes.append(f"{len(names) - _MAX_NAMED} more arguments of a shell tool are not checked")
    return notes


def _part_of_command(key: str, value: object, shell_code: bool) -> bool:
    if key in _COMMAND_KEYS:
        return not isinstance(value, Mapping)  # an object where a command belongs is not one
    if key in _COMMAND_LIST_KEYS or key in _ARGV_KEYS:
        return True  # any other shape has a note of its own
    if key in _LANGUAGE_KEYS:
        return _shell_language(value)
    return key in _CODE_KEYS and shell_code and isinstance(value, str)


def _inert(key: str, value: object) -> bool:
    if value is None:
        return True  # as if not given
    if key in _TIMEOUT_KEYS:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return (key in _NOTE_KEYS or key in _CWD_KEYS) and isinstance(value, str)


def _has_path(nodes: list[_Node]) -> bool:
    return any(
        isinstance(value, str) and value and (key in _PATH_KEYS or value.startswith(_PATH_PREFIXES))
        for key, value, _ in nodes
    )


# ---- commands --------------------------------------------------------------------------------


def _commands_part(commands: list[str], user_rules: UserRules | None) -> Verdict:
    parts = [_check(c, user_rules) for c in commands[:_MAX_COMMANDS]]
    if len(commands) > _MAX_COMMANDS:
        parts.append(Verdict("unknown", (_TOO_MANY,)))
    return _combine(parts)


def _unkeyed_part(label: str, nodes: list[_Node], rules: UserRules | None) -> Verdict:
    """A tool that runs commands, with none under a key that says so: any text may be one."""
    texts = [v for _, v, _ in nodes if isinstance(v, str) and v.strip()][:_MAX_COMMANDS]
    found = [v for v in (_check(t, rules) for t in texts) if v.level == "destructive"]
    return _combine([Verdict("unknown", (f"tool {label} runs commands",)), *found])


def _check(command: str, user_rules: UserRules | None) -> Verdict:
    try:
        verdict = classify(command, user_rules)
    except Exception:  # a classifier bug must not let the call through, nor crash the gate
        return Verdict("destructive", ("command: could not be checked",))
    return Verdict(verdict.level, tuple(f"command: {r}" for r in verdict.reasons))


# ---- putting it together ---------------------------------------------------------------------


def _combine(parts: list[Verdict]) -> Verdict:
    """The worst level, with the reasons of every part above `safe`, the worst parts first."""
    level = worst(parts).level
    if level == "safe":
        return SAFE
    reasons: list[str] = []
    order: tuple[Level, ...] = ("destructive", "unknown")
    for wanted in order:
        for part in parts:
            if part.level == wanted:
                reasons.extend(r for r in part.reasons if r not in reasons)
    return Verdict(level, tuple(reasons))


def _label(server: object, tool: object) -> str:
    """`server__tool` as the model sees it, shortened and printable (names come from a server)."""
    return f"{_printable(server)}__{_printable(tool)}"


def _printable(text: object) -> str:
    shown = _UNPRINTABLE.sub("?", text if isinstance(text, str) else "?")
    return shown if len(shown) <= _LABEL_LIMIT else shown[: _LABEL_LIMIT - 1] + "…"
