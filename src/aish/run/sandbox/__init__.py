"""Norris in a copy-on-write sandbox (Linux): what the kernel allows (`namespaces`), the
sandbox itself and its launch (`overlay`, with the stand-alone `launcher.py` that builds it
inside new namespaces), whether a run gets one (`choice`), what it refused (`refusals`), what
it changed (`changes`), and applying that to the real tree (`apply`, which refuses files
changed meanwhile and keeps a backup of what it overwrites).

Imports only the standard library and `aish.config.paths`; never `ui`, `agent` or `shell`.
"""

from aish.run.sandbox.apply import ApplyResult, apply_changes
from aish.run.sandbox.changes import Change, ChangeSet, scan_changes
from aish.run.sandbox.choice import choose_sandbox
from aish.run.sandbox.namespaces import SandboxSupport, sandbox_support
from aish.run.sandbox.overlay import Sandbox, SandboxUnavailable

__all__ = [
    "ApplyResult",
    "Change",
    "ChangeSet",
    "Sandbox",
    "SandboxSupport",
    "SandboxUnavailable",
    "apply_changes",
    "choose_sandbox",
    "sandbox_support",
    "scan_changes",
]
