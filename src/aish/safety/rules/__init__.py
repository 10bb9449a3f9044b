"""The rule tables and the checks that read a program's arguments: the read-only allowlist
(`read_only`), the destructive families (`destructive`), their shapes (`types`), the user's own
rules from config (`user`) and the permission policy over them (`command_pattern`,
`met_command`, `policy_match`, `policy`, `approval_prefix`), programs that run code they are
handed (`code_runners`, `inline_code`, `multiplexers`), checks of script content
(`content_checks`, `awk_program`, `editor_scripts`), configuration that makes a reader run a
program (`configured_code`), launchers that read the project before their arguments
(`project_launchers`) and the `:safety rules` listing (`listing`). Data and pure code.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from aish._lazy_face import lazy_names

if TYPE_CHECKING:
    from aish.safety.rules.destructive import DESTRUCTIVE_RULES
    from aish.safety.rules.listing import describe_rules
    from aish.safety.rules.read_only import READ_ONLY_RULES
    from aish.safety.rules.types import DestructiveRule, ReadOnly
    from aish.safety.rules.user import PolicyRule, UserRules

__all__ = [
    "DESTRUCTIVE_RULES",
    "READ_ONLY_RULES",
    "DestructiveRule",
    "PolicyRule",
    "ReadOnly",
    "UserRules",
    "describe_rules",
]

# Public name → module that defines it, resolved on first use so that importing one module of
# this room does not load the others.
_HOMES = {
    "DESTRUCTIVE_RULES": "aish.safety.rules.destructive",
    "DestructiveRule": "aish.safety.rules.types",
    "READ_ONLY_RULES": "aish.safety.rules.read_only",
    "PolicyRule": "aish.safety.rules.user",
    "ReadOnly": "aish.safety.rules.types",
    "UserRules": "aish.safety.rules.user",
    "describe_rules": "aish.safety.rules.listing",
}

__getattr__ = lazy_names(__name__, _HOMES)
