"""What the session's services hand the frontend, by name: the store's records (a memory
item, a usage total, an import plan), the store itself as the REPL's services type it, and the
errors a service call can raise.

The ui talks to the session, never to the store or the broker (DESIGN, "Doors"); these are the
names it uses for what comes back. Resolved on first use: importing this module costs nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from aish.llm.errors import ConfigError, LLMError
    from aish.llm.types import ModelTarget
    from aish.store import MemoryItem, SessionInfo, Store, StoreError, UsageTotals
    from aish.store.memory_file import ImportPlan, ImportReport

__all__ = [
    "ConfigError",
    "ImportPlan",
    "ImportReport",
    "LLMError",
    "MemoryItem",
    "ModelTarget",
    "SessionInfo",
    "Store",
    "StoreError",
    "UsageTotals",
]

_HOMES = {
    "ConfigError": "aish.llm.errors",
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


def __getattr__(name: str) -> object:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'aish.session.records' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(home), name)
    globals()[name] = value  # later lookups skip this function
    return value
