"""Explaining a command offline (`aish explain`, `:explain`, `[d]escribe` without a model):
its programs and options read against the local man pages and `--help` text, and the gate's
verdict. The line is parsed by the safety room; only documentation programs run (`docs`).

Rooms: imports the safety room and the shared leaves, nothing above. Entered through this
face; modules load on first use, so `aish explain` starts without the rest of aish.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from aish._lazy_face import lazy_names

if TYPE_CHECKING:
    from aish.explain.explanation import (
        Explanation,
        documentation_lines,
        explain_line,
        explanation_lines,
    )

__all__ = ["Explanation", "documentation_lines", "explain_line", "explanation_lines"]

_HOMES = {
    "Explanation": "aish.explain.explanation",
    "documentation_lines": "aish.explain.explanation",
    "explain_line": "aish.explain.explanation",
    "explanation_lines": "aish.explain.explanation",
}

__getattr__ = lazy_names(__name__, _HOMES)
