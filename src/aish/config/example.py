"""The commented example config that `aish init` writes.

It doubles as the reference for every section: the tests load it and require zero warnings,
so it cannot drift from the schema unnoticed.
"""

from __future__ import annotations

import os
from pathlib import Path

EXAMPLE_CONFIG = """\
# aish configuration. Layers, lowest first: built-in defaults, this file, AISH_* environment
# variables (AISH_DEFAULT_MODEL=deep, AISH_ROUTING__AUTO=true), command-line flags (--model).
# Every key below is optional except each preset's `endpoint` and `model`.

# The preset the prompt starts with.
default_model = "fast"

# ---- model presets ----------------------------------------------------------------------
# Any OpenAI-compatible chat-completions server (llama-server, Ollama, vLLM, LM Studio,
# OpenRouter, OpenAI, ...) or Anthropic's Messages API (api = "anthropic").

[models.fast]
endpoint = "http://127.0.0.1:8080/v1"     # llama-server's default port
model = "qwen2.5-coder-7b-instruct"
timeout_s = 60               # longest silence between two bytes of a reply
connect_timeout_s = 5
# max_tokens = 2048
# temperature = 0.2
# tools = true               # offer MCP tools to this model
# max_retries = 2            # only before any output was shown
# secrets = "off"            # default: "off" on 127.0.0.1/localhost, "scrub" anywhere else

[models.deep]
endpoint = "http://127.0.0.1:11434/v1"    # Ollama
model = "qwen2.5-coder:32b"
timeout_s = 120

[models.cloud]
endpoint = "https://openrouter.ai/api/v1"
model = "anthropic/claude-sonnet-4.5"
api_key_env = "OPENROUTER_API_KEY"         # the NAME of the variable holding the key
secrets = "scrub"                          # replace secrets with placeholders before sending
price = { input = 3.0, output = 15.0, cached_input = 0.3 }   # $ per million tokens

# [models.claude]
# endpoint = "https://api.anthropic.com"
# api = "anthropic"
# model = "claude-sonnet-4-5"
# api_key_env = "ANTHROPIC_API_KEY"
# (api_key = "..." also works but keeps the key in this file; aish warns about it.)

# ---- safety: the gate every command and tool call passes ----------------------------------
[safety]
llm_second_opinion = true    # ask a model about commands the rules cannot classify
llm_model = "fast"           # the judge, never the model that proposed the action: while
                             # `fast` proposes, unknown actions ask you (chat) or halt (Norris)
destructive = []             # globs of commands you consider destructive: ["make deploy*"]
allow = []                   # globs you vouch for: ["make test", "./scripts/check.sh *"];
                             # they lift `unknown` to safe, never a built-in destructive rule
ask = []                     # commands that always ask, even proven read-only: ["git commit"]
deny = []                    # never run for the model, in any spelling: ["git push"]
# rule = [{ decision = "deny", command = "rm", paths = ["/etc/**"], match = ["sudo rm /etc/x"] }]
#                            # scoped rules ([[safety.rule]] tables); `aish safety test` checks
#                            # their match / not_match examples
confirm_cmd = true           # false: provably safe CMD: lines run without asking
max_commands_per_reply = 10  # CMD: lines taken from one reply (chat or a Norris step)

# ---- Norris: autonomous mode --------------------------------------------------------------
[norris]
max_norris_steps = 16
wall_clock_s = 900
# cost_cap_dollars = 1.0     # per goal, priced like the usage ledger (docs/cost.md)
# token_cap = 200000         # per goal: prompt + completion tokens of every call
command_timeout_s = 300      # a step's command is interrupted, then killed, after this
skip_budget = 3              # consecutive skipped actions before the run stops
# preplanner = "cloud"       # one call that splits the goal into TASK: lines
# executor = "fast"          # runs the tasks step by step
tasks_max = 16
# preplan_system = "Split the goal into at most {tasks_max} TASK: lines."
sandbox = "auto"             # :norris in a copy-on-write sandbox you review ("overlay", "off")
sandbox_network = false      # the sandbox has no network unless this is true
sandbox_destructive = "halt" # "run": destructive steps run too (inside the sandbox only)
# sandbox_sockets = []       # host Unix sockets the sandbox may still reach
delegate = false             # DELEGATE: runs a sub-goal on another preset without a HALT
delegate_max_steps = 8       # a delegated run's bounds, within what the goal has left
delegate_wall_clock_s = 300
# delegate_cost_cap_dollars = 0.2

# ---- memory across sessions -------------------------------------------------------------
[memory]
inject_max_chars = 2000      # how much remembered text the model sees at start
# prune_older_than_days = 90
# summarizer_model = "fast"

# ---- routing and fallback ---------------------------------------------------------------
[routing]
auto = false                 # pick a preset per request from the kind of question (:route on)
classes = { code = "deep", reasoning = "cloud", default = "fast" }   # unlisted: your model
cloud_fallback = false       # retry once on fallback_model when the model fails before any
fallback_model = "cloud"     # output: cannot connect, timeout, 5xx, 408, model not found

# ---- conversation context ---------------------------------------------------------------
[context]
max_turns = 40               # exchanges kept; older ones are evicted whole (to 3/4 of it)
token_budget = 8192          # tokens of one request; :tokens shows where you are
summarize_on_evict = false   # summarise evicted exchanges instead of forgetting them
# summarizer_model = "fast"
max_summary_chars = 2000
output_max_lines = 200       # of one command's output shown to the model (head + tail)
output_max_bytes = 16384
project_max_files = 200      # :context — files of the project tree listed (the rest counted)
project_max_depth = 4        # :context — deeper folders are shown collapsed

# ---- cost ---------------------------------------------------------------------------------
[cost]
warn_at_dollars = [0.5, 2.0]  # warn once as the session passes each amount
# stop_at_dollars = 5.0       # refuse further paid calls in this session

# ---- MCP tool servers ---------------------------------------------------------------------
# Servers start in the background after the prompt appears; their tools reach the model as
# <server>__<tool>. A server that fails is reported once and the others keep working.
# `:mcp` shows them, `:mcp restart <name>` starts one again. See docs/mcp.md.
[mcp]
import = []                  # JSON files in the common `mcpServers` shape (Claude, Cursor,
                             # Gemini CLI, VS Code); servers declared below win on a name clash
max_tool_calls = 8           # tool calls the model may make while answering one request

# A stdio server: aish runs the command with your environment plus `env`; its stderr goes to
# <state dir>/mcp/<name>.stderr.log, never to the terminal.
# [mcp.servers.time]
# command = "uvx"
# args = ["mcp-server-time", "--local-timezone=UTC"]
# env = { TZ = "UTC" }
# cwd = "~/src"
# timeout_s = 30              # each call, and each step of starting
# trusted = true              # trust its readOnlyHint/destructiveHint annotations
# auto_approve = ["get_*"]    # tool names (bare or time__get_*) that skip the confirm prompt
#                             # when the gate raises no flag

# A Streamable HTTP server. ${VAR} and ${VAR:-default} are expanded from the environment in
# command, args, env, cwd, url and headers, so keys stay out of this file.
# [mcp.servers.docs]
# url = "https://example.com/mcp"
# headers = { Authorization = "Bearer ${DOCS_TOKEN}" }

# ---- undo: snapshots before approved commands ----------------------------------------------
[undo]
enabled = true
max_snapshot_bytes = 268435456   # 256 MB per command; above it the prompt says "not undoable"
max_total_bytes = 1073741824     # all snapshots together; the oldest go first
max_age_days = 7

# ---- terminal -----------------------------------------------------------------------------
[ui]
show_reasoning = "dim"       # or "hide"
# shell = "bash"             # default: $SHELL when it is bash or zsh
edit_mode = "shell"          # as your shell's `set -o vi`/inputrc say; or "emacs", "vi"
# completion_timeout_s = 2.0 # how long Tab waits for the shell's completion (git's, yours)
# fix_key = "escape f"       # on an empty line after a failure, as ?? does: a fix in the editor
suggest = "history"          # ghost text as you type: "history", "model" (local) or "off"
# suggest_model = "fast"     # the preset suggest = "model" asks (a local one)
# suggest_cloud = false      # let it be a cloud preset: a paid request at every pause
"""


def write_example(path: Path, *, force: bool = False) -> Path:
    """Write `EXAMPLE_CONFIG` to `path` (creating folders) and return the path.

    Raises FileExistsError when the file exists and `force` is false. The file is created
    readable by its owner only, since configs may end up holding keys.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    flags = os.O_WRONLY | os.O_CREAT | (os.O_TRUNC if force else os.O_EXCL)
    descriptor = os.open(path, flags, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        handle.write(EXAMPLE_CONFIG)
    return path
