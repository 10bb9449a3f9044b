"""The bash walker and rules, the command classifier, tool-call verdicts and the secrets
scrubber. Pure code.

Sub-rooms: `bash/` (parsing and walking a line of bash, options, wrappers, the live shell),
`rules/` (the read-only and destructive tables, user rules, checks of arguments' content),
`egress/` (commands that send data off the machine), `sql/` (database clients and their
scripts) and `secrets/` (the scrubber). On top: `classifier` (a line in, a verdict out),
`verdict` and `reasons`, `tool_calls` and `tool_names` (MCP tool calls), `unseen_chars`.

Knows nothing of terminals; imports nothing from the other rooms.
"""
