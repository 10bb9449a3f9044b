"""Text handed to the model alongside a question: piped input, framed so the model can tell
it from the question. Bounding and rendering happen where the text is read
(`agent.oneshot.read_piped`, through the shell room's capture)."""

from __future__ import annotations


def render_piped_input(text: str) -> str:
    return f"[piped input]\n{text}\n[end of piped input]"
