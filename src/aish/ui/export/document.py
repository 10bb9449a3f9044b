"""A session as a reader meets it: the neutral document both renderers take.

`reading` builds it from the session log and the usage ledger; `scrubbing` replaces the
secrets in every text of it; `markdown` and `html_page` render it. Every text here is already
clean (no control sequences, unseen characters shown, outputs bounded): a renderer only
escapes for its own format.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = [
    "Bounded",
    "Command",
    "CostRow",
    "Decision",
    "Description",
    "Entry",
    "Heading",
    "NorrisEnded",
    "NorrisStarted",
    "NorrisStep",
    "Notice",
    "Question",
    "Reply",
    "SessionDocument",
    "ToolCall",
    "ToolResult",
]


@dataclass(frozen=True)
class Bounded:
    """A text cut to what a reader takes in: `omitted_lines` were left out of its middle."""

    text: str
    omitted_lines: int = 0


@dataclass(frozen=True)
class Heading:
    label: str  # the session's name, or `#<id>`
    started_at: float
    cwd: str
    model: str


@dataclass(frozen=True)
class Question:
    """What the user asked the model."""

    text: str
    at: float


@dataclass(frozen=True)
class ToolCall:
    name: str
    arguments: str


@dataclass(frozen=True)
class Reply:
    """What a model answered (`cut`: it stopped before the end)."""

    text: str
    model: str
    cut: bool = False
    tool_calls: tuple[ToolCall, ...] = ()


@dataclass(frozen=True)
class Command:
    """A command that ran, with its exit status and bounded output. `by`: who proposed it —
    the user typed it, the model proposed it in chat, or a Norris step ran it."""

    command: str
    exit_status: int
    output: Bounded
    cwd: str
    duration_s: float
    by: Literal["you", "model", "norris"]
    asked: bool
    at: float
    norris_step: int | None = None
    notice: str = ""


@dataclass(frozen=True)
class ToolResult:
    name: str
    text: Bounded
    is_error: bool


@dataclass(frozen=True)
class Decision:
    """The gate on a proposed action, when someone was asked or it did not run: `halted` is a
    HALT (Norris, a destructive action); `answer` is what came of it."""

    action: str
    level: str
    reasons: tuple[str, ...]
    halted: bool
    answer: str
    norris_step: int | None = None


@dataclass(frozen=True)
class Description:
    """What the model said a command does (`[d]escribe` at the confirm prompt)."""

    command: str
    text: str


@dataclass(frozen=True)
class NorrisStarted:
    goal: str
    model: str
    tasks: tuple[str, ...]
    at: float


@dataclass(frozen=True)
class NorrisStep:
    number: int


@dataclass(frozen=True)
class NorrisEnded:
    status: str
    reason: str
    steps: int
    elapsed_s: float
    tokens: int
    cost: str  # as dollars are shown ("$0.0123", "unknown")
    pending: str = ""


@dataclass(frozen=True)
class Notice:
    """One of aish's own lines: a status, a note told to the model, a `:meta` command the user
    typed, the conversation reset, older exchanges summarized."""

    kind: Literal["status", "note", "meta", "reset", "summary"]
    text: Bounded


Entry = (
    Question
    | Reply
    | Command
    | ToolResult
    | Decision
    | Description
    | NorrisStarted
    | NorrisStep
    | NorrisEnded
    | Notice
)


@dataclass(frozen=True)
class CostRow:
    """One line of the costs: per (model, category), or the session's total (`category` "")."""

    model: str
    category: str
    calls: int
    tokens_in: int
    tokens_out: int
    dollars: str


@dataclass(frozen=True)
class SessionDocument:
    heading: Heading
    entries: tuple[Entry, ...]
    costs: tuple[CostRow, ...]
    total: CostRow | None
    # Secrets were replaced by `AISH_SECRET_<TYPE>_<n>` placeholders throughout.
    scrubbed: bool = False
