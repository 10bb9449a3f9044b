"""The config schema: a dataclass for every section of `config.toml`.

Plain dataclasses, not pydantic models: a start that takes the kept, already validated config
(`validated_cache`) must not pay for importing pydantic. `aish.config.validation` checks a
config against these classes with pydantic when its sources changed; the checks beyond types
are the `field_checks` markers and the bounds in `setting(...)`.

Every class forbids unknown keys so a typo is reported instead of silently ignored. Defaults
here are the built-in layer of the config: a missing file or section means exactly these values.
Cross-references other than `default_model` (safety.llm_model, routing.classes, …) are resolved
by the features that use them, because a zero-config setup legitimately lacks those presets.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Final, Literal

from aish.config.field_checks import After, Before, Bounds, setting
from aish.config.presets import FORBID_UNKNOWN, ModelPreset, Price, check_url_with_host

__all__ = [
    "AishConfig",
    "ContextConfig",
    "CostConfig",
    "McpConfig",
    "McpServer",
    "MemoryConfig",
    "ModelPreset",
    "NorrisConfig",
    "PolicyRuleConfig",
    "Price",
    "RoutingConfig",
    "SafetyConfig",
    "UiConfig",
]


def _names_a_command(value: list[str] | str) -> list[str] | str:
    given = [value] if isinstance(value, str) else value
    if not given or not all(pattern.strip() for pattern in given):
        raise ValueError("must name a command")
    return value


@dataclass
class PolicyRuleConfig:
    """One `[[safety.rule]]` table of the permission policy. The examples are checked when the
    config loads, by the layer that knows the classifier (config may not import it)."""

    __pydantic_config__ = FORBID_UNKNOWN

    decision: Literal["allow", "ask", "deny"]
    # One pattern or several: a command prefix with `*` globs (`git push`, `npm run test*`).
    command: Annotated[list[str] | str, After(_names_a_command)]
    # Globs the command's path words must fall under (`./build/**`).
    paths: list[str] = setting(factory=list)
    reason: str = ""
    match: list[str] = setting(factory=list)
    not_match: list[str] = setting(factory=list)

    def patterns(self) -> list[str]:
        return [self.command] if isinstance(self.command, str) else list(self.command)


@dataclass
class SafetyConfig:
    """The gate's user-adjustable parts (§5)."""

    __pydantic_config__ = FORBID_UNKNOWN

    llm_second_opinion: bool = True
    llm_model: str = "fast"
    # Extra patterns the user considers destructive; they add to the built-in rules.
    destructive: list[str] = setting(factory=list)
    # Commands the user marks safe; never lowers a built-in destructive verdict.
    allow: list[str] = setting(factory=list)
    # The permission policy's other levels: commands that always ask, and commands never run
    # for the model. `rule`: the same with a scope, a reason and examples (`[[safety.rule]]`).
    ask: list[str] = setting(factory=list)
    deny: list[str] = setting(factory=list)
    rule: list[PolicyRuleConfig] = setting(factory=list)
    confirm_cmd: bool = True
    # `CMD:` lines taken from one reply, in chat and in a Norris step; the rest are dropped
    # (and the model is told): one reply must not become hundreds of unattended commands.
    max_commands_per_reply: int = setting(10, ge=1)


@dataclass
class NorrisConfig:
    """Bounds and models of autonomous mode (§6). None means "no such limit"."""

    __pydantic_config__ = FORBID_UNKNOWN

    max_norris_steps: int = setting(16, ge=1)
    wall_clock_s: float | None = setting(900.0, gt=0)
    cost_cap_dollars: float | None = setting(None, ge=0)
    token_cap: int | None = setting(None, gt=0)
    command_timeout_s: float = setting(300.0, gt=0)
    skip_budget: int = setting(3, ge=0)
    preplanner: str | None = None
    executor: str | None = None
    tasks_max: int = setting(16, ge=1)
    preplan_system: str | None = None
    # The copy-on-write sandbox for interactive runs (`aish goal` uses it with --sandbox):
    # "auto" where the kernel allows it, "overlay" always (a run says when it cannot), "off".
    sandbox: Literal["auto", "overlay", "off"] = "auto"
    sandbox_network: bool = False
    sandbox_destructive: Literal["halt", "run"] = "halt"
    # Host Unix sockets the sandbox may still reach (all others are hidden).
    sandbox_sockets: list[str] = setting(factory=list)
    # `DELEGATE: <preset>: <sub-goal>`: a Norris step's delegation runs without asking (chat
    # always asks); the sub-run's own bounds, within what its parent has left.
    delegate: bool = False
    delegate_max_steps: int = setting(8, ge=1)
    delegate_wall_clock_s: float | None = setting(300.0, gt=0)
    delegate_cost_cap_dollars: float | None = setting(None, ge=0)


@dataclass
class MemoryConfig:
    """Cross-session memory (§7)."""

    __pydantic_config__ = FORBID_UNKNOWN

    inject_max_chars: int = setting(2000, ge=0)
    prune_older_than_days: int | None = setting(None, gt=0)
    # None: the `fast` preset when there is one, else the active model.
    summarizer_model: str | None = None


# `fix` is the class of `??` (a fix for the command that just failed), never a question's.
RouteClass = Literal["code", "reasoning", "default", "fix"]


@dataclass
class RoutingConfig:
    """Automatic model choice per request and cloud fallback (§8)."""

    __pydantic_config__ = FORBID_UNKNOWN

    auto: bool = False
    # Class → preset name; a class with no entry stays on the user's model.
    classes: dict[RouteClass, str] = setting(factory=dict)
    cloud_fallback: bool = False
    fallback_model: str | None = None


@dataclass
class ContextConfig:
    """Conversation budgets and summarisation on eviction (§3)."""

    __pydantic_config__ = FORBID_UNKNOWN

    max_turns: int = setting(40, ge=1)
    token_budget: int = setting(8192, gt=0)
    summarize_on_evict: bool = False
    # None: the `fast` preset when there is one, else the active model.
    summarizer_model: str | None = None
    max_summary_chars: int = setting(2000, gt=0)
    # How much of one command's output the model gets (head + tail, with an omission marker).
    output_max_lines: int = setting(200, gt=0)
    output_max_bytes: int = setting(16384, gt=0)
    # `:context`: how much of the project's file tree the summary shows.
    project_max_files: int = setting(200, gt=0)
    project_max_depth: int = setting(4, gt=0)


def _one_number_is_a_list(value: object) -> object:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return [value]
    return value


@dataclass
class CostConfig:
    """Spending thresholds for one session (§11)."""

    __pydantic_config__ = FORBID_UNKNOWN

    # Written as one number or a list; always held as a list.
    warn_at_dollars: Annotated[
        list[Annotated[float, Bounds(ge=0)]], Before(_one_number_is_a_list)
    ] = setting(factory=list)
    stop_at_dollars: float | None = setting(None, ge=0)


def _url_is_http(value: str | None) -> str | None:
    if value is None or "${" in value:  # checked again once the variable is expanded
        return value
    return check_url_with_host(value)


@dataclass
class McpServer:
    """One MCP server: a stdio command or a Streamable HTTP URL (§4).

    `${VAR}` and `${VAR:-default}` in command, args, env, cwd, url and headers are expanded from
    the environment when the servers start (`aish.config.mcp_import`), so a key can stay out of
    the file: `headers = { Authorization = "Bearer ${GITHUB_TOKEN}" }`.
    """

    __pydantic_config__ = FORBID_UNKNOWN

    command: str | None = setting(None, min_length=1)
    args: list[str] = setting(factory=list)
    # Added to the user's environment, which a stdio server inherits whole.
    env: dict[str, str] = setting(factory=dict)
    cwd: str | None = None
    url: Annotated[str | None, After(_url_is_http)] = None
    headers: dict[str, str] = setting(factory=dict)
    # Bounds each call, and each step of starting (spawn, handshake, listing the tools).
    timeout_s: float = setting(30.0, gt=0)
    # A trusted server's read-only annotations may count as safe; others are hints only.
    trusted: bool = False
    # Glob patterns of tool names that skip the confirm prompt when the gate raises no flag.
    auto_approve: list[str] = setting(factory=list)
    # What the model is given of one tool result: larger ones keep head and tail, with a
    # line saying they were cut (`aish.mcp.results`).
    max_result_bytes: int = setting(16 * 1024, gt=0)


# `import_` may also be written under its Python name, as before.
_FORBID_UNKNOWN_TAKE_ALIASED: Final = {**FORBID_UNKNOWN, "populate_by_name": True}


def command_or_url(server: McpServer) -> McpServer:
    """A server is a stdio command or an HTTP URL, never both or neither."""
    if (server.command is None) == (server.url is None):
        raise ValueError("set exactly one of `command` (stdio) or `url` (HTTP)")
    return server


def _names_are_words(value: dict[str, McpServer]) -> dict[str, McpServer]:
    for name in value:
        if not name.strip() or any(not char.isprintable() for char in name):
            raise ValueError(f"server name {name!r} must be printable and not blank")
    return value


@dataclass
class McpConfig:
    """MCP servers declared here, plus `mcpServers` JSON files to import (§4)."""

    __pydantic_config__ = _FORBID_UNKNOWN_TAKE_ALIASED

    servers: Annotated[
        dict[str, Annotated[McpServer, After(command_or_url)]], After(_names_are_words)
    ] = setting(factory=dict)
    # `import` is a Python keyword, hence the alias. Files in the `mcpServers` JSON shape of
    # other MCP hosts (Claude, Cursor, Gemini CLI, VS Code's `servers`); a server declared
    # above wins over an imported one of the same name.
    import_: list[str] = setting(factory=list, alias="import")
    # Tool calls the model may make while answering one request; then it must answer in text.
    max_tool_calls: int = setting(8, ge=1)


@dataclass
class UndoConfig:
    """Snapshots before approved commands, for `:undo`."""

    __pydantic_config__ = FORBID_UNKNOWN

    enabled: bool = True
    max_snapshot_bytes: int = setting(256 * 1024 * 1024, ge=0)
    max_total_bytes: int = setting(1024 * 1024 * 1024, ge=0)
    max_age_days: float = setting(7.0, gt=0)


@dataclass
class UiConfig:
    """The terminal frontend."""

    __pydantic_config__ = FORBID_UNKNOWN

    show_reasoning: Literal["dim", "hide"] = "dim"
    # None: $SHELL when it is bash or zsh, else bash.
    shell: str | None = None
    # "shell": the keys the shell itself would use (`set -o vi`, inputrc's editing-mode).
    edit_mode: Literal["shell", "emacs", "vi"] = "shell"
    # How long Tab waits for the shell's answer (a programmable completion runs shell code).
    completion_timeout_s: float = setting(2.0, gt=0, le=60)
    # The key that asks for a fix of the last failed command on an empty line, as `??` does:
    # prompt_toolkit key names, space-separated ("escape f", "c-x f"); "" for none.
    fix_key: str = "escape f"
    # Ghost text as you type: from your history (this directory's lines first), also from a
    # local model, or none.
    suggest: Literal["history", "model", "off"] = "history"
    # The preset `suggest = "model"` asks. None: `fast` when there is one, else your model.
    suggest_model: str | None = None
    # Let that preset be a cloud one (every pause in typing is a paid request).
    suggest_cloud: bool = False


@dataclass
class AishConfig:
    """The whole configuration after layering."""

    __pydantic_config__ = FORBID_UNKNOWN

    default_model: str | None = None
    models: dict[str, ModelPreset] = setting(factory=dict)
    safety: SafetyConfig = setting(factory=SafetyConfig)
    norris: NorrisConfig = setting(factory=NorrisConfig)
    memory: MemoryConfig = setting(factory=MemoryConfig)
    routing: RoutingConfig = setting(factory=RoutingConfig)
    context: ContextConfig = setting(factory=ContextConfig)
    cost: CostConfig = setting(factory=CostConfig)
    mcp: McpConfig = setting(factory=McpConfig)
    undo: UndoConfig = setting(factory=UndoConfig)
    ui: UiConfig = setting(factory=UiConfig)
