"""The application layer: one `Session` built from the loaded config (and rebuilt by
`reload()`), used by the REPL, `aish ask` and `aish goal` alike.

It owns the conversation, the gate's policies, the second opinion, the outbound door (the
vault of secret placeholders and the spending stop: no process-wide one), the usage ledger
(`spending`), the session log (`log`), memory (`memory`), project trust (`trust`) and the
model choice (`models`; `resolve_target` and `preset_resolver` in `model_targets`). The ui
talks to it, never to the store or the broker; `records` names what its services hand back.

Below ui, above agent and run: `ui → session → {agent, run} → leaf rooms`; nothing under it
imports it (the agent is handed what it needs, such as a `PresetResolver`). The face is lazy:
`import aish.session` imports nothing else.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from aish._lazy_face import lazy_names

if TYPE_CHECKING:
    from aish.session.model_targets import preset_resolver, resolve_target
    from aish.session.session import Session, SessionFrontend

__all__ = ["Session", "SessionFrontend", "preset_resolver", "resolve_target"]

# Public name → module that defines it, imported on first use. A public name never equals a
# module's name: importing the module would set that attribute to the module itself.
_HOMES = {
    "Session": "aish.session.session",
    "SessionFrontend": "aish.session.session",
    "preset_resolver": "aish.session.model_targets",
    "resolve_target": "aish.session.model_targets",
}

__getattr__ = lazy_names(__name__, _HOMES)
