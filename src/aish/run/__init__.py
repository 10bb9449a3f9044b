"""Execution, below ui: what happens around an authorized action when it runs.

It holds what makes a shell command's side effects visible, reversible and contained, in two
sub-rooms: `undo/` (what a command will touch, predicted read-only from its parse and shown
before the user's yes; the snapshot store `:undo` restores from; the recorder that snapshots
the predicted targets right before an approved command runs and records their state right
after) and `sandbox/` (Norris's agent shell in a copy-on-write overlay, its writes a change set
the user reviews, applies or discards). Its door is `aish.agent.gate`: the gate predicts and
decides, the executors snapshot and contain what the gate authorized; nothing here decides
whether an action may run.

Imports: `aish.safety` (parsing, the read-only tables), `shell` and `config` (the sandbox's
launch) and the standard library; never `ui`, `agent` or `llm`. Nothing here imports
tree-sitter at import time.
"""
