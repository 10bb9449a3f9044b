"""Commands that can send data off the machine: which programs (`programs`), where they
connect (`targets`), and the verdict when what they carry is not shown on the line (`checks`).
Pure.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from aish._lazy_face import lazy_names

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

__getattr__ = lazy_names(__name__, _HOMES)
