"""SQLite storage: schema and migrations, sessions and turns, memory, the usage ledger and
project trust. One database file in WAL mode shared by several aish processes.

Imports nothing from `agent` or `ui`.
"""

from aish.store.api import Store
from aish.store.database import default_store_path
from aish.store.errors import StoreError, StoreVersionError
from aish.store.memory import ForgetOutcome, MemoryItem
from aish.store.sessions import SessionInfo, SessionSummary, TurnRecord
from aish.store.usage import UsageRow, UsageTotals

__all__ = [
    "ForgetOutcome",
    "MemoryItem",
    "SessionInfo",
    "SessionSummary",
    "Store",
    "StoreError",
    "StoreVersionError",
    "TurnRecord",
    "UsageRow",
    "UsageTotals",
    "default_store_path",
]
