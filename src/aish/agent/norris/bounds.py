"""The bounds of a Norris run, as configured (`[norris]`) and as the start banner shows them.

A step is one model round trip and the actions its reply proposed (SPEC §6), so the step bound
alone does not bound the commands: one reply can propose hundreds. `commands_per_step`
(`safety.max_commands_per_reply`) does: a run of N steps runs at most N × that many commands
(plus at most `mcp.max_tool_calls` tool calls a step).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from aish.config.schema import NorrisConfig


@dataclass(frozen=True)
class NorrisBounds:
    """Every limit of one run; None means "no such limit"."""

    max_steps: int = 16
    wall_clock_s: float | None = 900.0
    token_cap: int | None = None
    # Counted from the costs the servers report until the usage ledger prices every call.
    cost_cap_usd: float | None = None
    command_timeout_s: float = 300.0
    # Consecutive skipped actions that end the run.
    skip_budget: int = 3
    # `CMD:` lines taken from one step's reply; the rest are not run (the model is told).
    commands_per_step: int = 10

    @classmethod
    def from_config(
        cls,
        config: NorrisConfig,
        *,
        max_steps: int | None = None,
        commands_per_step: int = 10,
    ) -> NorrisBounds:
        return cls(
            commands_per_step=commands_per_step,
            max_steps=max_steps or config.max_norris_steps,
            wall_clock_s=config.wall_clock_s,
            token_cap=config.token_cap,
            cost_cap_usd=config.cost_cap_dollars,
            command_timeout_s=config.command_timeout_s,
            skip_budget=config.skip_budget,
        )

    @property
    def skips_allowed(self) -> int:
        """Consecutive skips that end the run (0 configured: the first skip already does)."""
        return max(self.skip_budget, 1)

    @property
    def wall_clock(self) -> str:
        return "no wall-clock limit" if self.wall_clock_s is None else _limit(self.wall_clock_s)

    def describe(self) -> tuple[str, ...]:
        """Each bound as the user reads it in the start banner."""
        return (
            f"{self.max_steps} steps",
            f"{self.wall_clock} wall clock" if self.wall_clock_s is not None else self.wall_clock,
            f"{_limit(self.command_timeout_s)} per command",
            f"{self.commands_per_step} command{'s' if self.commands_per_step != 1 else ''} "
            "per step",
            f"{self.skips_allowed} skip{'s' if self.skips_allowed != 1 else ''} in a row",
            "no token cap" if self.token_cap is None else f"{self.token_cap:,} tokens",
            "no cost cap" if self.cost_cap_usd is None else f"${self.cost_cap_usd:g} cost cap",
        )


def _limit(seconds: float) -> str:
    """A configured limit, as round as it was written: `45s`, `15m`, `1h30m`, `2.5s` (the
    renderer formats measured times its own, more precise way)."""
    if seconds < 60:
        return f"{seconds:g}s"
    minutes, rest = divmod(round(seconds), 60)
    if minutes < 60:
        return f"{minutes}m" + (f"{rest:02d}s" if rest else "")
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h" + (f"{minutes:02d}m" if minutes else "")
