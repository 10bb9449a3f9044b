"""MCP server connections (the SDK is imported lazily), the tool catalogue and calls with
timeouts.

Imports nothing from `agent` or `ui`.
"""
