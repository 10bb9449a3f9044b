"""Verdicts with reasons that say where in the line they were found.

A rule's reason gains the path of wrappers and re-parsed code it was found through: "rm:
deletes files (via sudo → bash -c)".
"""

from __future__ import annotations

from aish.safety.verdict import Verdict

Via = tuple[str, ...]


def via(reason: str, path: Via) -> str:
    return f"{reason} (via {' → '.join(path)})" if path else reason


def destructive(reason: str, path: Via = ()) -> Verdict:
    return Verdict("destructive", (via(reason, path),))


def unknown(reason: str, path: Via = ()) -> Verdict:
    return Verdict("unknown", (via(reason, path),))


def located(verdict: Verdict, path: Via) -> Verdict:
    """`verdict` with every reason marked with where it was found."""
    return Verdict(verdict.level, tuple(via(r, path) for r in verdict.reasons))
