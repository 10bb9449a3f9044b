"""The application layer: what one aish session is made of, built from the loaded config —
model choice now (`resolve_target`, `preset_resolver`); the `Session` the REPL, `aish ask`
and `aish goal` share comes here too (DESIGN, "Rooms").

Below `ui` and `cli`, above `agent` and `run`: it may import any room under it, and nothing
under it imports it (the agent is handed what it needs, such as a `PresetResolver`).
Names resolve on first use, so importing the face costs nothing at start-up.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from aish._lazy_face import lazy_names

if TYPE_CHECKING:
    from aish.session.model_targets import preset_resolver, resolve_target

__all__ = ["preset_resolver", "resolve_target"]

# Public name → module that defines it, imported on first use. A public name never equals a
# module's name: importing the module would set that attribute to the module itself.
_HOMES = {
    "preset_resolver": "aish.session.model_targets",
    "resolve_target": "aish.session.model_targets",
}

__getattr__ = lazy_names(__name__, _HOMES)
