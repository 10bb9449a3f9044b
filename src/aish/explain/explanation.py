"""`aish explain` and `:explain`: each program a line runs and each of its options, with what
the local documentation says about them, and the gate's verdict on the whole line.

Nothing here is sent anywhere and nothing of the line runs: the documentation is read from the
system (`docs`), the verdict is the safety room's, and `documentation_lines` is the part a
model may be given to explain from (`[d]escribe`).
"""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING

from aish.explain.command_parts import CommandPart, command_parts
from aish.explain.docs import Documentation, find_documentation, find_subcommand_page
from aish.explain.flag_words import Flag, read_flags
from aish.explain.option_table import OptionEntry, OptionTable, read_option_table

if TYPE_CHECKING:
    from aish.safety.rules import UserRules
    from aish.safety.rules.policy import Ruling

__all__ = [
    "CommandExplanation",
    "Explanation",
    "documentation_lines",
    "explain_line",
    "explanation_lines",
]

# Description lines shown per option: the start of its first paragraph.
_SHOWN_LINES = 3
_SPACES = re.compile(r" {2,}")


@dataclass(frozen=True)
class CommandExplanation:
    """One program of the line: its documentation (None: none found) and its options."""

    part: CommandPart
    docs: Documentation | None
    summary: tuple[str, ...]
    flags: tuple[Flag, ...]


@dataclass(frozen=True)
class Explanation:
    line: str
    ruling: Ruling
    commands: tuple[CommandExplanation, ...]
    error: str | None


def explain_line(line: str, rules: UserRules | None = None) -> Explanation:
    """What `line` would run, read against the local documentation, and the gate's ruling on
    it under `rules` (the user's own, as `aish safety check` judges). Runs documentation
    programs (see `docs`), never the line."""
    from aish.safety.rules.policy import rule_on

    parts, error = command_parts(line)
    # The documentation programs run while the line is judged (they wait, judging computes).
    with ThreadPoolExecutor(max_workers=4) as pool:
        explained = [pool.submit(_explained, part) for part in parts]
        ruling = rule_on(line, rules)
        commands = tuple(future.result() for future in explained)
    return Explanation(line, ruling, commands, error)


def _explained(part: CommandPart) -> CommandExplanation:
    docs = find_documentation(part.program) if part.program else None
    table = _table(docs)
    reading = read_flags(part.words, table)
    flags = reading.flags
    sub = reading.first_operand
    subcommand = part.words[sub] if sub is not None else None
    if docs is not None and subcommand is not None:
        page = find_subcommand_page(docs.program, subcommand)
        if page is not None:
            assert sub is not None
            before = read_flags(part.words[:sub], table).flags
            after = read_flags(part.words[sub + 1 :], _table(page)).flags
            return CommandExplanation(part, page, _table(page).summary, before + after)
    return CommandExplanation(part, docs, table.summary if docs else (), flags)


def _table(docs: Documentation | None) -> OptionTable:
    if docs is None:
        return OptionTable((), ())
    return read_option_table(docs.text, man_page=docs.source == "man")


def explanation_lines(explanation: Explanation) -> list[str]:
    """The explanation as the terminal shows it: the verdict, then each program and option."""
    ruling = explanation.ruling
    lines = [f"{explanation.line}", f"  verdict: {ruling.verdict.level} (nothing was run)"]
    lines += [f"    - {reason}" for reason in ((ruling.why,) if ruling.why else ())]
    lines += [f"    - {reason}" for reason in ruling.verdict.reasons]
    if explanation.error:
        lines.append(f"  bash: {explanation.error}")
    for command in explanation.commands:
        lines.append("")
        lines += _command_lines(command)
    return lines


def _command_lines(command: CommandExplanation) -> list[str]:
    name = command.part.written
    if command.docs is None:
        why = "computed when it runs" if command.part.program is None else "no man page or help"
        lines = [f"{name}  ({why})"]
    else:
        lines = [f"{_titled(name, command.summary)}  ({command.docs.origin})"]
    width = max((len(_written(flag)) for flag in command.flags), default=0)
    width = min(width, 24)
    for flag in command.flags:
        written = _written(flag).ljust(width)
        if flag.entry is None:
            where = command.docs.origin if command.docs is not None else "any documentation"
            lines.append(f"  {written}  (not in {where})")
            continue
        lines.append(f"  {written}  {flag.entry.header}")
        lines += [f"  {'':{width}}    {text}" for text in _description(flag.entry)]
    return lines


def _titled(name: str, summary: tuple[str, ...]) -> str:
    """`tar - an archiving utility` as man's NAME line says it, else `name — summary`."""
    if not summary:
        return name
    return summary[0] if summary[0].startswith(name) else f"{name} — {summary[0]}"


def _written(flag: Flag) -> str:
    """The option as the line has it: `-f a.tgz`, `--sort=time`."""
    if flag.value is None:
        return flag.name
    attached = flag.word.startswith("--") and "=" in flag.word
    return flag.word if attached else f"{flag.name} {flag.value}"


def _description(entry: OptionEntry, limit: int = _SHOWN_LINES) -> list[str]:
    """The start of the entry's first paragraph, with man's justified spacing undone."""
    paragraph: list[str] = []
    for text in entry.lines:
        if not text:
            break
        paragraph.append(_SPACES.sub(" ", text))
    if len(paragraph) > limit:
        paragraph = paragraph[:limit]
        paragraph[-1] += " …"
    return paragraph


def documentation_lines(explanation: Explanation, limit: int = 80) -> list[str]:
    """What the local documentation says about the line's programs and options, for a model
    to explain from: only what was found, at most `limit` lines."""
    lines: list[str] = []
    for command in explanation.commands:
        if command.docs is None:
            continue
        summary = f": {command.summary[0]}" if command.summary else ""
        lines.append(f"{command.part.written} (from {command.docs.origin}){summary}")
        for flag in command.flags:
            if flag.entry is not None:
                text = " ".join(_description(flag.entry, limit=4))
                lines.append(f"  {_written(flag)}: {flag.entry.header} — {text}".rstrip(" —"))
    return lines[:limit]
