"""The permission policy's ruling on one line: allow, ask or deny, and what decided it.

The ruling is what the gate does when the model proposes the line in Norris:

- `deny` — a deny rule covers one of the simple commands the line runs (after unwrapping):
  it is refused, and no answer at a prompt can run it;
- `ask` — an ask rule covers one of them, or a deny rule *may* (a computed word, a part that
  could not be read), or the classifier's verdict is `destructive` or `unknown`: confirm in
  chat, HALT in Norris (an unknown line may still be cleared by the second opinion; a line a
  rule asks about never is);
- `allow` — the verdict is `safe`: proven read-only, or `unknown` parts vouched for by allow
  rules (which never lower a built-in destructive verdict; the classifier applies them).

Precedence is deny, then ask, then the built-in verdict. `rule` names the user's rule that
decided, or the built-in reason.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from aish.safety.bash.live_shell import ShellFacts
from aish.safety.classifier import Judgement, judge_line
from aish.safety.rules.command_pattern import SimpleCommand
from aish.safety.rules.policy_match import rule_match
from aish.safety.rules.user import Decision, PolicyRule, UserRules
from aish.safety.verdict import Verdict

__all__ = ["Ruling", "example_failures", "rule_on", "ruling_for"]

_NO_RULES = UserRules()


@dataclass(frozen=True)
class Ruling:
    """`decision` and `rule` as `aish safety check` prints them; `by` is the user's rule that
    decided (None: the built-in verdict did); `why` a line for a prompt or the model."""

    decision: Decision
    rule: str
    verdict: Verdict
    by: PolicyRule | None = None
    why: str = ""


def rule_on(
    command: str, rules: UserRules | None = None, facts: ShellFacts | None = None
) -> Ruling:
    """The ruling on `command` under `rules`, judged against `facts` when given."""
    rules = rules or _NO_RULES
    return ruling_for(judge_line(command, rules, facts), rules)


def ruling_for(judgement: Judgement, rules: UserRules) -> Ruling:
    verdict = judgement.verdict
    commands = judgement.commands
    tightening = rules.tightening()
    for wanted in ("deny", "ask"):
        for rule in (r for r in tightening if r.decision == wanted):
            met = _covered(rule, commands, "yes")
            if met is not None:
                why = f"{_verb(rule)} by your rule {rule.label}: {met.text()}{_because(rule)}"
                return Ruling(wanted, rule.label, verdict, rule, why)
    for rule in (r for r in tightening if r.decision == "deny"):
        met = _covered(rule, commands, "maybe")
        if met is not None:
            why = f"may run a command your rule {rule.label} denies: {met.text()}"
            return Ruling("ask", rule.label, verdict, rule, why)
    for rule in (r for r in tightening if r.decision == "ask"):
        met = _covered(rule, commands, "maybe")
        if met is not None:
            why = f"may run a command your rule {rule.label} asks about: {met.text()}"
            return Ruling("ask", rule.label, verdict, rule, why)
    if verdict.level != "safe":
        reason = verdict.reasons[0] if verdict.reasons else verdict.level
        return Ruling("ask", f"built-in: {reason}", verdict)
    for rule in rules.allowing():
        if _covered(rule, commands, "yes") is not None:
            return Ruling("allow", rule.label, verdict, rule)
    return Ruling("allow", "built-in: proven read-only", verdict)


def _covered(rule: PolicyRule, commands: Sequence[SimpleCommand], how: str) -> SimpleCommand | None:
    return next((c for c in commands if rule_match(rule, c) == how), None)


def _verb(rule: PolicyRule) -> str:
    return "denied" if rule.decision == "deny" else "asks first"


def _because(rule: PolicyRule) -> str:
    return f" ({rule.reason})" if rule.reason else ""


def example_failures(rule: PolicyRule) -> list[str]:
    """One line for each of the rule's examples that it does not decide as written: a `match`
    example none of whose commands it covers, a `not_match` one it covers (or may)."""
    failures = []
    for example in rule.match:
        if _covered(rule, judge_line(example).commands, "yes") is None:
            failures.append(f"{rule.label}: example `{example}` should match but does not")
    for example in rule.not_match:
        commands = judge_line(example).commands
        if _covered(rule, commands, "yes") is not None:
            failures.append(f"{rule.label}: example `{example}` should not match but does")
        elif _covered(rule, commands, "maybe") is not None:
            failures.append(f"{rule.label}: example `{example}` should not match but may")
    return failures
