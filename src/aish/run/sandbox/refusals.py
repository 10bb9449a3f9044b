"""What the sandbox refused, read from a command's own error messages: a write outside the tree
(EROFS, "Read-only file system") and a connection it had no network for (ENETUNREACH, a host
name that does not resolve). Cheap — a few patterns over the output the model reads anyway —
and said with the path or host, so neither the user nor the model mistakes it for a bug.
"""

from __future__ import annotations

import re

__all__ = ["refusals"]

_QUOTED = r"['\"‘’`]?"
_READ_ONLY = [
    # touch: cannot touch '/etc/x': Read-only file system; bash: /etc/x: Read-only file system
    re.compile(rf"{_QUOTED}(/[^\s'\"‘’`:]+){_QUOTED}: Read-only file system"),
    # OSError: [Errno 30] Read-only file system: '/etc/x'
    re.compile(rf"Read-only file system: {_QUOTED}(/[^\s'\"‘’`]+)"),
]
_NETWORK = [
    re.compile(r"Could not resolve host:? ([\w.-]+)"),
    re.compile(r"unable to resolve host address [‘'\"]?([\w.-]+)"),
    re.compile(r"connect to host ([\w.-]+) port \d+: Network is unreachable"),
    re.compile(r"Failed to connect to ([\w.-]+) port \d+"),
    re.compile(r"Could not resolve hostname ([\w.-]+)"),
]
_NETWORK_ANY = re.compile(
    r"Network is unreachable|Temporary failure in name resolution|Name or service not known"
)


def refusals(output: str, *, network: bool = False) -> list[str]:
    """One line per thing the sandbox refused in this output (empty when none)."""
    said: list[str] = []
    paths = dict.fromkeys(m.group(1) for p in _READ_ONLY for m in p.finditer(output))
    if paths:
        said.append(f"sandbox: writes outside the tree are refused: {', '.join(paths)}")
    if network:
        return said
    hosts = dict.fromkeys(m.group(1) for p in _NETWORK for m in p.finditer(output))
    if hosts:
        said.append(f"sandbox: no network (sandbox_network = false): {', '.join(hosts)}")
    elif _NETWORK_ANY.search(output):
        said.append("sandbox: no network (sandbox_network = false)")
    return said
