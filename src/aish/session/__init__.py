"""The application layer: one `Session` built from the loaded config (and rebuilt by
`reload()`), used by the REPL, `aish ask` and `aish goal` alike.

It owns the conversation, the gate's policies, the second opinion, the outbound door (the
vault of secret placeholders and the spending stop: no process-wide one), the usage ledger
(`spending`), the session log (`log`), memory (`memory`), project trust (`trust`) and the
model choice (`models`). The ui talks to it, never to the store or the broker; `records` names
what its services hand back.

Below ui, above agent and run: `ui → session → {agent, run} → leaf rooms`. The face is lazy:
`import aish.session` imports nothing else.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from aish.session.session import Session, SessionFrontend

__all__ = ["Session", "SessionFrontend"]


def __getattr__(name: str) -> object:
    if name not in __all__:
        raise AttributeError(f"module 'aish.session' has no attribute {name!r}")
    from aish.session import session

    value = getattr(session, name)
    globals()[name] = value  # later lookups skip this function
    return value
