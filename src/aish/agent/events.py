"""What the agent tells a frontend, as plain data.

The agent never prints. Every flow emits these events to a `Frontend` — the terminal UI, the
headless runners, a scripted frontend in tests — so each flow can be tested without a terminal
and each frontend decides how things look.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class AssistantDelta:
    """A piece of the answer's text, as it streams."""

    text: str


@dataclass(frozen=True)
class AssistantReasoning:
    """A piece of the model's reasoning ("thinking"), shown dimmed or hidden."""

    text: str


@dataclass(frozen=True)
class ToolCallProposed:
    name: str
    arguments: str
    call_id: str


@dataclass(frozen=True)
class CommandProposed:
    """A `CMD:` line of a finished reply."""

    command: str


@dataclass(frozen=True)
class Retrying:
    """A request failed before any output and is about to be retried."""

    reason: str
    wait_s: float
    attempt: int


@dataclass(frozen=True)
class UsageRecorded:
    """Tokens (and cost, when known) of one model call. `category` says what the call was for
    (`chat`, `safety` for the second opinion, …) so the usage ledger can total each."""

    preset: str
    prompt_tokens: int
    completion_tokens: int
    cached_tokens: int
    cost_usd: float | None
    estimated: bool
    category: str = "chat"


@dataclass(frozen=True)
class ReplyFinished:
    """The reply ended: `reason` is the model's finish reason, or `cut` when it broke off."""

    reason: str
    cut: bool


@dataclass(frozen=True)
class RequestFailed:
    """The request failed; `message` is one line naming what and where."""

    kind: str
    message: str


@dataclass(frozen=True)
class Status:
    """A one-line notice from aish itself."""

    text: str


AgentEvent = (
    AssistantDelta
    | AssistantReasoning
    | ToolCallProposed
    | CommandProposed
    | Retrying
    | UsageRecorded
    | ReplyFinished
    | RequestFailed
    | Status
)


class Frontend(Protocol):
    """Where the agent's events go. Later flows add questions (confirm, HALT, ask a line)."""

    def render(self, event: AgentEvent) -> None: ...
