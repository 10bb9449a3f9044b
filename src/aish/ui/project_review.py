"""What the user reads about a project file: the `:trust` review and its question, and the
one-line notice when the shell's directory comes under another project file.

Everything here quotes text a cloned repository chose — key names, values, warnings, even the
file's path — so every line goes through `foreign` before it reaches the terminal: a value must
not move the cursor, erase the marked lines above it, hide text or pose as aish's own output.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Final

from aish.ui.render.visible_text import visible_line

if TYPE_CHECKING:
    from aish.config.project_scope import ProjectState
    from aish.session.trust import Review

MARKED_NOTE: Final = (
    "lines marked ! widen what runs, reach the network, change models or start programs"
)
NOT_RECORDED: Final = "not trusted: nothing recorded"


def foreign(text: str) -> str:
    """Text a project file chose, safe to print as one line (the one escaping rule)."""
    return visible_line(text)


def review_lines(review: Review) -> list[str]:
    """The listing shown before the question: every key, the marked ones first."""
    path = foreign(str(review.path))
    count = len(review.lines)
    if not count:
        return [f"{path} (sha256 {review.digest[:12]}…) sets nothing"]
    head = f"{path} (sha256 {review.digest[:12]}…) sets {count} key{'s' * (count != 1)}"
    lines = [f"{head}, {review.marked} marked !:"]
    lines += [foreign(line) for line in review.lines]
    if review.marked:
        lines.append(MARKED_NOTE)
    return lines


def trust_question(review: Review) -> str:
    """`[y/N]`: anything but `y` records nothing. The count is repeated next to the question
    so a listing too long for the screen cannot scroll the marked lines out of mind."""
    marked = f", with its {review.marked} marked setting{'s' * (review.marked != 1)}"
    return f"Trust this file as shown{marked if review.marked else ''}? [y/N] "


def allow_question(review: Review) -> str:
    """The second question, only for a file with allow rules: without a `y` the project only
    tightens the permission policy."""
    count = review.allow_rules
    rules = f"{count} allow rule{'s' * (count != 1)}"
    return f"Also let its {rules} run commands without asking, in this project? [y/N] "


def short_path(path: Path, home: Path | None) -> str:
    """`~/B/.aish.toml` under the home directory, the absolute path elsewhere."""
    if home is not None:
        try:
            return str(Path("~") / path.relative_to(home))
        except ValueError:
            pass
    return str(path)


def project_notice(state: ProjectState, before: ProjectState, home: Path | None) -> str:
    """The line said once when the project file governing the shell's directory changes."""
    if state.path is None:
        if before.path is not None and before.trusted:
            gone = foreign(short_path(before.path, home))
            return f"project config: none here ({gone} no longer applies)"
        return "project config: none here"
    where = foreign(short_path(state.path, home))
    if state.trusted:
        return f"project config: {where} (trusted)"
    if state.digest is None:
        return f"project config: {where} (cannot be read: ignored)"
    if state.recorded:
        return f"project config: {where} (changed since you trusted it: :trust to review)"
    return f"project config: {where} (not trusted: :trust to review)"


def change_lines(
    state: ProjectState,
    before: ProjectState,
    warnings: list[str],
    said: set[str],
    home: Path | None,
) -> list[str]:
    """What to say when the shell's directory came under another project file: the notice,
    then the new config's warnings not `said` already (the notice covers the file's trust)."""
    own = (f"project config {state.path} ", f"{state.path}: cannot read")
    fresh = [w for w in warnings if w not in said and not (state.path and w.startswith(own))]
    return [project_notice(state, before, home), *(foreign(w) for w in fresh)]
