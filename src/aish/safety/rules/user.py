"""Rules the user adds in config: the permission policy and `safety.destructive`.

`safety.allow`, `safety.ask` and `safety.deny` are lists of command patterns (see
`command_pattern`: a command prefix with `*` globs, matched against every simple command
after unwrapping); `[[safety.rule]]` tables say the same with a scope (`paths`), a `reason`
and examples. `deny` never runs on the model's behalf; `ask` always asks, even a `safe`
command; `allow` lets an `unknown` command run without asking and never lowers a built-in
destructive verdict. `safety.destructive` patterns raise a command's verdict to destructive.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Decision = Literal["allow", "ask", "deny"]


@dataclass(frozen=True)
class PolicyRule:
    """One rule of the permission policy. `name` says where it was written (`safety.deny`,
    `safety.rule[2]`); `match` / `not_match` are example commands it must / must not decide."""

    decision: Decision
    commands: tuple[str, ...]
    paths: tuple[str, ...] = ()
    reason: str = ""
    match: tuple[str, ...] = ()
    not_match: tuple[str, ...] = ()
    name: str = ""

    @property
    def label(self) -> str:
        """How messages name the rule: safety.deny `git push`, or safety.rule[2] (deny `rm`,
        paths ./build/**)."""
        patterns = ", ".join(f"`{c}`" for c in self.commands)
        listed = f"safety.{self.decision}"
        if self.name in ("", listed) and not self.paths:
            return f"{listed} {patterns}"  # a plain list entry: safety.deny `git push`
        scope = f", paths {' '.join(self.paths)}" if self.paths else ""
        return f"{self.name or listed} ({self.decision} {patterns}{scope})"


@dataclass(frozen=True)
class UserRules:
    destructive: tuple[str, ...] = ()
    allow: tuple[str, ...] = ()
    ask: tuple[str, ...] = ()
    deny: tuple[str, ...] = ()
    rules: tuple[PolicyRule, ...] = ()

    def policy(self) -> tuple[PolicyRule, ...]:
        """Every allow / ask / deny rule, the plain lists as one-pattern rules."""
        levels: tuple[tuple[Decision, tuple[str, ...]], ...] = (
            ("deny", self.deny),
            ("ask", self.ask),
            ("allow", self.allow),
        )
        listed = [
            PolicyRule(decision, (pattern,), name=f"safety.{decision}")
            for decision, patterns in levels
            for pattern in patterns
        ]
        return (*listed, *self.rules)

    def allowing(self) -> tuple[PolicyRule, ...]:
        return tuple(r for r in self.policy() if r.decision == "allow")

    def tightening(self) -> tuple[PolicyRule, ...]:
        return tuple(r for r in self.policy() if r.decision != "allow")

    def tightened_by(self, other: UserRules) -> UserRules:
        """These rules with `other`'s denials, asks and destructive patterns added (never its
        allows): what holds when a command leaves the directory whose rules `other` are."""

        def more(mine: tuple[str, ...], theirs: tuple[str, ...]) -> tuple[str, ...]:
            return (*mine, *(p for p in theirs if p not in mine))

        rules = (*self.rules, *(r for r in other.tightening() if r.name.startswith("safety.rule")))
        return UserRules(
            more(self.destructive, other.destructive),
            self.allow,
            more(self.ask, other.ask),
            more(self.deny, other.deny),
            tuple(dict.fromkeys(rules)),
        )
