"""Soak and fault tests: the real `aish` driven in a PTY for many turns against a scripted model
server that fails at random and an MCP server that crashes, plus a sweep of bad input.

`AISH_SOAK_TURNS` sets the soak's length (a short run by default; `make soak` runs 500+).
"""
