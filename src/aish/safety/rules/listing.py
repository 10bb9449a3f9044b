"""`:safety rules`: every rule the classifier applies, one line each."""

from __future__ import annotations

from aish.safety.rules.destructive import DESTRUCTIVE_RULES
from aish.safety.rules.read_only import READ_ONLY_RULES
from aish.safety.rules.types import ReadOnly
from aish.safety.rules.user import UserRules


def describe_rules(user_rules: UserRules | None = None) -> list[str]:
    """One line per rule, for `:safety rules`."""
    rules = user_rules or UserRules()
    lines = [f"destructive  {rule.describe()}" for rule in DESTRUCTIVE_RULES]
    lines += [
        "destructive  redirection > >| &> onto any file but /dev/null, /dev/stdout, "
        "/dev/stderr, /dev/tty: writes over the file; >> onto a device, /proc or /sys",
        "destructive  a pipe, here-string, < <(…) or <(…) into a shell, interpreter or "
        "database client: runs whatever it receives",
        "destructive  sed -i, awk print > file, SQL DROP/TRUNCATE, DELETE or UPDATE without "
        "WHERE (anywhere in a statement), pg_terminate_backend, redis FLUSHALL/DEL, mongo "
        "drop/delete",
        "unknown      history expansion (!!, !-2), variables that change later commands "
        "(PATH, PROMPT_COMMAND, PS1, GIT_*, LD_*, pagers), prefix assignments other than "
        "formatting variables, SQL that is not a plain reader",
    ]
    lines += [f"destructive  {p}  (your rule, safety.destructive)" for p in rules.destructive]
    lines += [
        f"safe         {p}  (your rule, safety.allow; never over a destructive rule)"
        for p in rules.allow
    ]
    # The permission policy's other rules decide without changing a verdict.
    lines += [
        f"{rule.decision:<12} {rule.label}{f'  ({rule.reason})' if rule.reason else ''}"
        for rule in rules.policy()
        if rule.name != "safety.allow"
    ]
    lines += [f"read-only    {_describe_read_only(entry)}" for entry in READ_ONLY_RULES]
    lines.append(
        "unknown      everything else: parse errors, computed command names, programs "
        "run by path, unfamiliar programs, inline interpreter code"
    )
    return lines


def _describe_read_only(entry: ReadOnly) -> str:
    names = " ".join(entry.programs[:12]) + (" …" if len(entry.programs) > 12 else "")
    parts = [names, *entry.sub]
    if entry.require:
        parts.append("with " + " or ".join(entry.require))
    if entry.deny:
        parts.append("without " + " ".join(entry.deny[:8]) + (" …" if len(entry.deny) > 8 else ""))
    if entry.allow_options is not None:
        parts.append("only with " + (" ".join(entry.allow_options) or "no options"))
    if entry.deny_operand is not None:
        parts.append(f"without operands ~ /{entry.deny_operand}/")
    if entry.max_operands is not None:
        parts.append(f"(at most {entry.max_operands} operands)")
    return " ".join(parts)
