"""Verdicts on MCP tool calls: the server's annotations, the tool's name, the commands inside.

MCP annotations are hints from a server that may not deserve trust, and their defaults assume
the worst (`readOnlyHint` false, `destructiveHint` true). So a call is judged on three things,
each a part of the verdict:

- **annotations**: `readOnlyHint: true` is `safe` only from a server the user marked trusted;
  from any other server it is `unknown` at best (the MCP spec: never decide on annotations from
  an untrusted server; `unknown` still asks, or gets a second opinion, it never runs unseen).
  Otherwise `destructiveHint` (default true) is `destructive`; `destructiveHint: false` says the
  tool only adds, which is `unknown`. A hint of the wrong type counts as absent.
- **the name**: a delete-ish verb (`delete_file`, `kill_process`) is `destructive`; a write-ish
  one (`write_file`, `create_*`, `move_*`) is at least `unknown`; running code is `unknown`.
  Names never lower a verdict.
- **commands**: a string under a command-like key (`command`, `cmd`, `script`, with `args`) is
  checked by the bash classifier. A tool whose name says it runs commands (`*shell*`, `*exec*`,
  `run_*`) but has no such key has every string argument checked, and is `unknown` at least.

The verdict is the worst part; its reasons name every rule that raised any part, worst first.

One exception to "worst of all parts": a shell-like tool from a *trusted* server whose command
was found. Its `destructiveHint` (given or by default) describes every command the tool could
run; the classifier judges the one it will run, so that verdict replaces the hint (a trusted
`run_command` with `ls` is as safe as typing `ls`). From an untrusted server the hint stays: what
such a server does with the command is not known, so `ls` through its unannotated shell tool is
`destructive`.

Pure, no I/O, never raises: arguments and annotations may have any JSON shape.
"""

from __future__ import annotations

import re
import shlex
from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from itertools import islice

from aish.safety.classifier import classify
from aish.safety.user_rules import UserRules
from aish.safety.verdict import SAFE, Level, Verdict, worst

__all__ = ["classify_tool_call"]

# Bounds on how much of an argument tree is read: a call is judged in microseconds, whatever
# the model sends.
_MAX_DEPTH = 12
_MAX_NODES = 2000
_MAX_COMMANDS = 32
_LABEL_LIMIT = 80


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Words in a tool's name. Matching is on whole words of the name (`write_file`, `writeFile`,
# `fs.write` all contain `write`), so `undelete` is not `delete`.
_DELETES = {
    "delete": "deletes",
    "del": "deletes",
    "remove": "removes",
    "rm": "removes",
    "rmdir": "removes",
    "unlink": "deletes",
    "erase": "erases",
    "destroy": "destroys",
    "drop": "drops",
    "purge": "purges",
    "prune": "prunes",
    "wipe": "wipes",
    "clear": "clears",
    "truncate": "truncates",
    "shred": "shreds",
    "overwrite": "overwrites",
    "kill": "kills",
    "terminate": "terminates",
    "uninstall": "uninstalls",
    "revoke": "revokes",
}
_WRITES = {
    "write": "writes",
    "edit": "edits",
    "create": "creates",
    "mkdir": "creates",
    "touch": "touches",
    "move": "moves",
    "mv": "moves",
    "rename": "renames",
    "copy": "copies",
    "cp": "copies",
    "append": "appends to",
    "update": "updates",
    "put": "puts",
    "upload": "uploads",
    "save": "saves",
    "patch": "patches",
    "replace": "replaces",
    "insert": "inserts",
    "set": "sets",
    "modify": "modifies",
    "apply": "applies",
    "chmod": "changes the mode of",
    "chown": "changes the owner of",
    "init": "initialises",
    "commit": "commits",
    "push": "pushes",
    "merge": "merges",
    "reset": "resets",
    "restore": "restores",
    "checkout": "checks out",
    "send": "sends",
    "publish": "publishes",
    "install": "installs",
    "upgrade": "upgrades",
    "deploy": "deploys",
    "start": "starts",
    "stop": "stops",
    "restart": "restarts",
}
# A name that starts with one of these reads: `get_commit`, `list_updates` name a thing, not
# an act. Delete-ish words still count after them.
_READ_VERBS = _words(
    "get list read search find show view describe fetch count check inspect lookup browse stat "
    "status diff log preview explain validate"
)
_FILE_WORDS = _words("file dir directory folder path fs filesystem")
# A name with one of these runs shell commands whatever else it says.
_SHELL_WORDS = _words("shell bash sh zsh terminal command cmd subprocess powershell pwsh script")
# These run *something*; shell commands unless the name says it is code or data.
_RUN_WORDS = _words("exec execute run eval spawn")
_CODE_WORDS = _words("python py node javascript js typescript ruby perl code notebook jupyter repl")
_DATA_WORDS = _words("sql query database db graphql http request api search test workflow job")

# Argument keys (lower case, without `_`, `-` or spaces) that hold a command line.
_COMMAND_KEYS = _words(
    "command cmd commandline cmdline shellcommand bashcommand script shellscript bashscript"
)
_COMMAND_LIST_KEYS = _words("commands cmds scripts")
_ARGV_KEYS = _words("args argv arguments")
_CODE_KEYS = _words("code source")
_LANGUAGE_KEYS = _words("language lang")
_SHELL_LANGUAGES = _words("bash sh shell zsh")
_PATH_KEYS = _words(
    "path paths file files filename filepath source destination dest src dst target "
    "directory dir folder oldpath newpath"
)
_PATH_PREFIXES = ("/", "~", "./", "../")

_NAME_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
# Control characters, surrogates and bidirectional overrides: a server's name must not
# restyle or reorder the line it is shown on.
_UNPRINTABLE = re.compile(r"[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def classify_tool_call(
    server: str,
    tool: str,
    arguments: Mapping[str, object],
    annotations: Mapping[str, object] | None,
    server_trusted: bool,
    user_rules: UserRules | None = None,
) -> Verdict:
    """The verdict on calling `tool` of `server` with `arguments`. Pure; never raises."""
    label = _label(server, tool)
    name = _name_words(tool)
    words = frozenset(name)
    shell_named = _shell_named(words)
    trusted = server_trusted is True  # anything but an explicit yes is no
    given: object = arguments  # typed as an object, but it comes from a model: check it
    nodes = list(_nodes(given))
    commands, odd = _commands(nodes, shell_named=shell_named)
    replaced = trusted and shell_named and bool(commands)

    parts = [
        _annotation_part(annotations, server, trusted, hint_replaced=replaced),
        *_name_parts(label, name, _has_path(nodes)),
    ]
    if not isinstance(given, Mapping):
        parts.append(Verdict("unknown", ("tool arguments are not an object",)))
    if odd:
        parts.append(Verdict("unknown", ("a command argument is not text",)))
    if commands:
        parts.append(_commands_part(commands, user_rules))
    elif shell_named:
        parts.append(_unkeyed_part(label, nodes, user_rules))
    return _combine(parts)


# ---- annotations -----------------------------------------------------------------------------


def _annotation_part(
    annotations: object, server: object, trusted: bool, *, hint_replaced: bool
) -> Verdict:
    notes: list[str] = []
    hints: Mapping[object, object] = {}
    if isinstance(annotations, Mapping):
        hints = annotations
    elif annotations is not None:
        notes.append("annotations are not an object; ignored")
    read_only = _hint(hints, "readOnlyHint", notes)
    if read_only:
        if trusted:
            return SAFE
        server_label = _printable(server)
        return Verdict(
            "unknown", (f"annotation readOnlyHint from untrusted server {server_label}", *notes)
        )
    if hint_replaced:
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


# ---- the tool's name -------------------------------------------------------------------------


def _name_words(tool: object) -> tuple[str, ...]:
    """The words of a tool's name in order, lower case; a plural counts as its singular too
    (`commands`, `kills`, `files`)."""
    words = [w.lower() for w in _NAME_WORD.findall(tool if isinstance(tool, str) else "")]
    return tuple(words) + tuple(w[:-1] for w in words if len(w) > 3 and w.endswith("s"))


def _shell_named(words: frozenset[str]) -> bool:
    if words & _SHELL_WORDS:
        return True
    return bool(words & _RUN_WORDS) and not words & (_CODE_WORDS | _DATA_WORDS)


def _name_parts(label: str, name: tuple[str, ...], path_argument: bool) -> list[Verdict]:
    words = frozenset(name)
    files = " files" if path_argument or words & _FILE_WORDS else " (by its name)"
    parts = [
        Verdict("destructive", (f"tool {label} {_DELETES[w]}{files}",))
        for w in sorted(_DELETES.keys() & words)
    ]
    if not (name and name[0] in _READ_VERBS):
        parts += [
            Verdict("unknown", (f"tool {label} {_WRITES[w]}{files}",))
            for w in sorted(_WRITES.keys() & words)
        ]
    if words & _RUN_WORDS and words & _CODE_WORDS:
        parts.append(Verdict("unknown", (f"tool {label} runs code",)))
    return parts


# ---- arguments -------------------------------------------------------------------------------


def _nodes(value: object) -> Iterator[tuple[str, object]]:
    """Every value in the argument tree with the normalised key it sits under (a list's items
    sit under the list's key), breadth first, bounded in depth and count."""
    queue: deque[tuple[str, object, int]] = deque([("", value, 0)])
    queued = 1
    while queue:
        key, node, depth = queue.popleft()
        yield key, node
        room = _MAX_NODES - queued  # what is queued is read: never queue more than the bound
        if depth >= _MAX_DEPTH or room <= 0:
            continue
        if isinstance(node, Mapping):
            children = [(_key(k), v) for k, v in islice(node.items(), room)]
        elif isinstance(node, (list, tuple)):
            children = [(key, v) for v in islice(node, room)]
        else:
            continue
        queue.extend((k, v, depth + 1) for k, v in children)
        queued += len(children)


def _key(key: object) -> str:
    text = key if isinstance(key, str) else ""
    return re.sub(r"[\s_\-]", "", text).lower()


def _commands(nodes: list[tuple[str, object]], *, shell_named: bool) -> tuple[list[str], bool]:
    """The command lines found in the arguments, and whether a command key held something
    that is not text."""
    found: list[str] = []
    odd = False
    for _, node in nodes:
        if not isinstance(node, Mapping):
            continue
        keyed = {_key(k): v for k, v in node.items()}
        argv = next((keyed[k] for k in sorted(_ARGV_KEYS) if k in keyed), None)
        heads = [keyed[k] for k in sorted(_COMMAND_KEYS) if k in keyed]
        if not heads and shell_named:
            heads, argv = [argv], None  # a shell tool's `args` alone is the whole argv
        for head in heads:
            line, bad = _command_line(head, argv)
            found += line
            odd = odd or bad
        for key in _COMMAND_LIST_KEYS & keyed.keys():
            items = keyed[key]
            for item in items if isinstance(items, (list, tuple)) else [items]:
                if isinstance(item, str):
                    found.append(item)
                elif isinstance(item, (list, tuple)):
                    line, bad = _command_line(item, None)
                    found += line
                    odd = odd or bad
                elif item is not None and not isinstance(item, Mapping):
                    odd = True
        language = next((keyed[k] for k in _LANGUAGE_KEYS if k in keyed), None)
        if isinstance(language, str) and language.strip().lower() in _SHELL_LANGUAGES:
            found += [c for k in _CODE_KEYS if isinstance(c := keyed.get(k), str)]
    return [c for c in found if c.strip()], odd


def _command_line(command: object, argv: object) -> tuple[list[str], bool]:
    """`command` (text or an argv list) with `argv` appended; ([], True) when not text."""
    if command is None or isinstance(command, Mapping):
        return [], False  # nothing here, or a nested object the walk visits on its own
    head = _argv_text(command) if isinstance(command, (list, tuple)) else command
    if not isinstance(head, str):
        return [], True
    if argv is None or isinstance(argv, Mapping):
        return [head], False
    tail = _argv_text(argv) if isinstance(argv, (list, tuple)) else argv
    if not isinstance(tail, str):
        return [head], True
    return [f"{head} {tail}"], False


def _argv_text(items: Sequence[object]) -> str | None:
    """An argv list as one shell line, quoted so the classifier sees the same words."""
    words = []
    for item in items:
        if isinstance(item, bool) or not isinstance(item, (str, int, float)):
            return None
        words.append(str(item))
    return shlex.join(words)


def _has_path(nodes: list[tuple[str, object]]) -> bool:
    return any(
        isinstance(value, str) and value and (key in _PATH_KEYS or value.startswith(_PATH_PREFIXES))
        for key, value in nodes
    )


# ---- commands --------------------------------------------------------------------------------


def _commands_part(commands: list[str], user_rules: UserRules | None) -> Verdict:
    parts = [_check(c, user_rules) for c in commands[:_MAX_COMMANDS]]
    if len(commands) > _MAX_COMMANDS:
        parts.append(Verdict("unknown", (f"more than {_MAX_COMMANDS} commands; not all checked",)))
    return _combine(parts)


def _unkeyed_part(label: str, nodes: list[tuple[str, object]], rules: UserRules | None) -> Verdict:
    """A tool that runs commands, with none under a key that says so: any text may be one."""
    texts = [v for _, v in nodes if isinstance(v, str) and v.strip()][:_MAX_COMMANDS]
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
