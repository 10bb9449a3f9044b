"""Real MCP servers for tests: where `make test` installed them, and tiny scripted ones."""
