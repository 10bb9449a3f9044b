"""The permission policy across layers: rules that tighten add up, nothing below loosens.

Other keys follow the usual order (a higher layer's value replaces a lower one's). For the
permission policy that order would let a layer loosen what another set: a trusted project's
`safety.deny = []` would drop the user's denials. So `safety.deny`, `safety.ask`,
`safety.destructive` and the `[[safety.rule]]` tables are the union of every file layer's:
the system policy file, the user's file, the trusted project file. `safety.allow` keeps the
usual order. A project file only tightens: its `safety.allow` and its allow rule tables apply
only when the user, trusting the file, also let them (`withhold_allow` drops them otherwise).

The system file (`/etc/aish/policy.toml`, or the path in `AISH_SYSTEM_POLICY`) holds only
`[safety]` policy keys; anything else in it is ignored with a warning. Its denials and asks
stand whatever the files above it say, since deny and ask outrank allow.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from aish.config.layers import FileLayer, Layer
from aish.config.schema import AishConfig, PolicyRuleConfig

__all__ = [
    "DEFAULT_SYSTEM_POLICY",
    "SYSTEM_POLICY_VARIABLE",
    "allow_rule_count",
    "policy_only",
    "system_policy_path",
    "union_tightening",
    "withhold_allow",
]

SYSTEM_POLICY_VARIABLE = "AISH_SYSTEM_POLICY"
DEFAULT_SYSTEM_POLICY = Path("/etc/aish/policy.toml")
_POLICY_KEYS = ("allow", "ask", "deny", "destructive", "rule")
_TIGHTENING = ("deny", "ask", "destructive")


def system_policy_path(variables: Mapping[str, str]) -> Path:
    return Path(variables.get(SYSTEM_POLICY_VARIABLE, "").strip() or DEFAULT_SYSTEM_POLICY)


def policy_only(layer: FileLayer) -> list[str]:
    """Keep only `[safety]` policy keys in the system layer; a warning for anything else."""
    warnings = []
    for key in [k for k in layer.data if k != "safety"]:
        warnings.append(f"{layer.title()}: key {key}: ignored (a system policy holds [safety])")
        del layer.data[key]
    safety = layer.data.get("safety")
    if isinstance(safety, dict):
        for key in [k for k in safety if k not in _POLICY_KEYS]:
            warnings.append(f"{layer.title()}: key safety.{key}: ignored (not a policy key)")
            del safety[key]
    return warnings


def allow_rule_count(data: Mapping[str, Any]) -> int:
    """How many allow rules a file's parsed TOML holds (`safety.allow` patterns and
    `[[safety.rule]]` tables deciding `allow`)."""
    safety = data.get("safety")
    if not isinstance(safety, dict):
        return 0
    rules = safety.get("rule")
    tables = rules if isinstance(rules, list) else []
    return len(_strings(safety.get("allow"))) + sum(
        1 for r in tables if isinstance(r, dict) and r.get("decision") == "allow"
    )


def withhold_allow(layer: FileLayer) -> list[str]:
    """Drop the project layer's allow rules (`safety.allow`, `[[safety.rule]]` tables deciding
    `allow`); one warning when there were any."""
    safety = _policy(layer)
    dropped = len(_strings(safety.pop("allow", None)))
    rules = safety.get("rule")
    if isinstance(rules, list):
        kept = [r for r in rules if not (isinstance(r, dict) and r.get("decision") == "allow")]
        dropped += len(rules) - len(kept)
        safety["rule"] = kept
    if not dropped:
        return []
    return [
        f"{layer.title()}: its {dropped} allow rule(s) do not apply (a project only tightens "
        "unless you let its allow rules apply when you :trust it)"
    ]


def union_tightening(config: AishConfig, layers: Sequence[Layer]) -> None:
    """Set the tightening keys of `config.safety` to the union over the file layers
    (lowest first), as validated values. Changes `config` in place."""
    files = [layer for layer in layers if isinstance(layer, FileLayer)]
    safety = config.safety
    for key in _TIGHTENING:
        merged: list[str] = []
        for layer in files:
            merged += [p for p in _strings(_policy(layer).get(key)) if p not in merged]
        for pattern in getattr(safety, key):  # the environment and flags, if they set any
            if pattern not in merged:
                merged.append(pattern)
        setattr(safety, key, merged)
    rules: list[PolicyRuleConfig] = []
    for layer in files:
        for table in _tables(_policy(layer).get("rule")):
            if table not in rules:
                rules.append(table)
    safety.rule = rules or safety.rule


def _policy(layer: Layer) -> dict[str, Any]:
    safety = layer.data.get("safety")
    return safety if isinstance(safety, dict) else {}


def _strings(value: object) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _tables(value: object) -> list[PolicyRuleConfig]:
    """The valid rule tables of one layer (an invalid one was reported by validation)."""
    tables: list[PolicyRuleConfig] = []
    if not isinstance(value, list) or not value:
        return tables
    from aish.config.validation import ValidationError, validate_rule  # pydantic, only now

    for item in value:
        try:
            tables.append(validate_rule(item))
        except ValidationError:
            continue
    return tables
