"""Text handed to the model alongside a question, bounded so a huge input cannot flood it.

Piped input (`journalctl … | aish ask "why?"`) keeps its head and tail: the start usually says
what the text is and the end what went wrong. The middle is replaced by a counted marker.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Bounds:
    max_lines: int = 200
    max_bytes: int = 16 * 1024


def decode_lossless(raw: bytes) -> str:
    """Invalid UTF-8 is shown as replacement characters instead of failing the request."""
    return raw.decode("utf-8", "replace")


def bound_text(text: str, bounds: Bounds = Bounds()) -> str:
    """Head and tail of `text` within `bounds`, with an `[… N lines omitted …]` marker."""
    lines = text.splitlines()
    if len(lines) <= bounds.max_lines and len(text.encode()) <= bounds.max_bytes:
        return text
    head_budget = bounds.max_bytes // 2
    head: list[str] = []
    used = 0
    for line in lines[: bounds.max_lines // 2]:
        size = len(line.encode()) + 1
        if used + size > head_budget:
            break
        head.append(line)
        used += size
    tail: list[str] = []
    used = 0
    for line in reversed(lines[len(head) :][-(bounds.max_lines - len(head)) :]):
        size = len(line.encode()) + 1
        if used + size > bounds.max_bytes - head_budget:
            break
        tail.append(line)
        used += size
    tail.reverse()
    omitted = len(lines) - len(head) - len(tail)
    if not head and not tail:
        # A single enormous line: keep its ends by bytes.
        encoded = text.encode()
        half = bounds.max_bytes // 2
        start = encoded[:half].decode("utf-8", "ignore")
        end = encoded[-half:].decode("utf-8", "ignore")
        return f"{start}\n[… {len(encoded) - 2 * half} bytes omitted …]\n{end}"
    return "\n".join([*head, f"[… {omitted} lines omitted …]", *tail])


def render_piped_input(text: str, bounds: Bounds = Bounds()) -> str:
    return f"[piped input]\n{bound_text(text, bounds)}\n[end of piped input]"
