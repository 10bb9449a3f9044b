"""SQLite storage: schema and migrations, sessions and turns, memory, the usage ledger and
project trust. One database file in WAL mode shared by several aish processes.

Imports nothing from `agent` or `ui`.
"""
