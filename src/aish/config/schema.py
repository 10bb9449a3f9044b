"""The config schema: pydantic models for every section of `config.toml`.

Every model forbids unknown keys so a typo is reported instead of silently ignored. Defaults
here are the built-in layer of the config: a missing file or section means exactly these values.
Cross-references other than `default_model` (safety.llm_model, routing.classes, …) are resolved
by the features that use them, because a zero-config setup legitimately lacks those presets.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_core import InitErrorDetails, PydanticCustomError

from aish.config.presets import ModelPreset, Price, check_url_with_host

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


class PolicyRuleConfig(BaseModel):
    """One `[[safety.rule]]` table of the permission policy. The examples are checked when the
    config loads, by the layer that knows the classifier (config may not import it)."""

    model_config = ConfigDict(defer_build=True, extra="forbid")

    decision: Literal["allow", "ask", "deny"]
    # One pattern or several: a command prefix with `*` globs (`git push`, `npm run test*`).
    command: list[str] | str
    # Globs the command's path words must fall under (`./build/**`).
    paths: list[str] = Field(default_factory=list)
    reason: str = ""
    match: list[str] = Field(default_factory=list)
    not_match: list[str] = Field(default_factory=list)

    @field_validator("command")
    @classmethod
    def _not_blank(cls, value: list[str] | str) -> list[str] | str:
        given = [value] if isinstance(value, str) else value
        if not given or not all(pattern.strip() for pattern in given):
            raise ValueError("must name a command")
        return value

    def patterns(self) -> list[str]:
        return [self.command] if isinstance(self.command, str) else list(self.command)


class SafetyConfig(BaseModel):
    """The gate's user-adjustable parts (§5)."""

    model_config = ConfigDict(defer_build=True, extra="forbid")

    llm_second_opinion: bool = True
    llm_model: str = "fast"
    # Extra patterns the user considers destructive; they add to the built-in rules.
    destructive: list[str] = Field(default_factory=list)
    # Commands the user marks safe; never lowers a built-in destructive verdict.
    allow: list[str] = Field(default_factory=list)
    # The permission policy's other levels: commands that always ask, and commands never run
    # for the model. `rule`: the same with a scope, a reason and examples (`[[safety.rule]]`).
    ask: list[str] = Field(default_factory=list)
    deny: list[str] = Field(default_factory=list)
    rule: list[PolicyRuleConfig] = Field(default_factory=list)
    confirm_cmd: bool = True
    # `CMD:` lines taken from one reply, in chat and in a Norris step; the rest are dropped
    # (and the model is told): one reply must not become hundreds of unattended commands.
    max_commands_per_reply: int = Field(default=10, ge=1)


class NorrisConfig(BaseModel):
    """Bounds and models of autonomous mode (§6). None means "no such limit"."""

    model_config = ConfigDict(defer_build=True, extra="forbid")

    max_norris_steps: int = Field(default=16, ge=1)
    wall_clock_s: float | None = Field(default=900.0, gt=0)
    cost_cap_dollars: float | None = Field(default=None, ge=0)
    token_cap: int | None = Field(default=None, gt=0)
    command_timeout_s: float = Field(default=300.0, gt=0)
    skip_budget: int = Field(default=3, ge=0)
    preplanner: str | None = None
    executor: str | None = None
    tasks_max: int = Field(default=16, ge=1)
    preplan_system: str | None = None
    # The copy-on-write sandbox for interactive runs (`aish goal` uses it with --sandbox):
    # "auto" where the kernel allows it, "overlay" always (a run says when it cannot), "off".
    sandbox: Literal["auto", "overlay", "off"] = "auto"
    sandbox_network: bool = False
    sandbox_destructive: Literal["halt", "run"] = "halt"
    # Host Unix sockets the sandbox may still reach (all others are hidden).
    sandbox_sockets: list[str] = Field(default_factory=list)
    # `DELEGATE: <preset>: <sub-goal>`: a Norris step's delegation runs without asking (chat
    # always asks); the sub-run's own bounds, within what its parent has left.
    delegate: bool = False
    delegate_max_steps: int = Field(default=8, ge=1)
    delegate_wall_clock_s: float | None = Field(default=300.0, gt=0)
    delegate_cost_cap_dollars: float | None = Field(default=None, ge=0)


class MemoryConfig(BaseModel):
    """Cross-session memory (§7)."""

    model_config = ConfigDict(defer_build=True, extra="forbid")

    inject_max_chars: int = Field(default=2000, ge=0)
    prune_older_than_days: int | None = Field(default=None, gt=0)
    # None: the `fast` preset when there is one, else the active model.
    summarizer_model: str | None = None


# `fix` is the class of `??` (a fix for the command that just failed), never a question's.
RouteClass = Literal["code", "reasoning", "default", "fix"]


class RoutingConfig(BaseModel):
    """Automatic model choice per request and cloud fallback (§8)."""

    model_config = ConfigDict(defer_build=True, extra="forbid")

    auto: bool = False
    # Class → preset name; a class with no entry stays on the user's model.
    classes: dict[RouteClass, str] = Field(default_factory=dict)
    cloud_fallback: bool = False
    fallback_model: str | None = None


class ContextConfig(BaseModel):
    """Conversation budgets and summarisation on eviction (§3)."""

    model_config = ConfigDict(defer_build=True, extra="forbid")

    max_turns: int = Field(default=40, ge=1)
    token_budget: int = Field(default=8192, gt=0)
    summarize_on_evict: bool = False
    # None: the `fast` preset when there is one, else the active model.
    summarizer_model: str | None = None
    max_summary_chars: int = Field(default=2000, gt=0)
    # How much of one command's output the model gets (head + tail, with an omission marker).
    output_max_lines: int = Field(default=200, gt=0)
    output_max_bytes: int = Field(default=16384, gt=0)
    # `:context`: how much of the project's file tree the summary shows.
    project_max_files: int = Field(default=200, gt=0)
    project_max_depth: int = Field(default=4, gt=0)


class CostConfig(BaseModel):
    """Spending thresholds for one session (§11)."""

    model_config = ConfigDict(defer_build=True, extra="forbid")

    # Written as one number or a list; always held as a list.
    warn_at_dollars: list[Annotated[float, Field(ge=0)]] = Field(default_factory=list)
    stop_at_dollars: float | None = Field(default=None, ge=0)

    @field_validator("warn_at_dollars", mode="before")
    @classmethod
    def _one_number_is_a_list(cls, value: object) -> object:
        if isinstance(value, int | float) and not isinstance(value, bool):
            return [value]
        return value


class McpServer(BaseModel):
    """One MCP server: a stdio command or a Streamable HTTP URL (§4).

    `${VAR}` and `${VAR:-default}` in command, args, env, cwd, url and headers are expanded from
    the environment when the servers start (`aish.config.mcp_import`), so a key can stay out of
    the file: `headers = { Authorization = "Bearer ${GITHUB_TOKEN}" }`.
    """

    model_config = ConfigDict(defer_build=True, extra="forbid")

    command: str | None = Field(default=None, min_length=1)
    args: list[str] = Field(default_factory=list)
    # Added to the user's environment, which a stdio server inherits whole.
    env: dict[str, str] = Field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = Field(default_factory=dict)
    # Bounds each call, and each step of starting (spawn, handshake, listing the tools).
    timeout_s: float = Field(default=30.0, gt=0)
    # A trusted server's read-only annotations may count as safe; others are hints only.
    trusted: bool = False
    # Glob patterns of tool names that skip the confirm prompt when the gate raises no flag.
    auto_approve: list[str] = Field(default_factory=list)
    # What the model is given of one tool result: larger ones keep head and tail, with a
    # line saying they were cut (`aish.mcp.results`).
    max_result_bytes: int = Field(default=16 * 1024, gt=0)

    @field_validator("url")
    @classmethod
    def _url_is_http(cls, value: str | None) -> str | None:
        if value is None or "${" in value:  # checked again once the variable is expanded
            return value
        return check_url_with_host(value)

    @model_validator(mode="after")
    def _command_or_url(self) -> McpServer:
        if (self.command is None) == (self.url is None):
            raise ValueError("set exactly one of `command` (stdio) or `url` (HTTP)")
        return self


class McpConfig(BaseModel):
    """MCP servers declared here, plus `mcpServers` JSON files to import (§4)."""

    model_config = ConfigDict(defer_build=True, extra="forbid", populate_by_name=True)

    servers: dict[str, McpServer] = Field(default_factory=dict)
    # `import` is a Python keyword, hence the alias. Files in the `mcpServers` JSON shape of
    # other MCP hosts (Claude, Cursor, Gemini CLI, VS Code's `servers`); a server declared
    # above wins over an imported one of the same name.
    import_: list[str] = Field(default_factory=list, alias="import")
    # Tool calls the model may make while answering one request; then it must answer in text.
    max_tool_calls: int = Field(default=8, ge=1)

    @field_validator("servers")
    @classmethod
    def _names_are_words(cls, value: dict[str, McpServer]) -> dict[str, McpServer]:
        for name in value:
            if not name.strip() or any(not char.isprintable() for char in name):
                raise ValueError(f"server name {name!r} must be printable and not blank")
        return value


class UndoConfig(BaseModel):
    """Snapshots before approved commands, for `:undo`."""

    model_config = ConfigDict(defer_build=True, extra="forbid")

    enabled: bool = True
    max_snapshot_bytes: int = Field(default=256 * 1024 * 1024, ge=0)
    max_total_bytes: int = Field(default=1024 * 1024 * 1024, ge=0)
    max_age_days: float = Field(default=7.0, gt=0)


class UiConfig(BaseModel):
    """The terminal frontend."""

    model_config = ConfigDict(defer_build=True, extra="forbid")

    show_reasoning: Literal["dim", "hide"] = "dim"
    # None: $SHELL when it is bash or zsh, else bash.
    shell: str | None = None
    edit_mode: Literal["emacs", "vi"] = "emacs"
    # How long Tab waits for the shell's answer (a programmable completion runs shell code).
    completion_timeout_s: float = Field(default=2.0, gt=0, le=60)
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


class AishConfig(BaseModel):
    """The whole configuration after layering."""

    model_config = ConfigDict(defer_build=True, extra="forbid")

    default_model: str | None = None
    models: dict[str, ModelPreset] = Field(default_factory=dict)
    safety: SafetyConfig = Field(default_factory=SafetyConfig)
    norris: NorrisConfig = Field(default_factory=NorrisConfig)
    memory: MemoryConfig = Field(default_factory=MemoryConfig)
    routing: RoutingConfig = Field(default_factory=RoutingConfig)
    context: ContextConfig = Field(default_factory=ContextConfig)
    cost: CostConfig = Field(default_factory=CostConfig)
    mcp: McpConfig = Field(default_factory=McpConfig)
    undo: UndoConfig = Field(default_factory=UndoConfig)
    ui: UiConfig = Field(default_factory=UiConfig)

    @model_validator(mode="after")
    def _default_model_is_a_preset(self) -> AishConfig:
        name = self.default_model
        if name is None or name in self.models:
            return self
        known = ", ".join(self.models) or "none configured"
        # Raised as a ValidationError so the error sits at `default_model`, not at the root:
        # the loader uses the location to find the line and to drop just this key.
        error = PydanticCustomError(
            "unknown_preset",
            "no model preset named '{name}' (known: {known})",
            {"name": name, "known": known},
        )
        details = InitErrorDetails(type=error, loc=("default_model",), input=name)
        raise ValidationError.from_exception_data(type(self).__name__, [details])
