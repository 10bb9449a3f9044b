"""What the session's services hand the frontend, by name: the store's records (a memory
item, a usage total, an import plan), the store itself as the REPL's services type it, and the
errors a service call can raise.

The ui talks to the session, never to the store or the broker (DESIGN, "Doors"); these are the
names it uses for what comes back. Resolved on first use: importing this module costs nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from aish._lazy_face import lazy_names

if TYPE_CHECKING:
    from aish.agent.outbound import REQUEST_FAILURES, RequestFailure
    from aish.errors import ConfigError
    from aish.llm.errors import LLMError
    from aish.llm.types import ModelTarget
    from aish.store import MemoryItem, SessionInfo, Store, StoreError, UsageTotals
    from aish.store.memory_file import ImportPlan, ImportReport

__all__ = [
    "REQUEST_FAILURES",
    "ConfigError",
    "ImportPlan",
    "ImportReport",
    "LLMError",
    "MemoryItem",
    "ModelTarget",
    "RequestFailure",
    "SessionInfo",
    "Store",
    "StoreError",
    "UsageTotals",
]

_HOMES = {
    "REQUEST_FAILURES": "aish.agent.outbound",
    "RequestFailure": "aish.agent.outbound",
    "ConfigError": "aish.errors",
    "ImportPlan": "aish.store.memory_file",
    "ImportReport": "aish.store.memory_file",
    "LLMError": "aish.llm.errors",
    "MemoryItem": "aish.store",
    "ModelTarget": "aish.llm.types",
    "SessionInfo": "aish.store",
    "Store": "aish.store",
    "StoreError": "aish.store",
    "UsageTotals": "aish.store",
}


__getattr__ = lazy_names(__name__, _HOMES)
