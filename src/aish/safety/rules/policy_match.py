"""Whether one rule of the permission policy covers one simple command.

A rule covers a command when one of its patterns matches it (`command_pattern`) and, for a
rule with `paths`, the command's path words fall under them. The two directions differ as
everywhere in the policy: a tightening rule (ask, deny) covers a command when *any* path it
names is in scope, or *may* be (a computed path); an allow rule covers it only when *every*
path is in scope and literal, so `rm -rf build/x ../../etc` is not allowed by `rm` under
`./build/**`.
"""

from __future__ import annotations

import posixpath

from aish.safety.rules.command_pattern import (
    Match,
    SimpleCommand,
    match_command,
    path_operands,
    pattern_words,
    under,
)
from aish.safety.rules.user import PolicyRule

__all__ = ["rule_match"]


def rule_match(rule: PolicyRule, command: SimpleCommand) -> Match:
    tighten = rule.decision != "allow"
    best: Match = "no"
    for pattern in rule.commands:
        words = pattern_words(pattern)
        found = match_command(words, command, tighten=tighten)
        if found == "no":
            continue
        if rule.paths:
            found = _scoped(found, words, rule, command, tighten)
        if found == "yes":
            return "yes"
        if found == "maybe":
            best = "maybe"
    return best


def _scoped(
    found: Match, words: tuple[str, ...], rule: PolicyRule, command: SimpleCommand, tighten: bool
) -> Match:
    paths = path_operands(words, command)
    if not tighten:
        ok = all(under(p, rule.paths, tighten=False) for p in paths)
        return found if ok else "no"
    if any(p is not None and under(p, rule.paths, tighten=True) for p in paths):
        return found
    if any(p is None or _unplaceable(p, rule.paths) for p in paths) or command.open_ended:
        # A computed path, names read from input, or a path the text cannot place against
        # the globs: it may be in scope.
        return "maybe"
    return "no"


def _unplaceable(path: str, globs: tuple[str, ...]) -> bool:
    """Whether comparing `path` with `globs` as text cannot say where it points: an absolute
    (or `~`) path against a glob relative to the directory the command runs in
    (`/home/u/proj/secrets/k` may be `./secrets/k`), or a path that climbs out of that directory
    (`../proj/secrets/k`)."""
    relative_globs = any(not g.startswith(("/", "~")) for g in globs)
    if path.startswith(("/", "~")):
        return relative_globs
    normal = posixpath.normpath(path)
    return relative_globs and (normal == ".." or normal.startswith("../"))
