"""Where explanations come from: a program's man page, its `--help` (only for programs the
system installed), or bash's `help` for a builtin — each run bounded, each read as untrusted
text (`bounded_run`). Entered through this face; modules load on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from aish._lazy_face import lazy_names

if TYPE_CHECKING:
    from aish.explain.docs.finder import Documentation, find_documentation, find_subcommand_page
    from aish.explain.docs.help_text import SYSTEM_DIRS

__all__ = ["SYSTEM_DIRS", "Documentation", "find_documentation", "find_subcommand_page"]

_HOMES = {
    "SYSTEM_DIRS": "aish.explain.docs.help_text",
    "Documentation": "aish.explain.docs.finder",
    "find_documentation": "aish.explain.docs.finder",
    "find_subcommand_page": "aish.explain.docs.finder",
}

__getattr__ = lazy_names(__name__, _HOMES)
