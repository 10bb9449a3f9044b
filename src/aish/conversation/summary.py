"""The rolling summary of evicted exchanges (§3), as the model is told it and as it is made.

When old exchanges leave the context to keep it within budget, they can be summarised into one
rolling summary. Like every dynamic part it is told in the newest user message, in a tagged
block — never the system prompt — and told again after each eviction, because the message that
carried it may be among the evicted ones. The summariser reads the evicted exchanges as a
compact transcript (`transcript_of`), with the previous summary, and writes the new summary.
"""

from __future__ import annotations

from collections.abc import Sequence

from aish.llm.types import Message

SUMMARY_START = "[earlier conversation, summarised]"
SUMMARY_END = "[end of summary]"

# A long command output or reply is cut in the transcript: the summariser needs the gist.
_MESSAGE_CHARS = 1200

SUMMARIZE_INSTRUCTION = (
    "You keep a running summary of a conversation between a user and an AI assistant inside a "
    "shell. Old parts of the conversation are being dropped; merge the summary so far and the "
    "dropped part below into one new summary, at most {max_chars} characters: what the user "
    "wanted, what was run and found, decisions made, facts still useful (paths, names, "
    "versions, errors). Plain prose, no preamble, no commands to run."
)

SHORTEN_INSTRUCTION = (
    "Shorten this summary of a conversation to at most {max_chars} characters, keeping the "
    "facts that are most likely still useful. Plain prose, no preamble."
)


def render_summary_block(summary: str) -> str:
    return f"{SUMMARY_START}\n{summary.strip()}\n{SUMMARY_END}"


def transcript_of(messages: Sequence[Message]) -> str:
    """The evicted exchanges as the summariser reads them: who said what, tool calls and
    their results, each message cut to a bounded length."""
    lines: list[str] = []
    for message in messages:
        text = _cut(message.content)
        if message.role == "assistant":
            calls = "".join(
                f"\n(called {call.name} {call.arguments})" for call in message.tool_calls
            )
            lines.append(f"assistant: {text}{calls}")
        elif message.role == "tool":
            lines.append(f"tool result: {text}")
        else:
            lines.append(f"{message.role}: {text}")
    return "\n\n".join(lines)


def summarize_request(previous: str, evicted: Sequence[Message], max_chars: int) -> list[Message]:
    """The summariser's request: the summary so far and the dropped part."""
    parts = [SUMMARIZE_INSTRUCTION.format(max_chars=max_chars)]
    if previous:
        parts.append(f"<summary_so_far>\n{previous.strip()}\n</summary_so_far>")
    parts.append(f"<dropped_part>\n{transcript_of(evicted)}\n</dropped_part>")
    return [Message("user", "\n\n".join(parts))]


def shorten_request(summary: str, max_chars: int) -> list[Message]:
    text = SHORTEN_INSTRUCTION.format(max_chars=max_chars)
    return [Message("user", f"{text}\n\n<summary>\n{summary.strip()}\n</summary>")]


def clip(summary: str, max_chars: int) -> str:
    """The last resort for a summary still too long after shortening: cut at a word."""
    summary = summary.strip()
    if len(summary) <= max_chars:
        return summary
    cut = summary[: max(max_chars - 1, 0)]
    space = cut.rfind(" ")
    return (cut[:space] if space > max_chars // 2 else cut).rstrip() + "…"


def _cut(text: str) -> str:
    text = text.strip()
    if len(text) <= _MESSAGE_CHARS:
        return text
    half = _MESSAGE_CHARS // 2
    return f"{text[:half]}\n[… {len(text) - 2 * half} characters omitted …]\n{text[-half:]}"
