"""Property: for any command `c` a deny rule matches, any composition that still runs `c`
matches it too — a `cd x &&` before it, `; true` after it, `sudo` / `env` / `nice` / `timeout`
/ `bash -c '…'` / `eval '…'` / `$(…)` / a subshell / a group / `if` around it, its name quoted
or backslash-escaped, `find -exec` or `xargs sh -c` running it — in any order, several deep.
Past the classifier's nesting limit the line cannot be read and asks instead: never `allow`.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable

from hypothesis import given, settings
from hypothesis import strategies as st

from aish.safety.rules.policy import rule_on
from aish.safety.rules.user import PolicyRule, UserRules

Wrap = Callable[[str], str]

RULES = UserRules(
    deny=("git push", "kubectl delete *", "npm publish", "terraform apply*"),
    rules=(PolicyRule("deny", ("rm", "shred"), ("/etc/**",), name="safety.rule[0]"),),
)

DENIED = [
    "git push",
    "git push -f origin main",
    "git -C repo push --tags",
    "kubectl delete pod web-1",
    "kubectl -n prod delete deploy api",  # kubectl's global options dropped, as git's
    "npm publish --access public",
    "terraform apply -auto-approve",
    "terraform apply",
    "rm -rf /etc/nginx",
    "shred -u /etc/shadow",
    "rm -f notes.txt /etc/hosts",
]

# A command's name (not a reserved word: `sudo if …` is no command).
_FIRST_WORD = re.compile(
    r"^(?!(?:if|then|fi|for|while|until|case|do|done|function)\s)([a-z][a-z0-9_.-]*)(?=\s|$)"
)


def _quote_name(style: int) -> Wrap:
    def wrap(line: str) -> str:
        match = _FIRST_WORD.match(line)
        if not match:
            return line
        name = match.group(1)
        quoted = [f"'{name}'", f'{name[0]}"{name[1:]}"', f"\\{name}"][style]
        return quoted + line[match.end() :]

    return wrap


def _simple(prefix: str) -> Wrap:
    """A wrapper that takes a simple command (words), else runs the line through `bash -c`."""
    return lambda line: f"{prefix} {line}" if _FIRST_WORD.match(line) else line


WRAPS: list[Wrap] = [
    lambda line: f"cd x && {line}",
    lambda line: f"{line}; true",
    lambda line: f"true || {line}",
    lambda line: f"{line} | cat",
    _simple("sudo"),
    _simple("sudo -u deploy"),
    _simple("env A=1"),
    _simple("nice -n 5"),
    _simple("timeout 30"),
    _simple("command"),
    lambda line: f"bash -c {shlex.quote(line)}",
    lambda line: f"sh -c {shlex.quote(line)}",
    lambda line: f"sudo bash -c {shlex.quote(line)}",
    lambda line: f"eval {shlex.quote(line)}",
    lambda line: f'out="$( {line}\n)"',
    lambda line: f"(\n{line}\n)",
    lambda line: f"{{ {line}\n}}",
    lambda line: f"if true; then\n{line}\nfi",
    lambda line: f"find . -maxdepth 0 -exec sh -c {shlex.quote(line)} \\;",
    lambda line: f"ls | xargs sh -c {shlex.quote(line)}",
    _quote_name(0),
    _quote_name(1),
    _quote_name(2),
]


def _is_denied_alone(command: str) -> bool:
    return rule_on(command, RULES).decision == "deny"


@settings(max_examples=500, deadline=None)
@given(
    command=st.sampled_from([c for c in DENIED if _is_denied_alone(c)]),
    wraps=st.lists(st.sampled_from(WRAPS), min_size=1, max_size=4),
)
def test_any_composition_that_runs_a_denied_command_is_denied(
    command: str, wraps: list[Wrap]
) -> None:
    line = command
    for wrap in wraps:
        line = wrap(line)
    ruling = rule_on(line, RULES)
    assert ruling.decision == "deny", (line, ruling)


@settings(max_examples=100, deadline=None)
@given(depth=st.integers(min_value=1, max_value=14))
def test_nesting_past_the_limit_asks_never_allows(depth: int) -> None:
    line = "git push"
    for _ in range(depth):
        line = f"bash -c {shlex.quote(line)}"
    assert rule_on(line, RULES).decision in ("deny", "ask")


def test_the_denied_commands_are_denied_alone() -> None:
    assert [c for c in DENIED if not _is_denied_alone(c)] == []
