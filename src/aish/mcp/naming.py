"""The names the model calls tools by: `<server>__<tool>`, within the OpenAI function-name rules.

Providers accept `[A-Za-z0-9_-]{1,64}`; MCP allows dots, slashes and 128 characters, and two
servers may offer the same tool. So every other character becomes `_`, and a name that had to
be cut to 64 characters, or that two tools would share, ends in `_` + a short hash of the real
server and tool names instead. The hash is a function of those two names alone, so a tool keeps
its exposed name from one session to the next as long as its neighbours do.

Pure: no I/O.
"""

from __future__ import annotations

import hashlib
import re
from collections import defaultdict
from collections.abc import Iterable

__all__ = ["MAX_NAME", "SEPARATOR", "qualified_names", "sanitise"]

MAX_NAME = 64
SEPARATOR = "__"
_HASH_CHARS = 8
_NOT_ALLOWED = re.compile(r"[^A-Za-z0-9_-]")


def sanitise(text: str) -> str:
    """`text` with every character outside `[A-Za-z0-9_-]` replaced by `_` (never empty)."""
    return _NOT_ALLOWED.sub("_", text) or "_"


def qualified_names(pairs: Iterable[tuple[str, str]]) -> dict[tuple[str, str], str]:
    """The exposed name of each `(server, tool)`: unique, at most 64 allowed characters."""
    plain: dict[tuple[str, str], str] = {}
    for server, tool in dict.fromkeys(pairs):
        name = f"{sanitise(server)}{SEPARATOR}{sanitise(tool)}"
        plain[(server, tool)] = name if len(name) <= MAX_NAME else _hashed(server, tool, name)
    holders: defaultdict[str, list[tuple[str, str]]] = defaultdict(list)
    for pair, name in plain.items():
        holders[name].append(pair)
    names = dict(plain)
    for shared in (group for group in holders.values() if len(group) > 1):
        # Every holder gets a suffix, not all but one: which one came first is an accident of
        # the order servers answered in.
        for server, tool in shared:
            names[(server, tool)] = _hashed(server, tool, plain[(server, tool)])
    return _unique(names)


def _hashed(server: str, tool: str, name: str, chars: int = _HASH_CHARS) -> str:
    digest = hashlib.sha256(f"{server}\0{tool}".encode(errors="surrogatepass")).hexdigest()[:chars]
    return f"{name[: MAX_NAME - chars - 1]}_{digest}"


def _unique(names: dict[tuple[str, str], str]) -> dict[tuple[str, str], str]:
    """Longer hashes for the (astronomically rare) names that still coincide."""
    chars = _HASH_CHARS
    while len(set(names.values())) < len(names) and chars < 32:
        chars += 8
        seen: defaultdict[str, int] = defaultdict(int)
        for name in names.values():
            seen[name] += 1
        for (server, tool), name in list(names.items()):
            if seen[name] > 1:
                base = f"{sanitise(server)}{SEPARATOR}{sanitise(tool)}"
                names[(server, tool)] = _hashed(server, tool, base, chars)
    return names
