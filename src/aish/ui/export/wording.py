"""The words both renderers use for the same facts, so that an `.md` and an `.html` export of
a session say the same thing: a command's facts, the gate's decisions, a Norris run's end.
Plain text in, plain text out; each renderer escapes it for its format."""

from __future__ import annotations

import os
import time

from aish.ui.export.document import Command, Decision, Heading, NorrisEnded, NorrisStarted

__all__ = [
    "ANSWERS",
    "PLACEHOLDER_FORM",
    "command_facts",
    "decision_line",
    "heading_facts",
    "home_short",
    "norris_end_line",
    "norris_start_line",
    "placeholder_line",
    "when",
]

# What each answer at a confirm prompt or HALT came to.
ANSWERS = {
    "yes": "yes: it ran",
    "always": "always: it ran, and its kind runs unasked for the rest of the session",
    "edit": "edited by the user, then it ran",
    "no": "no: not run",
    "cancel": "cancelled: not run",
    "proceed": "proceed: it ran",
    "skip": "skipped: not run",
    "abort": "aborted: the run ended here",
    "refused": "refused: nobody to ask, not run",
    "denied": "denied by the user's policy: not run",
}

PLACEHOLDER_FORM = "AISH_SECRET_<TYPE>_<n>"

_BY = {"you": "typed by you", "model": "proposed by the model", "norris": "a Norris step"}


def when(ts: float) -> str:
    """A time as the reader's clock showed it."""
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(ts)) if ts > 0 else "?"


def home_short(path: str) -> str:
    """`/home/me/work` as `~/work`: the export is read by others."""
    home = os.path.expanduser("~")
    if home not in ("", "/", "~") and (path == home or path.startswith(home + "/")):
        return "~" + path[len(home) :]
    return path


def heading_facts(heading: Heading) -> list[str]:
    facts = [f"started {when(heading.started_at)}"]
    if heading.cwd:
        facts.append(f"in {home_short(heading.cwd)}")
    if heading.model:
        facts.append(f"model {heading.model}")
    return facts


def placeholder_line(scrubbed: bool) -> str:
    if scrubbed:
        return (
            f"Secrets are replaced by placeholders {PLACEHOLDER_FORM} throughout "
            "(a preset of this session scrubbed them): their values are not in this file."
        )
    return "No preset of this session scrubbed secrets: the text is as it was logged."


def command_facts(command: Command) -> str:
    facts = [f"exit {command.exit_status}", f"{command.duration_s:.2f} s", _BY[command.by]]
    if command.by != "you" and not command.asked:
        facts.append("ran without asking")
    if command.norris_step is not None:
        facts[2] = f"Norris step {command.norris_step}"
    if command.cwd:
        facts.append(f"in {home_short(command.cwd)}")
    return " · ".join(facts)


def decision_line(decision: Decision) -> str:
    """`HALT [destructive] rm: deletes files → skipped: not run` (the action is shown apart)."""
    what = "HALT" if decision.halted else "asked"
    reasons = f" {'; '.join(decision.reasons)}" if decision.reasons else ""
    answer = ANSWERS.get(decision.answer, decision.answer or "?")
    step = f" (Norris step {decision.norris_step})" if decision.norris_step is not None else ""
    return f"{what}{step} [{decision.level}]{reasons} → {answer}"


def norris_start_line(started: NorrisStarted) -> str:
    line = f"model {started.model}" if started.model else ""
    if started.tasks:
        line += (" · " if line else "") + "tasks: " + "; ".join(started.tasks)
    return line


def norris_end_line(ended: NorrisEnded) -> str:
    line = (
        f"Norris {ended.status}: {ended.reason} · {ended.steps} steps · "
        f"{ended.elapsed_s:.1f} s · {ended.tokens:,} tokens · {ended.cost}"
    )
    return line + (f" · pending: {ended.pending}" if ended.pending else "")
