"""Routing rates on the development set of real commands and descriptions (issue 18, item 4).

`tests/data/routing_examples/` holds example command lines from this machine's manual pages and
one-line descriptions (whatis lines and `--help` sentences) typed in lower case; README.md there
says how they were made. As the issue measures them: with the commands of this machine's PATH,
commands must reach the shell (≥ 99.5%, never traded away) and descriptions the model. A command
whose program is not installed here goes to the model by the spec's own rule, so it is left out
of the rate, not counted against it.
"""

from __future__ import annotations

from pathlib import Path

from aish.agent.routing import KnownCommands, route_line
from aish.safety.bash.syntax import parse_bash

DATA = Path(__file__).resolve().parents[1] / "data" / "routing_examples"
COMMANDS_TO_SHELL = 0.995
DESCRIPTIONS_TO_MODEL = 0.96  # measured 0.966 here; the held-back goal is 0.985 (see README)


def _commands(known: KnownCommands) -> list[str]:
    lines = [line for line in (DATA / "commands.txt").read_text("utf-8").splitlines() if line]
    return [line for line in lines if _program_is_here(line, known)]


def _program_is_here(line: str, known: KnownCommands) -> bool:
    command = parse_bash(line).lead.command
    if command is None or command.name is None or command.name.value is None:
        return True  # led by syntax, an assignment or an expansion: the PATH does not matter
    name = command.name.value
    return "/" in name or name in known


def _descriptions() -> list[str]:
    rows = (DATA / "descriptions.tsv").read_text("utf-8").splitlines()
    return [row.split("\t", 1)[1] for row in rows if row]


def _rate(lines: list[str], target: str, known: KnownCommands) -> tuple[float, list[str]]:
    missed = [line for line in lines if route_line(line, known).target != target]
    return 1 - len(missed) / len(lines), missed


def test_commands_reach_the_shell() -> None:
    known = KnownCommands.from_system()
    lines = _commands(known)
    assert len(lines) >= 500, "too few example commands have their program on this PATH"
    rate, missed = _rate(lines, "shell", known)
    print(f"\ncommands to the shell: {rate:.2%} of {len(lines)}")
    assert rate >= COMMANDS_TO_SHELL, "\n".join(missed)


def test_descriptions_reach_the_model() -> None:
    known = KnownCommands.from_system()
    lines = _descriptions()
    assert len(lines) >= 1000
    rate, missed = _rate(lines, "model", known)
    print(f"\ndescriptions to the model: {rate:.2%} of {len(lines)}")
    assert rate >= DESCRIPTIONS_TO_MODEL, "\n".join(missed[:50])
