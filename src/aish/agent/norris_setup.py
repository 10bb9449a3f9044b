"""Before a Norris run: which model executes the steps, and the preplanned tasks if any.

`norris.executor` names the preset that runs the steps (with or without a preplanner); when it
is unset, missing or unusable the active model does, and a missing or unusable one is said.
`norris.preplanner` names the preset asked once for a plan; whatever goes wrong there, the
run goes on single-model and the user is told why.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from aish.agent.events import AgentEvent, Status
from aish.llm.errors import ConfigError
from aish.llm.types import ModelTarget

if TYPE_CHECKING:
    from aish.config.schema import AishConfig


@dataclass(frozen=True)
class NorrisSetup:
    executor: ModelTarget
    tasks: tuple[str, ...] = ()
    planner: str | None = None  # the preset that made the plan (None: no plan)


async def prepare(
    goal: str,
    config: AishConfig,
    active: ModelTarget,
    env: Mapping[str, str],
    on_event: Callable[[AgentEvent], None],
) -> NorrisSetup:
    """The executor target and the plan; every problem is a `Status`, never an error."""
    executor = _executor(config, active, env, on_event)
    norris = config.norris
    if norris.preplanner is None:
        return NorrisSetup(executor)
    if norris.preplanner not in config.models:
        on_event(
            Status(
                f"no model preset '{norris.preplanner}' (norris.preplanner); running single-model"
            )
        )
        return NorrisSetup(executor)
    from aish.agent.preplan import preplan
    from aish.config.targets import resolve_target

    try:
        planner = resolve_target(config, norris.preplanner, env)
    except ConfigError as error:
        on_event(Status(f"preplan failed: {error}; running single-model"))
        return NorrisSetup(executor)
    plan = await preplan(
        goal,
        planner,
        tasks_max=norris.tasks_max,
        system=norris.preplan_system,
        on_event=on_event,
    )
    on_event(Status(plan.status))
    return NorrisSetup(executor, plan.tasks, plan.preset if plan.tasks else None)


def _executor(
    config: AishConfig,
    active: ModelTarget,
    env: Mapping[str, str],
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
    from aish.config.targets import resolve_target

    try:
        return resolve_target(config, name, env)
    except ConfigError as error:
        on_event(Status(f"norris.executor: {error}; the steps run on {active.name}"))
        return active
