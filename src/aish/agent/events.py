"""What the agent tells a frontend, as plain data.

The agent never prints. Every flow emits these events to a `Frontend` — the terminal UI, the
headless runners, a scripted frontend in tests — so each flow can be tested without a terminal
and each frontend decides how things look.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Protocol

if TYPE_CHECKING:
    from aish.llm.types import ModelTarget, Usage


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
    """A tool call of the reply, as the model streamed it (before the gate saw it)."""

    name: str
    arguments: str
    call_id: str


@dataclass(frozen=True)
class ToolCallStarted:
    """The gate let a tool call run: `name` is `server__tool` as the model called it,
    `arguments` its arguments as canonical JSON, `level` the gate's verdict."""

    name: str
    arguments: str
    level: str


@dataclass(frozen=True)
class ToolCallFinished:
    """A tool call's result: `text` is a short preview (the model gets the whole result),
    `is_error` when the tool or its server failed (timeouts and dead servers too)."""

    name: str
    text: str
    is_error: bool
    duration_s: float


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
    # The served model, and where the cost came from (`provider`, `config`, `table`, `local`,
    # `estimated`; `unknown` when nothing could price the call).
    model: str = ""
    cost_source: str = "unknown"

    @classmethod
    def of(cls, target: ModelTarget, usage: Usage, category: str = "chat") -> UsageRecorded:
        """The event for a call's `Usage` as the broker reported it, priced: the provider's
        own figure, else the preset's prices, else the bundled table (see `pricing`)."""
        from aish.store.pricing import price_call

        priced = price_call(target.endpoint, target.model, target.price, usage)
        return cls(
            target.name,
            usage.prompt_tokens,
            usage.completion_tokens,
            usage.cached_tokens,
            priced.cost_usd,
            usage.estimated,
            category,
            target.model,
            priced.source,
        )


@dataclass(frozen=True)
class ReplyFinished:
    """The reply ended: `reason` is the model's finish reason, `cut` when it broke off, or
    `reply_cap` when aish stopped reading it at its size limit (a `Status` said so)."""

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


# ---- Norris (autonomous mode) ----------------------------------------------------------------

NorrisStatus = Literal[
    "done",
    "blocked",
    "stalled",
    "aborted",
    "budget_exhausted",
    "tasks_complete",
    "stuck",
    "halted",  # headless only: an action needed a human, and there is none
    "failed",  # the model could not be reached
]


@dataclass(frozen=True)
class NorrisStarted:
    """A run begins: the goal, its bounds as the user should read them (`16 steps`, …), the
    model that executes the steps, the preplanned tasks (empty: no plan), and the line saying
    who gives the second opinion on `unknown` steps (empty: not said)."""

    goal: str
    bounds: tuple[str, ...]
    executor: str
    tasks: tuple[str, ...] = ()
    preplanner: str | None = None
    judge: str = ""


@dataclass(frozen=True)
class NorrisStep:
    """Step `step` of at most `max_steps` begins; `task` is the current task `task_index` of
    `task_count` when there is a plan."""

    step: int
    max_steps: int
    task: str | None = None
    task_index: int = 0
    task_count: int = 0


@dataclass(frozen=True)
class CommandStarted:
    """The gate let an action run; `level` is its verdict."""

    command: str
    level: str


@dataclass(frozen=True)
class CommandFinished:
    """An action's result, as the model will be told: captured output (bounded), where."""

    command: str
    exit_status: int
    output: str
    duration_s: float
    cwd: str
    notice: str | None = None


@dataclass(frozen=True)
class Halt:
    """An action stopped at the gate: what it is and why (step k/N of the run)."""

    step: int
    max_steps: int
    action: str
    level: str
    reasons: tuple[str, ...]
    # What the action will touch (the gate's blast radius), one line each.
    touches: tuple[str, ...] = ()


@dataclass(frozen=True)
class NorrisEnded:
    """The one-line summary: status (with a reason), steps used, time, tokens and cost (None:
    not known), and where the agent's shell was left."""

    status: NorrisStatus
    reason: str
    steps: int
    max_steps: int
    elapsed_s: float
    tokens: int
    cost_usd: float | None
    cwd: str
    pending_action: str | None = None


AgentEvent = (
    AssistantDelta
    | AssistantReasoning
    | ToolCallProposed
    | ToolCallStarted
    | ToolCallFinished
    | CommandProposed
    | Retrying
    | UsageRecorded
    | ReplyFinished
    | RequestFailed
    | Status
    | NorrisStarted
    | NorrisStep
    | CommandStarted
    | CommandFinished
    | Halt
    | NorrisEnded
)


class Frontend(Protocol):
    """Where the agent's events go. Later flows add questions (confirm, HALT, ask a line)."""

    def render(self, event: AgentEvent) -> None: ...
