"""Commands that can send data off the machine: which programs (`programs`), where they
connect (`targets`), and the verdict when what they carry is not shown on the line (`checks`).
Pure.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from aish.safety.egress.checks import Destination, egress_destinations, egress_verdict

__all__ = [
    "Destination",
    "egress_destinations",
    "egress_verdict",
]

# Public name → module that defines it, resolved on first use so that importing one module of
# this room does not load the others.
_HOMES = {
    "Destination": "aish.safety.egress.checks",
    "egress_destinations": "aish.safety.egress.checks",
    "egress_verdict": "aish.safety.egress.checks",
}


def __getattr__(name: str) -> object:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'aish.safety.egress' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(home), name)
    globals()[name] = value  # later lookups skip this function
    return value
