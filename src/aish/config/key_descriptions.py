"""What each config key means, in the words `docs/config.md` shows (`config.reference` renders
them with each key's type and default, read from the schema).

Keyed by key path; `<name>` stands for a name the user chooses. A test fails when a key of the
schema has no description here, or a description names a key that no longer exists.
"""

from __future__ import annotations

__all__ = ["DESCRIPTIONS"]

# One description per key path. `<name>` stands for a name the user chooses (a preset, a
# server). Sections (`norris`) and tables (`models.<name>.price`) are key paths too.
DESCRIPTIONS: dict[str, str] = {
    # ---- top level ------------------------------------------------------------------------
    "default_model": (
        "The preset the prompt starts with and `aish ask` uses. Unset: the first preset. "
        "Must name a preset under `models`. Also `--model`/`-m` on the command line."
    ),
    "models": (
        "Model presets, one table each: `[models.fast]`, `[models.cloud]`. The name is what "
        "`:model <name>`, `--model <name>` and other keys (`safety.llm_model`, "
        "`routing.classes`, …) refer to. Without any preset and without a config file, aish "
        "builds presets from the local servers and API keys it finds."
    ),
    # ---- models.<name> --------------------------------------------------------------------
    "models.<name>": "One model: where it lives, which protocol it speaks, how to talk to it.",
    "models.<name>.endpoint": (
        'Base URL of the API, `http://` or `https://`, no query: `"http://127.0.0.1:8080/v1"` '
        '(llama-server), `"http://127.0.0.1:11434/v1"` (Ollama), '
        '`"https://openrouter.ai/api/v1"`, `"https://api.anthropic.com"`. '
        "A trailing `/` is dropped."
    ),
    "models.<name>.model": 'The model name sent to the server: `"qwen2.5-coder-7b"`.',
    "models.<name>.api": (
        '`"openai"`: the OpenAI-compatible chat-completions API (llama-server, Ollama, vLLM, '
        'LM Studio, OpenRouter, OpenAI). `"anthropic"`: Anthropic\'s native Messages API.'
    ),
    "models.<name>.api_key_env": (
        'The NAME of the environment variable holding the API key (`"OPENROUTER_API_KEY"`), '
        "read when a request is made. Unset for servers that need no key. A value that is not "
        "a variable name (a pasted key) is refused."
    ),
    "models.<name>.api_key": (
        "The key itself, written in the file. Works, with a warning: prefer `api_key_env`. "
        "Ignored when `api_key_env` is set."
    ),
    "models.<name>.timeout_s": (
        "Idle timeout: the longest silence tolerated between two bytes of a reply, in seconds."
    ),
    "models.<name>.connect_timeout_s": "Seconds allowed to connect to the endpoint.",
    "models.<name>.max_tokens": "Cap on the tokens of one reply. Unset: the server decides.",
    "models.<name>.temperature": "Sampling temperature. Unset: the server decides.",
    "models.<name>.price": (
        "Dollars per million tokens, for the cost ledger: "
        "`price = { input = 3.0, output = 15.0, cached_input = 0.3 }`. Unset: the provider's "
        "reported cost, else free for a local endpoint, else the bundled price table "
        "(see cost.md)."
    ),
    "models.<name>.price.input": (
        "$ per million prompt tokens. Unset: taken from the price table (free on a local endpoint)."
    ),
    "models.<name>.price.output": (
        "$ per million completion tokens. Unset: taken from the price table (free on a local "
        "endpoint)."
    ),
    "models.<name>.price.cached_input": (
        "$ per million cached prompt tokens. Unset: the table's cached rate, else the input rate."
    ),
    "models.<name>.secrets": (
        '`"scrub"`: secrets in everything sent are replaced by `AISH_SECRET_<TYPE>_<n>` '
        'placeholders (see secrets.md). `"off"`: sent as they are. Unset: `"off"` for '
        '`127.0.0.1`, `::1` and `localhost`, `"scrub"` for any other endpoint.'
    ),
    "models.<name>.tools": (
        "Offer MCP tools to this model. `false` for small local models that mangle tool calls."
    ),
    "models.<name>.max_retries": (
        "Retries of a failed request (408, 429, 5xx, connection errors), only before any "
        "output was shown."
    ),
    "models.<name>.max_reply_chars": (
        "Characters of one reply (text, reasoning and tool-call arguments) read before aish "
        "closes the stream: what arrived is kept, marked cut, and one line says so. What the "
        "server sends around the reply (JSON framing, pings) may reach 512 times this, one "
        "line of it 8 times this (at least 1 MiB each). Guards against a server that never "
        "stops."
    ),
    # ---- safety ---------------------------------------------------------------------------
    "safety": "The gate every command and tool call passes (see safety.md).",
    "safety.llm_second_opinion": (
        "Ask a model YES/NO about an action the rules judge `unknown`, where the answer "
        "decides: in Norris and `aish goal` (NO runs it, anything else halts) and for tool "
        "calls `auto_approve` covers. `false`: such actions halt or ask. Chat asks you about "
        "every `CMD:` line anyway."
    ),
    "safety.llm_model": (
        "The preset asked for the second opinion. Never the model that proposed the action: "
        "when this preset is that model (same endpoint and model name, whatever the preset is "
        "called) or does not exist, nobody is asked: an `unknown` action then asks you in chat "
        "(an auto-approved tool call too) and halts in Norris and `aish goal`. Pick a model "
        "other than the ones you chat and run Norris with."
    ),
    "safety.destructive": (
        'Globs of commands you consider destructive: `["make deploy*", "terraform apply*"]`. '
        "Matched against each command after unwrapping, its words joined by spaces."
    ),
    "safety.allow": (
        'Commands you vouch for: `["make test", "pytest*"]`, each a command prefix with `*` '
        "globs matched against every command after unwrapping (`sudo`, `bash -c`, lists, "
        "pipelines …). They lift `unknown` to `safe` (it runs without asking in Norris), never "
        "a built-in destructive rule; `make test && rm -rf /` is not `make test`."
    ),
    "safety.ask": (
        "Commands that always ask (confirm in chat, HALT in Norris), even when proven "
        'read-only: `["git push", "npm publish"]`. Patterns as for `allow`.'
    ),
    "safety.deny": (
        'Commands never run on the model\'s behalf, whatever anyone answers: `["git push -f*", '
        '"kubectl delete *"]`. Matched in every spelling that still runs them (`cd x && sudo '
        "git push`); one that only may (`git $x`) asks. You can still type them yourself."
    ),
    "safety.rule": (
        "Rules with a scope (key `safety.rule`): tables of `decision` (allow, ask, deny), "
        "`command` (a pattern or a list), `paths`, `reason` and `match` / `not_match` examples, "
        "checked when the config loads (`aish safety test` runs them)."
    ),
    "safety.rule.decision": "`allow`, `ask` or `deny`, as the lists of the same names.",
    "safety.rule.command": "A command pattern, or a list of them (as in `safety.allow`).",
    "safety.rule.paths": (
        "Globs the command's path words must fall under (`./build/**`): for `allow` every "
        "path, for `ask` and `deny` any. Empty: anywhere."
    ),
    "safety.rule.reason": "Said when the rule decides.",
    "safety.rule.match": "Commands the rule must cover; a failing example is a config error.",
    "safety.rule.not_match": "Commands the rule must not cover.",
    "safety.confirm_cmd": (
        "`false`: `CMD:` lines proven read-only (`safe`) run without asking. Others always ask."
    ),
    "safety.max_commands_per_reply": (
        "`CMD:` lines taken from one reply, in chat and in each Norris step: the first ones are "
        "proposed, the rest dropped with a status line, and the model is told they were not "
        "run. A Norris run of N steps thus runs at most N times this many commands."
    ),
    # ---- norris ---------------------------------------------------------------------------
    "norris": "Bounds and models of Norris, the autonomous mode (see norris.md).",
    "norris.max_norris_steps": "Steps per run (one step: one model reply and its actions).",
    "norris.wall_clock_s": (
        "Seconds per run. Time spent answering a HALT does not count. Unset: no limit."
    ),
    "norris.cost_cap_dollars": (
        "Dollars per run, priced as the cost ledger prices each call. Unset: no limit."
    ),
    "norris.token_cap": ("Prompt + completion tokens of every call in a run. Unset: no limit."),
    "norris.command_timeout_s": (
        "Seconds per command: it is interrupted, then killed, and the run goes on."
    ),
    "norris.skip_budget": "Actions skipped in a row (at a HALT) that end the run.",
    "norris.preplanner": (
        "A preset asked once, at the start, to split the goal into `TASK:` lines. "
        "Unset: no plan, the executor works on the goal directly."
    ),
    "norris.executor": "The preset that runs the steps. Unset: the active model.",
    "norris.tasks_max": "Most tasks taken from a plan; more are cut, with a notice.",
    "norris.preplan_system": (
        "Instructions for the preplanner, replacing the built-in ones; `{tasks_max}` is "
        "replaced by `norris.tasks_max`."
    ),
    "norris.sandbox": (
        "Run `:norris` in a copy-on-write sandbox (Linux namespaces + an overlay over the "
        "project root, the rest of the filesystem read-only, no network, host sockets hidden); "
        "at the end you review the change set and apply all, pick files, or discard. `auto`: "
        "where the kernel allows it; `overlay`: always (a run that cannot says so in one line "
        "and runs unsandboxed); `off`: never. In the sandbox `unknown` steps run without "
        "asking. `aish goal` uses it with `--sandbox`."
    ),
    "norris.sandbox_network": (
        "Let the sandbox use the network. Then commands that can send data off the machine are "
        "judged as without a sandbox."
    ),
    "norris.sandbox_destructive": (
        "`halt`: destructive steps still stop for your verdict in the sandbox; `run`: they run "
        "there too (nothing reaches the real tree before you apply)."
    ),
    "norris.sandbox_sockets": (
        "Host Unix sockets (paths) the sandbox may still reach, e.g. "
        '`["/run/user/1000/podman/podman.sock"]`. All others are hidden.'
    ),
    "norris.delegate": (
        "Run a Norris step's `DELEGATE: <preset>: <sub-goal>` line without asking: the "
        "sub-goal goes to a bounded Norris run on that preset (same gate, same shell and "
        "sandbox) and its summary back to the model. `false`: it HALTs for your word first "
        "(`aish goal` refuses it). In chat a delegation always asks."
    ),
    "norris.delegate_max_steps": (
        "Steps of a delegated run, never more than its parent run has left (they count as "
        "the parent's)."
    ),
    "norris.delegate_wall_clock_s": (
        "Seconds of a delegated run, never more than its parent has left. Unset: only the "
        "parent's limit."
    ),
    "norris.delegate_cost_cap_dollars": (
        "Dollars of a delegated run, never more than its parent has left. Unset: only the "
        "parent's limit."
    ),
    # ---- memory ---------------------------------------------------------------------------
    "memory": "What aish remembers across sessions (see memory.md).",
    "memory.inject_max_chars": (
        "Characters of remembered items (most recent first) the model gets in its "
        "`[background]` block. `0`: none."
    ),
    "memory.prune_older_than_days": (
        "Forget items older than this many days when aish starts. Unset: keep everything."
    ),
    "memory.summarizer_model": (
        "The preset `:memory summarize` asks. Unset: a preset named `fast`, else the active model."
    ),
    # ---- routing --------------------------------------------------------------------------
    "routing": "Choosing a preset per question, and the cloud fallback (see routing.md).",
    "routing.auto": (
        "Classify each question (`code`, `reasoning`, `default`) and send it to the preset "
        "`routing.classes` names. `:route on|off` changes it for the session."
    ),
    "routing.classes": (
        'Class → preset: `{ code = "deep", reasoning = "cloud" }`. A class without an entry '
        "stays on your model. `fix` is the class of `??` (a fix for the command that just "
        "failed), asked whether or not `routing.auto` is on; without an entry it goes to a "
        "preset named `fast`, else your model."
    ),
    "routing.cloud_fallback": (
        "Retry once on `routing.fallback_model` when a request fails before anything was shown "
        "(cannot connect, timeout, 5xx, 408, model not found). `:fallback on|off` for the "
        "session."
    ),
    "routing.fallback_model": "The preset the cloud fallback retries on.",
    # ---- context --------------------------------------------------------------------------
    "context": "How much conversation the model gets (see routing.md, the context budget).",
    "context.max_turns": (
        "Exchanges kept; older ones are evicted whole, down to three quarters of this."
    ),
    "context.token_budget": (
        "Tokens one request aims to stay under; `:tokens` shows where you are."
    ),
    "context.summarize_on_evict": (
        "Summarise evicted exchanges into one rolling summary instead of forgetting them."
    ),
    "context.summarizer_model": (
        "The preset that writes that summary. Unset: a preset named `fast`, else the active model."
    ),
    "context.max_summary_chars": "Longest rolling summary; a longer one is summarised again.",
    "context.output_max_lines": (
        "Lines of one command's output the model gets (head and tail, with an omission marker); "
        "also bounds piped input to `aish ask`."
    ),
    "context.output_max_bytes": "Bytes of one command's output the model gets (head and tail).",
    "context.project_max_files": (
        "`:context`: files of the project tree shown; the rest are counted, not listed."
    ),
    "context.project_max_depth": (
        "`:context`: folders deeper than this are shown collapsed, with their file count."
    ),
    # ---- cost -----------------------------------------------------------------------------
    "cost": "Spending limits for one session (see cost.md).",
    "cost.warn_at_dollars": (
        "Warn once as the session's known cost passes each amount. One number or a list: "
        "`[0.5, 2.0]`."
    ),
    "cost.stop_at_dollars": (
        "Refuse further paid calls in the session once its known cost reaches this. "
        "`:cost limit <usd>` raises it for the session. Unset: no limit."
    ),
    # ---- mcp ------------------------------------------------------------------------------
    "mcp": "MCP tool servers (see mcp.md).",
    "mcp.servers": (
        "Servers, one table each: `[mcp.servers.time]`. Tools reach the model as "
        "`<server>__<tool>`."
    ),
    "mcp.servers.<name>": (
        "One server: set exactly one of `command` (stdio) or `url` (Streamable HTTP). "
        "`${VAR}` and `${VAR:-default}` are expanded from the environment in `command`, `args`, "
        "`env`, `cwd`, `url` and `headers`."
    ),
    "mcp.servers.<name>.command": (
        'The program of a stdio server: `"uvx"`, `"npx"`. `~` is expanded.'
    ),
    "mcp.servers.<name>.args": 'Its arguments: `["mcp-server-time", "--local-timezone=UTC"]`.',
    "mcp.servers.<name>.env": (
        "Variables added to your environment, which a stdio server inherits whole."
    ),
    "mcp.servers.<name>.cwd": "Directory a stdio server starts in. `~` is expanded.",
    "mcp.servers.<name>.url": 'URL of a Streamable HTTP server: `"https://example.com/mcp"`.',
    "mcp.servers.<name>.headers": (
        'HTTP headers sent to it: `{ Authorization = "Bearer ${DOCS_TOKEN}" }`.'
    ),
    "mcp.servers.<name>.timeout_s": (
        "Seconds for each call, and for each step of starting (spawn, handshake, tool list)."
    ),
    "mcp.servers.<name>.trusted": (
        "Believe the server's `readOnlyHint`/`destructiveHint` annotations. Untrusted: every "
        "tool counts as destructive."
    ),
    "mcp.servers.<name>.auto_approve": (
        'Globs of tool names (`["get_*"]`) that skip the confirm prompt when the gate raises no '
        "flag; never for a destructive call."
    ),
    "mcp.servers.<name>.max_result_bytes": (
        "Bytes of one tool result the model is given. A larger result keeps its head and tail "
        "around an omission marker, under a first line saying it was cut and naming this key."
    ),
    "mcp.import": (
        "JSON files in the common `mcpServers` shape (Claude, Cursor, Gemini CLI, VS Code's "
        '`servers`): `["~/.cursor/mcp.json"]`. Relative paths start at the folder of '
        "config.toml. A server declared under `mcp.servers` wins over an imported one."
    ),
    "mcp.max_tool_calls": (
        "Tool calls the model may make while answering one request; then it must answer in text."
    ),
    # ---- ui -------------------------------------------------------------------------------
    "ui": "The terminal.",
    "ui.show_reasoning": (
        'Reasoning ("thinking") text of models that send it: `"dim"` shows it dimmed, '
        '`"hide"` does not show it.'
    ),
    "ui.shell": (
        'The shell commands run in: `"bash"` or `"zsh"`. Unset: `$SHELL` when it is bash or '
        "zsh, else bash."
    ),
    "ui.edit_mode": (
        'Line editing keys: `"emacs"`, `"vi"`, or `"shell"`: what your shell would use, as its '
        "`set -o vi` / `set -o emacs` (in your rc file or typed) or inputrc's `editing-mode` says, "
        "read at every prompt (zsh: its `vi` option)."
    ),
    "ui.completion_timeout_s": (
        "How long Tab waits for the shell's completion (a programmable completion such as "
        "git's runs shell code); past it Tab offers nothing from the shell and typing goes on."
    ),
    "ui.fix_key": (
        "The key that does what `??` does on an empty line after a command failed: asks the "
        "model for a fix and puts it in the line editor (never run before you press Enter). "
        'prompt_toolkit key names, space-separated: `"escape f"` (Esc f, also Alt-f), '
        '`"c-x f"`. On a line with text the key keeps its usual meaning. `""`: no key.'
    ),
    "ui.suggest": (
        'Ghost text as you type, taken with → / End / Ctrl-F. `"history"`: your earlier lines '
        'starting with what you typed, those typed in this directory first. `"model"`: also, '
        "when the history has none, a completion from `ui.suggest_model` once you pause "
        '(a request that never delays a key; the next key cancels it). `"off"`: none.'
    ),
    "ui.suggest_model": (
        'The preset `suggest = "model"` asks. Unset: a preset named `fast`, else the active '
        "model. It must be a local one (its endpoint on this machine) unless `suggest_cloud`."
    ),
    "ui.suggest_cloud": (
        "Let `suggest_model` be a cloud preset: every pause in typing sends the line (secrets "
        "scrubbed) and costs a request. Off: model suggestions come from a local preset only."
    ),
    # ---- undo -----------------------------------------------------------------------------
    "undo": (
        "Snapshots of what an approved `unknown` or `destructive` command will touch, taken "
        "right before it runs, so `:undo` can put it back (see safety.md)."
    ),
    "undo.enabled": "false: take no snapshots; the confirm prompt still shows the blast radius.",
    "undo.max_snapshot_bytes": (
        "Largest snapshot of one command's targets (reflinked where the filesystem can, else "
        'copied). Above it the confirm prompt says "not undoable: 2.3 GB" before you answer.'
    ),
    "undo.max_total_bytes": (
        "What all snapshots may hold together; the oldest go first. They live under "
        "`~/.local/share/aish/snapshots` (`$XDG_DATA_HOME`)."
    ),
    "undo.max_age_days": "Snapshots older than this are removed.",
}
