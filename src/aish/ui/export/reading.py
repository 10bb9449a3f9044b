"""The session log read into a `SessionDocument`: what happened, in order, for a reader.

The log is untrusted text: model replies, command output and file contents may hold control
sequences, invisible characters and bytes that were not UTF-8. Every text is cleaned here, once
(control sequences out whole, as in a pipe; every other unseen character shown as what it is:
`<U+202E>`, `\\xff`), so the renderers have nothing left to fear but their own syntax. Outputs
are bounded: a reader gets the head and the tail of a long one. A damaged payload (a value of
the wrong type) reads as empty rather than failing the export.

What is left out: the gate's `auto` decisions (the command itself says it ran unasked), the
Norris prompts aish wrote for the model (a step shows as its number), the context blocks sent
with each question (the commands in them are shown where they ran).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, Protocol

from aish.ui.cost_report import dollars, money
from aish.ui.export.document import (
    Bounded,
    Command,
    CostRow,
    Decision,
    Description,
    Entry,
    Heading,
    NorrisEnded,
    NorrisStarted,
    NorrisStep,
    Notice,
    Question,
    Reply,
    SessionDocument,
    ToolCall,
    ToolResult,
)
from aish.ui.render.control_sequences import strip_controls
from aish.ui.render.visible_text import visible

if TYPE_CHECKING:
    from aish.session.records import UsageTotals

__all__ = ["LoggedTurn", "bounded", "clean", "read_document"]

# A long output keeps its head and its tail: where a command started and how it ended.
HEAD_LINES = 40
TAIL_LINES = 20
# One line longer than this (minified JSON, a binary dump) is cut: the export stays readable.
LINE_CHARS = 2000
# Where a long line may be cut: never inside a word, where the rest of a token would be left
# that no scrubber can recognise any more.
_BETWEEN_WORDS = re.compile(r"""[\s"'`,;(){}\[\]<>|&]""")


class LoggedTurn(Protocol):
    """One turn of the session log, as the store gives it back."""

    @property
    def ts(self) -> float: ...

    @property
    def kind(self) -> str: ...

    @property
    def payload(self) -> Mapping[str, Any]: ...


def clean(text: str) -> str:
    """`text` as a document may show it: line ends as newlines, control sequences taken out,
    every other unseen character (bidi overrides, zero-width, bytes that were not UTF-8)
    shown as what it is."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return visible(strip_controls(text))


def bounded(text: str) -> Bounded:
    """`text` cleaned and cut to its head and tail lines, long lines shortened."""
    lines = clean(text).rstrip("\n").split("\n")
    lines = [line if len(line) <= LINE_CHARS else _shortened(line) for line in lines]
    if len(lines) <= HEAD_LINES + TAIL_LINES:
        return Bounded("\n".join(lines))
    kept = lines[:HEAD_LINES] + lines[-TAIL_LINES:]
    return Bounded("\n".join(kept), omitted_lines=len(lines) - len(kept))


def _shortened(line: str) -> str:
    """A long line up to the last word boundary within `LINE_CHARS`; one word that long is
    not shown at all."""
    head = line[: LINE_CHARS + 1]
    cuts = [m.start() for m in _BETWEEN_WORDS.finditer(head)]
    if not cuts:
        return f"… (a line of {len(line):,} characters without a break)"
    return head[: cuts[-1] + 1].rstrip() + f" … ({len(line) - cuts[-1] - 1:,} characters more)"


def read_document(
    heading: Heading,
    turns: Iterable[LoggedTurn],
    by_model_category: Sequence[UsageTotals],
    total: UsageTotals | None,
) -> SessionDocument:
    """The document of a session: its `heading` (cleaned here), its logged `turns` in order,
    and its costs (the ledger's totals per (model, category) and in all)."""
    heading = Heading(
        clean(heading.label), heading.started_at, clean(heading.cwd), clean(heading.model)
    )
    costs = tuple(_cost_row(row, *(*row.key, "", "")[:2]) for row in by_model_category)
    total_row = _cost_row(total, "total", "") if total is not None and total.calls else None
    return SessionDocument(heading, tuple(_entries(turns)), costs, total_row)


def _cost_row(row: UsageTotals, model: str, category: str) -> CostRow:
    return CostRow(
        clean(model or "-"),
        clean(category),
        row.calls,
        row.prompt_tokens,
        row.completion_tokens,
        dollars(row),
    )


def _entries(turns: Iterable[LoggedTurn]) -> Iterable[Entry]:
    partial = ""  # reply text logged while it streamed, not yet followed by the whole reply
    for turn in turns:
        kind, payload = turn.kind, turn.payload
        if kind == "assistant_delta":
            partial += _text(payload, "text")
            continue
        if kind in ("user", "evict", "reset", "norris_end") and partial:
            yield Reply(clean(partial), "", cut=True)  # aish stopped in the middle of a reply
        if kind in ("assistant", "user", "evict", "reset", "norris_end"):
            partial = ""
        read = _READERS.get(kind, _unknown)
        entry = read(turn.ts, payload)
        if entry is not None:
            yield entry
    if partial:
        yield Reply(clean(partial), "", cut=True)


def _question(at: float, payload: Mapping[str, Any]) -> Entry:
    step = _int_or_none(payload.get("norris_step"))
    if step is not None:
        return NorrisStep(step)  # its text is the prompt aish wrote for the model
    return Question(clean(_text(payload, "text")), at)


def _reply(at: float, payload: Mapping[str, Any]) -> Entry:
    calls = payload.get("tool_calls")
    return Reply(
        clean(_text(payload, "text")),
        clean(_text(payload, "model")),
        cut=bool(payload.get("cut")),
        tool_calls=tuple(
            ToolCall(clean(_text(call, "name")), bounded(_text(call, "arguments")).text)
            for call in (calls if isinstance(calls, list) else [])
            if isinstance(call, Mapping)
        ),
    )


def _command(at: float, payload: Mapping[str, Any]) -> Entry:
    step = _int_or_none(payload.get("norris_step"))
    by: Literal["you", "model", "norris"]
    if step is not None or payload.get("shell") == "agent":
        by = "norris"
    elif payload.get("source") == "model":
        by = "model"
    else:
        by = "you"
    return Command(
        command=clean(_text(payload, "command")),
        exit_status=_int_or_none(payload.get("exit_status")) or 0,
        output=bounded(_text(payload, "output")),
        cwd=clean(_text(payload, "cwd_before")),
        duration_s=_float(payload.get("duration_s")),
        by=by,
        asked=payload.get("asked") is not False,
        at=at,
        norris_step=step,
        notice=clean(_text(payload, "notice")),
    )


def _tool_result(at: float, payload: Mapping[str, Any]) -> Entry:
    name, message = clean(_text(payload, "name")), bounded(_text(payload, "message"))
    return ToolResult(name, message, bool(payload.get("is_error")))


def _decision(at: float, payload: Mapping[str, Any]) -> Entry | None:
    answer = _text(payload, "answer")
    if answer == "auto":
        return None  # it ran without asking: its command block says so
    reasons = payload.get("reasons")
    return Decision(
        action=clean(_text(payload, "command") or _text(payload, "tool_call")),
        level=clean(_text(payload, "level")),
        reasons=tuple(clean(str(r)) for r in (reasons if isinstance(reasons, list) else [])),
        halted=payload.get("decision") == "halt",
        answer=clean(answer),
        norris_step=_int_or_none(payload.get("norris_step")),
    )


def _description(at: float, payload: Mapping[str, Any]) -> Entry:
    return Description(clean(_text(payload, "command")), clean(_text(payload, "text")))


def _norris_start(at: float, payload: Mapping[str, Any]) -> Entry:
    tasks = payload.get("tasks")
    return NorrisStarted(
        clean(_text(payload, "goal")),
        clean(_text(payload, "model")),
        tuple(clean(str(t)) for t in (tasks if isinstance(tasks, list) else [])),
        at,
    )


def _norris_end(at: float, payload: Mapping[str, Any]) -> Entry:
    cost = payload.get("cost_usd")
    return NorrisEnded(
        status=clean(_text(payload, "status")),
        reason=clean(_text(payload, "reason")),
        steps=_int_or_none(payload.get("steps")) or 0,
        elapsed_s=_float(payload.get("elapsed_s")),
        tokens=_int_or_none(payload.get("tokens")) or 0,
        cost=money(float(cost)) if isinstance(cost, int | float) else "unknown",
        pending=clean(_text(payload, "pending_action")),
    )


def _status(at: float, payload: Mapping[str, Any]) -> Entry:
    return Notice("status", bounded(_text(payload, "text")))


def _note(at: float, payload: Mapping[str, Any]) -> Entry:
    return Notice("note", bounded(_text(payload, "text")))


def _meta(at: float, payload: Mapping[str, Any]) -> Entry:
    return Notice("meta", bounded(_text(payload, "text")))


def _reset(at: float, payload: Mapping[str, Any]) -> Entry:
    return Notice("reset", Bounded("conversation cleared"))


def _evict(at: float, payload: Mapping[str, Any]) -> Entry:
    count = _int_or_none(payload.get("exchanges")) or 0
    summary = _text(payload, "summary")
    said = f"{count} earlier exchange{'s' if count != 1 else ''} summarized for the model"
    return Notice("summary", bounded(said + (f": {summary}" if summary else "")))


def _memory_summary(at: float, payload: Mapping[str, Any]) -> Entry:
    return Notice("note", bounded("memory summary: " + _text(payload, "text")))


def _unknown(at: float, payload: Mapping[str, Any]) -> Entry | None:
    """A kind this aish does not know (a newer one's): its text, if it has one."""
    text = _text(payload, "text")
    return Notice("status", bounded(text)) if text else None


_READERS: dict[str, Callable[[float, Mapping[str, Any]], Entry | None]] = {
    "user": _question,
    "assistant": _reply,
    "command": _command,
    "tool_result": _tool_result,
    "decision": _decision,
    "description": _description,
    "norris_start": _norris_start,
    "norris_end": _norris_end,
    "status": _status,
    "note": _note,
    "meta": _meta,
    "reset": _reset,
    "evict": _evict,
    "memory_summary": _memory_summary,
}


def _text(payload: object, key: str) -> str:
    value = payload.get(key) if isinstance(payload, Mapping) else None
    if value is None:
        return ""
    return value if isinstance(value, str) else str(value)


def _int_or_none(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    return value if isinstance(value, int) else None


def _float(value: object) -> float:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0
