"""The permission policy from the config: the user's rules as the safety room reads them, and
the check of every rule's examples when the config loads.

Config may not import the classifier, so the examples of `[[safety.rule]]` tables are checked
here, one layer up, and a failing one joins the loader's warnings: one line naming the rule
and the example. A rule that tightens (ask, deny) is kept all the same, since dropping it
would loosen the policy over a typo in an example; an allow rule whose examples fail is not
applied.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from aish.safety.rules.user import PolicyRule, UserRules

if TYPE_CHECKING:
    from aish.config.loader import LoadedConfig
    from aish.config.schema import SafetyConfig

__all__ = ["checked", "example_failures_by_rule", "user_rules_of"]


def user_rules_of(safety: SafetyConfig) -> UserRules:
    return UserRules(
        tuple(safety.destructive),
        tuple(safety.allow),
        tuple(safety.ask),
        tuple(safety.deny),
        tuple(_rule(safety, index) for index in range(len(safety.rule))),
    )


def _rule(safety: SafetyConfig, index: int) -> PolicyRule:
    table = safety.rule[index]
    return PolicyRule(
        table.decision,
        tuple(table.patterns()),
        tuple(table.paths),
        table.reason,
        tuple(table.match),
        tuple(table.not_match),
        name=f"safety.rule[{index}]",
    )


def example_failures_by_rule(safety: SafetyConfig) -> list[tuple[PolicyRule, list[str]]]:
    """Each `[[safety.rule]]` with examples, and the lines of those that fail (none: all hold)."""
    from aish.safety.rules.policy import example_failures

    rules = user_rules_of(safety).rules
    return [(rule, example_failures(rule)) for rule in rules if rule.match or rule.not_match]


def checked(loaded: LoadedConfig) -> LoadedConfig:
    """`loaded` with a warning per failing example, and without the allow rules they belong
    to. Changes `loaded` in place and returns it."""
    safety = loaded.config.safety
    if not any(table.match or table.not_match for table in safety.rule):
        return loaded  # the classifier stays unloaded
    where = loaded.sources.get("safety.rule", "config")
    if loaded.user_file is not None and where == str(loaded.user_file):
        from aish.config.loader import display_name

        where = display_name(loaded.user_file)  # as the loader's own warnings name it
    dropped: list[int] = []
    for rule, failures in example_failures_by_rule(safety):
        index = int(rule.name.removeprefix("safety.rule[").removesuffix("]"))
        keeps = rule.decision != "allow"
        if failures and not keeps:
            dropped.append(index)
        outcome = "rule kept: it only tightens" if keeps else "rule not applied"
        loaded.warnings += [f"{where}: {failure} ({outcome})" for failure in failures]
    if dropped:
        safety.rule = [table for i, table in enumerate(safety.rule) if i not in dropped]
    return loaded
