"""What a reply says in its text: `CMD:` lines (shell commands), `CMD&:` lines (commands to run
as background jobs), `DELEGATE: <preset>: <sub-goal>` lines and a Norris `GOAL:` line.

The `CMD:` contract works with every model, including small local ones without tool calling:
a line whose text starts with `CMD:`. Models often decorate it (a list bullet, backticks, a
code fence around it); the decoration is removed, the command is not otherwise touched. The
same tolerance applies to `GOAL: complete [summary]` and `GOAL: blocked <reason>`, with which a
model ends an autonomous run.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal, TypeVar

_T = TypeVar("_T")

# A command with control characters (a carriage return, an escape sequence) could show one
# thing on screen and run another; such a line is never proposed.
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f]")

_CMD_LINE = re.compile(
    r"^\s*(?:[-*+]\s+|\d+[.)]\s+)?`{0,3}CMD(?P<background>&)?:\s*(?P<command>.*?)\s*$"
)


@dataclass(frozen=True)
class CommandLine:
    """A proposed command: a `CMD:` line, or a `CMD&:` line (`background`)."""

    command: str
    background: bool = False


def extract_command_lines(text: str) -> list[CommandLine]:
    """Every proposed command, `CMD:` and `CMD&:` alike, in order, without duplicates next to
    each other."""
    commands: list[CommandLine] = []
    # Only a newline ends a line: splitlines() would also split on \r and other separators
    # that a terminal shows on one line.
    for line in text.split("\n"):
        match = _CMD_LINE.match(line.removesuffix("\r"))
        if not match:
            continue
        command = _strip_backticks(match.group("command"))
        if _CONTROL.search(command):
            continue
        found = CommandLine(command, bool(match.group("background")))
        if command and (not commands or commands[-1] != found):
            commands.append(found)
    return commands


def extract_commands(text: str) -> list[str]:
    """Every proposed `CMD:` command (not the background ones), in order, without duplicates
    next to each other."""
    return [line.command for line in extract_command_lines(text) if not line.background]


@dataclass(frozen=True)
class DelegateLine:
    """`DELEGATE: <preset>: <sub-goal>`: a bounded sub-goal for a Norris run on `preset`."""

    preset: str
    goal: str


_DELEGATE_LINE = re.compile(
    r"^\s*(?:[-*+]\s+|\d+[.)]\s+)?[*_`]*DELEGATE:[*_`]*\s*"
    r"(?P<preset>[^\s:`*]+)\s*:\s*(?P<goal>.*?)[*_`]*\s*$"
)
_DELEGATE_GOAL_MAX = 2000


def extract_delegations(text: str) -> list[DelegateLine]:
    """Every `DELEGATE:` line with a preset and a sub-goal, in order, without repeats."""
    found: list[DelegateLine] = []
    for line in text.split("\n"):
        match = _DELEGATE_LINE.match(line.removesuffix("\r"))
        if match is None:
            continue
        goal = _CONTROL.sub(" ", match["goal"]).strip()[:_DELEGATE_GOAL_MAX]
        delegation = DelegateLine(match["preset"], goal)
        if goal and delegation not in found:
            found.append(delegation)
    return found


def capped(commands: list[_T], limit: int) -> tuple[list[_T], str | None]:
    """The first `limit` commands of a reply, and what the model and the user are told about
    the rest (None: nothing was dropped). One reply must not become hundreds of commands."""
    dropped = len(commands) - limit
    if dropped <= 0:
        return commands, None
    plural = "s" if dropped != 1 else ""
    return commands[:limit], (
        f"[aish] {dropped} more proposed command{plural} not run: only the first {limit} "
        "of a reply are taken (safety.max_commands_per_reply); propose fewer at a time"
    )


def _strip_backticks(command: str) -> str:
    for fence in ("```", "`"):
        if command.startswith(fence) and command.endswith(fence) and len(command) > 2 * len(fence):
            return command[len(fence) : -len(fence)].strip()
    return command.rstrip("`").strip() if command.count("`") % 2 else command


@dataclass(frozen=True)
class GoalLine:
    """The model's word on the goal: `complete` (with an optional summary) or `blocked`
    (with its reason)."""

    state: Literal["complete", "blocked"]
    detail: str


# `GOAL: complete`, `**GOAL:** blocked – no network`, `- GOAL: done.` …; the marker is
# upper-case like CMD:, the state word any case. Text may follow a finished goal's word after
# punctuation, or directly when the word is written as the marker says (`complete 3 files`,
# `COMPLETE 3 files`): `GOAL: Complete the TODOs` restates a goal, it does not report one.
_GOAL_LINE = re.compile(
    r"^\s*(?:[-*+>]\s+|\d+[.)]\s+)?[*_`]*GOAL:[*_`]*\s*[*_`]*"
    r"(?:(?P<done>(?i:completed?|done|achieved))[*_`]*"
    r"(?P<summary>(?:\s*[.!:;,—–(-].*)?|\s+\S.*)"
    r"|(?P<blocked>(?i:blocked))\b[*_`]*(?P<reason>.*))\s*$"
)
# Around the summary or reason: separators before it, emphasis after it (its own full stop stays).
_DETAIL_LEAD = " \t*_`-–—:.;,!"
_DETAIL_TAIL = " \t*_`"
_SUMMARY_MAX = 300


def extract_goal(text: str) -> GoalLine | None:
    """The first `GOAL:` line of a reply, if any. A complete goal's summary is the rest of its
    line, else the paragraph after it; a blocked goal's reason is the rest of its line, else
    the next line."""
    lines = text.split("\n")
    for index, line in enumerate(lines):
        match = _GOAL_LINE.match(line.removesuffix("\r"))
        if match is None or _restates_a_goal(match):
            continue
        state: Literal["complete", "blocked"] = "blocked" if match["blocked"] else "complete"
        detail = _tidy(match["reason"] if match["blocked"] else match["summary"])
        if not detail:
            following = _paragraph_after(lines, index)
            detail = _tidy(" ".join(following[:1] if state == "blocked" else following))
        if len(detail) > _SUMMARY_MAX:
            detail = detail[: _SUMMARY_MAX - 1] + "…"
        return GoalLine(state, detail)
    return None


def _restates_a_goal(match: re.Match[str]) -> bool:
    """`GOAL: Complete the TODOs`: a sentence (Titlecase word, then words), not a report."""
    word, summary = match["done"], match["summary"]
    return (
        bool(word)
        and word.istitle()
        and bool(summary)
        and summary[:1].isspace()
        and (summary.strip()[:1].isalnum())
    )


def _tidy(text: str) -> str:
    return _CONTROL.sub(" ", text).lstrip(_DETAIL_LEAD).rstrip(_DETAIL_TAIL)


def _paragraph_after(lines: list[str], index: int) -> list[str]:
    """The text lines after `index` up to the next blank line (other actions left out)."""
    found: list[str] = []
    for line in lines[index + 1 :]:
        text = line.strip()
        if not text:
            if found:
                break
            continue
        if _CMD_LINE.match(text) or _GOAL_LINE.match(text) or _DELEGATE_LINE.match(text):
            continue
        found.append(text)
    return found
