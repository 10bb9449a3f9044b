"""A command line completed by a model, for the ghost text (`ui.suggest = "model"`).

A small request of its own — never on the conversation, never logged — through the session's
door (secrets scrubbed for a preset that scrubs, the spending stop), its usage in the ledger.
The model is asked for the whole line; only a line that starts with exactly what was typed
counts, and what it adds is shown as ghost text: it is the user's to take, never run by aish.
The reply is untrusted: one line, printable characters only, bounded.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from aish.llm.types import Message, ModelTarget

if TYPE_CHECKING:
    from aish.agent.events import UsageRecorded
    from aish.agent.outbound import Outbound

__all__ = ["LineCompleter", "completion_messages", "completion_rest"]

COMPLETION_SYSTEM = (
    "You complete the shell command line a user is typing. Reply with the complete line "
    "only — starting with exactly what they typed — and nothing else: no explanation, no "
    "code fence, no prompt sign."
)
# Lines of recent history the model is shown, and the longest completion taken.
RECENT_LINES = 10
MAX_COMPLETION = 200


def completion_messages(typed: str, cwd: str, recent: Sequence[str]) -> list[Message]:
    lines = [f"cwd: {cwd}"]
    if recent:
        lines += ["recent commands, oldest first:", *recent[-RECENT_LINES:]]
    lines += ["complete this line:", typed]
    return [Message("system", COMPLETION_SYSTEM), Message("user", "\n".join(lines))]


def completion_rest(reply: str, typed: str) -> str | None:
    """What the reply's line adds to `typed`; None when it does not start with it, adds
    nothing, or is not one printable line."""
    line = next((text.strip() for text in reply.splitlines() if text.strip()), "")
    line = line.strip("`").removeprefix("$ ")
    if not line.startswith(typed.lstrip()) or len(line) > len(typed) + MAX_COMPLETION:
        return None
    rest = line[len(typed.lstrip()) :]
    if not rest or not rest.isprintable():
        return None
    return rest


@dataclass
class LineCompleter:
    target: ModelTarget
    outbound: Outbound
    # The ledger's (every call's usage, as every other call's).
    on_usage: Callable[[UsageRecorded], None] | None = None

    async def warm_up(self) -> None:
        """Import the HTTP client in a thread, ahead of the first request: imported in the
        event loop by that request, it would hold up the keys typed meanwhile."""
        import asyncio
        import importlib

        await asyncio.to_thread(importlib.import_module, "aish.llm.broker")

    async def complete(self, typed: str, cwd: str, recent: Sequence[str]) -> str | None:
        """What the model would add to `typed`; None for nothing (a failed request too: the
        ghost text is a nicety, never an error on the terminal)."""
        from aish.agent.events import UsageRecorded
        from aish.agent.outbound import REQUEST_FAILURES

        try:
            reply = await self.outbound.chat(self.target, completion_messages(typed, cwd, recent))
        except REQUEST_FAILURES:
            import logging

            logging.getLogger("aish.suggest").info("no completion", exc_info=True)
            return None
        if reply.usage is not None and self.on_usage is not None:
            self.on_usage(UsageRecorded.of(self.target, reply.usage, "suggest"))
        return completion_rest(reply.text, typed)
