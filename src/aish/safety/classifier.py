"""STUB — being replaced by the real classifier. Public surface is final."""

from __future__ import annotations

from aish.safety.user_rules import UserRules
from aish.safety.verdict import Verdict


def classify(command: str, user_rules: UserRules | None = None) -> Verdict:
    """The verdict for one line of bash. Pure, no I/O, never raises."""
    return Verdict("unknown", ("classifier not built yet",))


def normalise(command: str) -> str:
    """The key under which verdicts about `command` are cached: whitespace collapsed."""
    return " ".join(command.split())


def describe_rules(user_rules: UserRules | None = None) -> list[str]:
    """One line per rule, for `:safety rules`."""
    return []
