"""Norris: the model pursues a goal on its own, one step at a time, inside hard bounds.

`loop` runs it (`NorrisRun`: each step one round trip, then the reply's actions through the
gate); `dispatch` how a step reacts to what the gate and the executor did with its actions
(through the loop chat shares, `aish.agent.action_loop`), `bounds` the
limits of a run (`NorrisBounds`), `delegation` a `DELEGATE:` line's sub-run and its refusals,
`prompt` what a step tells the model, `models` which model
executes the steps and which one plans them, `preplanner` the one call that turns a goal
into tasks, and `input_halt` the HALT for a step that waits for terminal input. Callers
outside this room import this face; it is lazy, so naming a bound or a model does not load
the loop.

Never prints (it talks to a `Frontend`) and never runs a command itself: every action goes
through `aish.agent.gate`. Imports nothing from `ui`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from aish._lazy_face import lazy_names

if TYPE_CHECKING:
    from aish.agent.norris.bounds import NorrisBounds
    from aish.agent.norris.delegation import (
        Delegator,
        SubRun,
        delegation_refused,
        delegation_summary,
    )
    from aish.agent.norris.input_halt import InputPrompt, TakeOverAnswer
    from aish.agent.norris.loop import (
        BackgroundJobs,
        CommandRunner,
        NorrisFrontend,
        NorrisResult,
        NorrisRun,
    )
    from aish.agent.norris.models import NorrisModels, norris_models
    from aish.agent.norris.preplanner import DEFAULT_PREPLAN_SYSTEM, Plan, preplan
    from aish.agent.norris.prompt import INSTRUCTIONS

__all__ = [
    "DEFAULT_PREPLAN_SYSTEM",
    "INSTRUCTIONS",
    "BackgroundJobs",
    "CommandRunner",
    "Delegator",
    "InputPrompt",
    "NorrisBounds",
    "NorrisFrontend",
    "NorrisModels",
    "NorrisResult",
    "NorrisRun",
    "Plan",
    "SubRun",
    "TakeOverAnswer",
    "delegation_refused",
    "delegation_summary",
    "norris_models",
    "preplan",
]

# Public name → module that defines it, resolved on first use.
_HOMES = {
    "DEFAULT_PREPLAN_SYSTEM": "aish.agent.norris.preplanner",
    "INSTRUCTIONS": "aish.agent.norris.prompt",
    "BackgroundJobs": "aish.agent.norris.loop",
    "CommandRunner": "aish.agent.norris.loop",
    "Delegator": "aish.agent.norris.delegation",
    "SubRun": "aish.agent.norris.delegation",
    "InputPrompt": "aish.agent.norris.input_halt",
    "NorrisBounds": "aish.agent.norris.bounds",
    "NorrisFrontend": "aish.agent.norris.loop",
    "NorrisModels": "aish.agent.norris.models",
    "NorrisResult": "aish.agent.norris.loop",
    "NorrisRun": "aish.agent.norris.loop",
    "Plan": "aish.agent.norris.preplanner",
    "TakeOverAnswer": "aish.agent.norris.input_halt",
    "delegation_refused": "aish.agent.norris.delegation",
    "delegation_summary": "aish.agent.norris.delegation",
    "norris_models": "aish.agent.norris.models",
    "preplan": "aish.agent.norris.preplanner",
}

__getattr__ = lazy_names(__name__, _HOMES)
