"""What a meta command may see of the running REPL: `ReplContext`, and the optional
capabilities a REPL may have (safety rules, Norris, a sandbox, MCP, a pager, model choice,
project context), each checked with `isinstance` where a command needs it.

Its own module so that the command table and the commands' modules both import it without
importing each other.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from aish.conversation.context import Conversation
    from aish.mcp import McpTool, ServerStatus
    from aish.safety.rules.user import UserRules
    from aish.session.models import ModelChoice

__all__ = [
    "AttachesContext",
    "ChoosesModels",
    "HasMcp",
    "KnowsSafetyRules",
    "PagesListings",
    "ReplContext",
    "ReviewsSandbox",
    "RunsGoals",
]


class ReplContext(Protocol):
    """What meta commands may see and change in the running REPL."""

    conversation: Conversation

    @property
    def model_name(self) -> str: ...

    def model_names(self) -> list[str]: ...

    def model_line(self, name: str) -> str: ...

    def switch_model(self, name: str) -> str | None: ...

    def reset_conversation(self) -> None: ...

    def save_session(self, name: str) -> str: ...

    def load_session(self, name: str) -> str: ...

    def session_lines(self) -> list[str]: ...

    def explain_route(self, text: str) -> str: ...

    def shell_cwd(self) -> str: ...

    def say(self, text: str) -> None: ...

    def quit(self) -> None: ...


@runtime_checkable
class KnowsSafetyRules(Protocol):
    """A REPL that can give the user's own safety rules (config `safety.destructive`/`allow`).

    Optional: without it `:safety` judges with the built-in rules alone.
    """

    def safety_rules(self) -> UserRules: ...


@runtime_checkable
class RunsGoals(Protocol):
    """A REPL that can run Norris goals (autonomous mode)."""

    @property
    def norris_on(self) -> bool: ...

    def norris_mode(self, on: bool) -> None: ...

    async def run_goal(self, goal: str) -> None: ...


@runtime_checkable
class ReviewsSandbox(Protocol):
    """A REPL whose Norris runs in a sandbox: `:norris review` shows its change set."""

    async def norris_review(self) -> None: ...


@runtime_checkable
class HasMcp(Protocol):
    """A REPL with MCP servers (none configured is fine: the lists are empty)."""

    def mcp_statuses(self) -> list[ServerStatus]: ...

    def mcp_tools(self) -> list[McpTool]: ...

    async def mcp_restart(self, name: str) -> str: ...


@runtime_checkable
class PagesListings(Protocol):
    """A REPL on a terminal: what `say` prints inside `paged()` goes through the pager when it
    is taller than the screen (a command that asks questions must not be paged)."""

    def paged(self) -> AbstractContextManager[None]: ...


@runtime_checkable
class ChoosesModels(Protocol):
    """A REPL with auto-routing, the cloud fallback and a context budget (§3, §8)."""

    @property
    def models(self) -> ModelChoice: ...

    async def tokens_line(self) -> str: ...


@runtime_checkable
class AttachesContext(Protocol):
    """A REPL that can attach the project summary to the next question."""

    async def attach_project_context(self) -> str: ...
