"""What a tool's name says it does: the word tables, and the verdicts they give.

Matching is on whole words of the name (`write_file`, `writeFile`, `fs.write` all contain
`write`), so `undelete` is not `delete`. Names never lower a verdict: a delete-ish verb is
`destructive`, a write-ish one is at least `unknown`, running code is `unknown`.
"""

from __future__ import annotations

import re

from aish.safety.verdict import Verdict

__all__ = ["name_parts", "name_words", "shell_named"]


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


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

_NAME_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")


def name_words(tool: object) -> tuple[str, ...]:
    """The words of a tool's name in order, lower case; a plural counts as its singular too
    (`commands`, `kills`, `files`)."""
    words = [w.lower() for w in _NAME_WORD.findall(tool if isinstance(tool, str) else "")]
    return tuple(words) + tuple(w[:-1] for w in words if len(w) > 3 and w.endswith("s"))


def shell_named(words: frozenset[str]) -> bool:
    """Whether a name with these words says the tool runs shell commands."""
    if words & _SHELL_WORDS:
        return True
    return bool(words & _RUN_WORDS) and not words & (_CODE_WORDS | _DATA_WORDS)


def name_parts(label: str, name: tuple[str, ...], path_argument: bool) -> list[Verdict]:
    """A verdict for every act the name says the tool does (`label` names it in reasons)."""
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
