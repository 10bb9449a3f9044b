"""What a finished command becomes: a `CommandRun` for the model, recorded once.

`record_run` is the one step that records a run into the conversation (the model is told it
with the next message) and the session log (`command` turns, which `replay` reads back). The
executors take it on their path: the user's shell records every command it ran (the user's line
or what the gate authorized) as it finishes, the agent's shell records what Norris ran with the
run's own fields (`norris_step`, `shell: agent`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Literal

from aish.conversation.context import CommandRun, run_payload

if TYPE_CHECKING:
    from aish.conversation.context import Conversation
    from aish.shell.results import CommandResult

__all__ = ["Log", "Record", "as_command_run", "record_run"]

Log = Callable[[str, Mapping[str, Any]], None]
"""The session log: a turn's kind and its payload."""

Record = Callable[[CommandRun], None]
"""Records a finished run (`record_run` with its conversation, log and fields bound)."""


def record_run(run: CommandRun, conversation: Conversation, log: Log, **logged: Any) -> None:
    """Note `run` for the model and write it to the session log (with `logged` added)."""
    conversation.note_command(run)
    log("command", {**run_payload(run), **logged})


def as_command_run(
    result: CommandResult,
    source: Literal["user", "model"],
    *,
    asked: bool = True,
    shown: str | None = None,
) -> CommandRun:
    """A shell result as the model is told about it: the command as `shown` (with secret
    placeholders, not the values that ran) when given."""
    return CommandRun(
        command=result.command if shown is None else shown,
        exit_status=result.exit_status,
        cwd_before=result.cwd_before,
        cwd_after=result.cwd_after,
        duration_s=result.duration_s,
        output=result.output.text,
        source=source,
        notice=result.notice,
        asked=asked,
    )
