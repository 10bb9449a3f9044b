"""What the operands of common commands look like, as bash and the tools document them.

The English exception of routing (`english`) asks this module about a line made only of
plain words: do those words fit the command they follow? `exit nano`, `enable mouse support`,
`install numpy`, `free memory?` and `test account characteristics` do not — bash or the tool
would reject them — so they are evidence that the line is a request in English, not a command.

Each rule is the documented synopsis of the command, not a guess about wording:

- takes no operands, only options: `pwd`, `free`, `uptime`, `whoami`, …;
- takes a number: `exit N`, `return N`, `shift N`, `break N`, `continue N`, `history N`,
  `sleep 5m`, `seq`, `factor`;
- takes job specs or process ids: `kill`, `wait`, `fg`, `bg`, `disown`;
- takes builtin names: `enable`; `help` takes a prefix of a builtin, keyword or help topic;
- takes at most one operand: `cd`; at least two: `cp`, `mv`, `install`; exactly two: `diff`,
  `comm`, `join`, `link`;
- starts with a mode or format: `chmod`, `umask`, `date`;
- `test` with two or more operands needs an operator (`-f`, `=`, `!`); `set` takes options
  first (plain words alone would only replace the positional parameters, which nobody types).

Runs a command (`time`, `sudo`, `nohup`, `exec`, …) is a weaker sign, handled by the caller:
the word after it should be a command.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from aish.agent.routing.names import BASH_BUILTINS, BASH_KEYWORDS

__all__ = ["COMMAND_RUNNERS", "operand_misfit"]


def _word_set(text: str) -> frozenset[str]:
    return frozenset(text.split())


_NO_OPERANDS = _word_set(
    "pwd times dirs suspend logout free uptime whoami nproc arch tty logname hostid clear top uname"
)
_NUMBER_OPERAND = _word_set("exit return shift break continue history")
_NUMBERS = _word_set("seq factor")
_JOB_OPERANDS = _word_set("kill wait fg bg disown")
_AT_LEAST_TWO = _word_set("cp mv install")
_EXACTLY_TWO = _word_set("diff comm join link")
# Commands whose first operand is another command to run.
COMMAND_RUNNERS = _word_set(
    "time sudo doas nohup exec command builtin nice watch xargs env strace ltrace"
)
_HELP_TOPICS = BASH_BUILTINS | BASH_KEYWORDS | {"variables"}

_NUMBER = re.compile(r"^[+-]?\d+$")
_DURATION = re.compile(r"^(\d+(\.\d+)?[smhd]?|inf|infinity)$")
_JOB = re.compile(r"^(%\S*|\d+)$")
_MODE = re.compile(r"^([0-7]{1,4}|[ugoa]*[-+=][rwxXstugo]*([,][ugoa]*[-+=][rwxXstugo]*)*)$")
_DATE = re.compile(r"^(\+.*|\d{8,12}(\.\d\d)?)$")


def operand_misfit(name: str, operands: Sequence[str]) -> str | None:
    """Why plain-word `operands` cannot be what `name` takes, or None when they can."""
    if not operands:
        return None
    first = operands[0]
    count = len(operands)
    if name in _NO_OPERANDS:
        return f"`{name}` takes no operands, only options"
    if name in _NUMBER_OPERAND and (count > 1 or not _NUMBER.match(first)):
        return f"`{name}` takes a number, not `{first}`"
    if name in _NUMBERS:
        return _first_not(operands, _NUMBER, f"`{name}` takes numbers")
    if name == "sleep":
        return _first_not(operands, _DURATION, "`sleep` takes a duration")
    if name in _JOB_OPERANDS:
        return _first_not(operands, _JOB, f"`{name}` takes job specs or process ids")
    if name == "enable":
        return _first_not_in(operands, BASH_BUILTINS, "`enable` takes builtin names")
    if name == "help" and not any(t.startswith(first) for t in _HELP_TOPICS):
        return f"`help` takes a builtin's name, not `{first}`"
    if name == "cd" and count > 1:
        return "`cd` takes one directory"
    if name in _AT_LEAST_TWO and count < 2:
        return f"`{name}` takes a source and a destination"
    if name in _EXACTLY_TWO and count != 2:
        return f"`{name}` takes two files"
    if name in ("chmod", "umask") and not _MODE.match(first):
        return f"`{name}` takes a mode first, not `{first}`"
    if name == "date" and not _DATE.match(first):
        return f"`date` takes `+FORMAT`, not `{first}`"
    if name == "set":
        return f"`set` takes options such as `-e` or `-o name` before any words, not `{first}`"
    if name == "test" and count >= 2:
        return "`test` needs an operator such as `-f` or `=`"
    return None


def _first_not(operands: Sequence[str], shape: re.Pattern[str], takes: str) -> str | None:
    for word in operands:
        if not shape.match(word):
            return f"{takes}, not `{word}`"
    return None


def _first_not_in(operands: Sequence[str], names: frozenset[str], takes: str) -> str | None:
    for word in operands:
        if word not in names:
            return f"{takes}, not `{word}`"
    return None
