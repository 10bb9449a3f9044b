"""A proposed diff on the terminal: its files and hunks, coloured, and the one line that says
why it does not apply. Checking and applying it is `aish.run.diff_apply`'s.
"""

from __future__ import annotations

from aish.agent.diffs import ProposedDiff, file_sections, file_summary
from aish.ui.render.visible_text import visible

__all__ = ["reason_line", "render_diff"]

_STYLES = {"+": "green", "-": "red", "@": "cyan", "\\": "dim"}
_REASON_LIMIT = 200


def render_diff(diff: ProposedDiff, *, color: bool, width: int) -> str:
    """The diff for the terminal: a header line per file with its +/- counts, then its hunks;
    with color `+` green, `-` red, `@@` cyan. Control characters are made visible."""
    lines: list[tuple[str, str]] = []
    for change, section in file_sections(diff):
        title = f"── {visible(file_summary(change))} "
        lines.append((title + "─" * max(0, width - len(title)), "bold"))
        hunks = section[next((i for i, x in enumerate(section) if x.startswith("@@")), 0) :]
        for line in hunks:
            lines.append((visible(line), _STYLES.get(line[:1], "")))
    if not color:
        return "".join(text + "\n" for text, _ in lines)
    return _colored(lines, width)


def _colored(lines: list[tuple[str, str]], width: int) -> str:
    import io

    from rich.console import Console  # deferred: start-up does not need rich
    from rich.text import Text

    buffer = io.StringIO()
    console = Console(
        file=buffer,
        force_terminal=True,
        color_system="standard",
        width=max(width, 20),
        highlight=False,
        markup=False,
        emoji=False,
        soft_wrap=True,
    )
    for text, style in lines:
        console.print(Text(text, style=style))
    return buffer.getvalue()


def reason_line(reason: str) -> str:
    """Why a diff does not apply (`check_diff`'s reason), as shown: control characters made
    visible, at most 200 characters."""
    text = visible(reason)
    return text if len(text) <= _REASON_LIMIT else text[: _REASON_LIMIT - 1] + "…"
