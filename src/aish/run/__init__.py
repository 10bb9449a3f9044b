"""Execution, below ui: the one place that runs an authorized action, and what happens around it.

The executors: `user_shell` (the user's persistent shell: their own line, and what the gate
authorized, with the real terminal relayed), `agent_shell` (Norris's own shell, with a timeout)
and `tool_calls` (MCP tool calls); `diff_apply` checks a reviewed diff and writes the command
that applies it (through the gate and the user's shell). Each executor runs what the model
proposed only after `authorized.redeem` — the gate's `Authorization`, spent, and of the
executor's kind — and each finished command is recorded once (`record.record_run`: the
conversation and the session log).
What the frontend shows is handed in as small protocols (status lines, where output goes, the
keys typed ahead); nothing here prints on its own account or asks a question.

Around a shell command, what makes its side effects visible, reversible and contained, in two
sub-rooms: `undo/` (what a command will touch, predicted read-only from its parse and shown
before the user's yes; the snapshot store `:undo` restores from; the recorder that snapshots
the predicted targets right before an approved command runs and records their state right
after) and `sandbox/` (Norris's agent shell in a copy-on-write overlay, its writes a change set
the user reviews, applies or discards). Its door is `aish.agent.gate`: the gate predicts and
decides, the executors redeem, snapshot and contain what the gate authorized; nothing here
decides whether an action may run.

Imports: `aish.safety` (parsing, the read-only tables), `shell` (the sessions and the terminal
relay), `conversation` (`CommandRun`), `config` and the standard library; of `agent` only the
gate, in `authorized` (the reviewed exception in `pyproject.toml`); never `ui` or `llm`.
Nothing here imports tree-sitter at import time.
"""
