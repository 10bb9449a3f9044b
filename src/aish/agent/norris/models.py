"""Before a Norris run: which model executes the steps, and which one plans them.

`norris.executor` names the preset that runs the steps (with or without a preplanner); when it
is unset, missing or unusable the active model does, and a missing or unusable one is said.
`norris.preplanner` names the preset the run asks once for a plan (see `preplanner`); when it is
missing or unusable the run goes on single-model and the user is told why.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from aish.agent.events import AgentEvent, Status
from aish.errors import ConfigError
from aish.llm.types import ModelTarget, PresetResolver

if TYPE_CHECKING:
    from aish.config.schema import AishConfig


@dataclass(frozen=True)
class NorrisModels:
    executor: ModelTarget
    planner: ModelTarget | None = None  # None: a single-model run


def norris_models(
    config: AishConfig,
    active: ModelTarget,
    targets: PresetResolver,
    on_event: Callable[[AgentEvent], None],
    *,
    executor_preset: bool = True,
) -> NorrisModels:
    """The executor and the planner; every problem is a `Status`, never an error. Without
    `executor_preset` (the user named the model for this run) the active model executes.
    `targets` resolves the presets `[norris]` names."""
    executor = _executor(config, active, targets, on_event) if executor_preset else active
    name = config.norris.preplanner
    if name is None:
        return NorrisModels(executor)
    if name not in config.models:
        on_event(Status(f"no model preset '{name}' (norris.preplanner); running single-model"))
        return NorrisModels(executor)
    try:
        return NorrisModels(executor, targets(name))
    except ConfigError as error:
        on_event(Status(f"preplan failed: {error}; running single-model"))
        return NorrisModels(executor)


def _executor(
    config: AishConfig,
    active: ModelTarget,
    targets: PresetResolver,
    on_event: Callable[[AgentEvent], None],
) -> ModelTarget:
    name = config.norris.executor
    if name is None:
        return active
    if name not in config.models:
        on_event(
            Status(f"no model preset '{name}' (norris.executor); the steps run on {active.name}")
        )
        return active
    try:
        return targets(name)
    except ConfigError as error:
        on_event(Status(f"norris.executor: {error}; the steps run on {active.name}"))
        return active
