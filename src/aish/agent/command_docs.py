"""What `[d]escribe` tells about a proposed command: the local documentation of its programs
and options (`aish.explain`) goes into the question, so that a small local model explains
from the real man page rather than from memory; with no model to ask, that documentation and
the verdict are the description.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from aish.explain import Explanation
    from aish.safety.rules import UserRules

__all__ = ["describe_question", "explained", "offline_description"]

_QUESTION = (
    "Explain briefly what this command would do, step by step, and whether it changes or "
    "deletes anything. Do not propose other commands.\n\n{command}"
)
_log = logging.getLogger("aish.describe")
_DOCS = "\n\nWhat the local documentation (man pages, --help) says about its options:\n"


async def explained(command: str, rules: UserRules | None) -> Explanation | None:
    """The offline explanation, read off the event loop (`man` takes a moment); None when it
    failed (logged): the model is still asked, without it."""
    # Imported on the first `[d]escribe`: the REPL starts without the explain room.
    from aish.explain import explain_line

    try:
        return await asyncio.to_thread(explain_line, command, rules)
    except Exception:  # a description without documentation beats no description at all
        _log.exception("explaining %r from the local documentation failed", command)
        return None


def describe_question(command: str, explanation: Explanation | None) -> str:
    """The newest user message of the describe request: the question, the command, and the
    documentation lines (never in the system prompt: the request's prefix stays the
    conversation's own)."""
    from aish.explain import documentation_lines

    lines = documentation_lines(explanation) if explanation is not None else []
    docs = _DOCS + "\n".join(lines) if lines else ""
    return _QUESTION.format(command=command) + docs


def offline_description(explanation: Explanation | None, why: str) -> str:
    """The description when no model answered: `why`, then the explanation."""
    from aish.explain import explanation_lines

    if explanation is None:
        return f"(no description: {why})"
    return f"(no model to describe it: {why}; from the local documentation)\n" + "\n".join(
        explanation_lines(explanation)
    )
