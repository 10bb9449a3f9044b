"""`:memory summarize`: one call that proposes memory candidates from the session's log.

The transcript is read from the session log, never from the conversation: the log is what
happened, and the summarizer's own earlier replies — logged as kind `memory_summary` — are
left out, so it never feeds on what it proposed before. The reply is parsed leniently into at
most ten `fact:` / `pref:` / `context:` lines; the user decides which are kept.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from aish.agent.events import AgentEvent, Status, UsageRecorded
from aish.llm.types import Message, ModelTarget

if TYPE_CHECKING:
    from aish.agent.outbound import Outbound

# The session-log kind of a summarize reply; `transcript` skips it.
SUMMARY_KIND = "memory_summary"
MAX_CANDIDATES = 10
# A long session's command output is cut: the summarizer needs the gist, not the bytes.
_OUTPUT_CHARS = 400

INSTRUCTION = (
    "Read the following conversation transcript. Extract facts, preferences, or context worth "
    "remembering across future sessions. Output ONE candidate per line, prefixed with the "
    "kind: `fact: …`, `pref: …`, or `context: …`. Maximum 10 candidates. Output nothing else."
)

_CANDIDATE = re.compile(
    r"^\s*(?:[-*+•]\s*|\d+[.)]\s*)*[*_`]*\s*(fact|pref|context)\s*[*_`]*\s*:\s*[*_`]*\s*(.+?)\s*$",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Candidate:
    kind: str
    content: str


def parse_candidates(text: str) -> list[Candidate]:
    """The `kind: content` lines of a reply, bullets, numbering and bold tolerated; at most
    ten, repeats dropped."""
    found: list[Candidate] = []
    for line in text.splitlines():
        match = _CANDIDATE.match(line)
        if match is None:
            continue
        content = match.group(2).strip().strip("*_`").strip()
        candidate = Candidate(match.group(1).lower(), content)
        if content and candidate not in found:
            found.append(candidate)
        if len(found) == MAX_CANDIDATES:
            break
    return found


def transcript(turns: Iterable[tuple[str, Mapping[str, Any]]]) -> str:
    """The session as the summarizer reads it: questions, replies and commands run."""
    lines: list[str] = []
    for kind, payload in turns:
        if kind == "user":
            lines.append(f"user: {payload.get('text', '')}")
        elif kind == "assistant":
            lines.append(f"assistant: {payload.get('text', '')}")
        elif kind == "command":
            output = str(payload.get("output", ""))[:_OUTPUT_CHARS].rstrip("\n")
            lines.append(f"$ {payload.get('command', '')}" + (f"\n{output}" if output else ""))
    return "\n".join(lines)


def summary_request(text: str) -> list[Message]:
    return [Message("user", f"{INSTRUCTION}\n\n<transcript>\n{text}\n</transcript>")]


async def summarize(
    target: ModelTarget,
    turns: Iterable[tuple[str, Mapping[str, Any]]],
    on_event: Callable[[AgentEvent], None],
    outbound: Outbound | None = None,
) -> tuple[str, list[Candidate]]:
    """Ask `target` once; the reply's text and its candidates. LLM errors propagate. A
    session with nothing said or run yet asks nothing."""
    text = transcript((kind, payload) for kind, payload in turns if kind != SUMMARY_KIND)
    if not text:
        return "", []
    on_event(Status(f"memory: asking {target.name} for candidates"))
    from aish.agent.outbound import door

    outbound = door(outbound)
    reply = await outbound.chat(target, summary_request(text))
    if reply.usage is not None:
        on_event(UsageRecorded.of(target, reply.usage, "memory-summarize"))
    # Whatever model answered, what is shown, logged and stored has its secrets replaced:
    # remembered items go into later conversations, cloud ones included.
    text = outbound.scrub(reply.text)
    return text, parse_candidates(text)
