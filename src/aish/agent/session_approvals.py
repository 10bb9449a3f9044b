"""Approvals given at the confirm prompt with `[a]lways`: command prefixes the user allowed
for this session only.

They live in memory for as long as the REPL runs and are never written anywhere, so they never
leak into another session. They act as allow rules: an `unknown` command they cover runs
without asking (in chat too, where every command otherwise asks), while a built-in destructive
verdict, an ask rule and a deny rule still stand.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from aish.safety.rules.user import PolicyRule, UserRules

if TYPE_CHECKING:
    from aish.safety.bash.live_shell import ShellFacts

__all__ = ["SessionApprovals", "vouched"]


@dataclass
class SessionApprovals:
    patterns: list[str] = field(default_factory=list)
    # Prefixes the user asked to allow in the project too (`[p]roject`), not yet offered for
    # writing: the REPL shows each rule and writes it only on a second yes (`take_for_project`).
    _for_project: list[str] = field(default_factory=list)

    def add(self, pattern: str) -> None:
        if pattern and pattern not in self.patterns:
            self.patterns.append(pattern)

    def propose_for_project(self, pattern: str) -> None:
        if pattern and pattern not in self._for_project:
            self._for_project.append(pattern)

    def take_for_project(self) -> list[str]:
        """The prefixes asked for the project since the last call (each is offered once)."""
        taken, self._for_project = self._for_project, []
        return taken

    def widen(self, rules: UserRules) -> UserRules:
        """`rules` with the approvals as allow rules."""
        if not self.patterns:
            return rules
        approved = tuple(
            PolicyRule("allow", (p,), name="approved for this session") for p in self.patterns
        )
        return replace(rules, rules=(*rules.rules, *approved))

    def covers(self, command: str, facts: ShellFacts | None = None) -> bool:
        """Whether an approval vouches for one of the simple commands `command` runs."""
        return bool(self.patterns) and vouched(command, self.widen(UserRules()), facts)


def vouched(command: str, rules: UserRules, facts: ShellFacts | None = None) -> bool:
    """Whether an allow rule of `rules` vouches for one of the simple commands `command` runs
    (the caller has the verdict, which says whether the rest is safe)."""
    allowing = rules.allowing()
    if not allowing:
        return False
    from aish.safety.classifier import judge_line
    from aish.safety.rules.policy_match import rule_match

    commands = judge_line(command, None, facts).commands
    return any(rule_match(rule, met) == "yes" for rule in allowing for met in commands)
