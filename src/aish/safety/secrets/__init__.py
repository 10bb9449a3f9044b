"""The secrets scrubber: what must never reach a cloud model. `scrubber` holds the session's
placeholders (`SecretVault`); `finder` finds secrets in a text from `patterns` (their own form),
`contexts` and `structures` (what stands around them), `shapes` (known values in other
encodings) and `values` (judging names and values); `reads` says whether a command line reads
a secret and `report` is `aish secrets check`. Pure and in memory.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from aish._lazy_face import lazy_names

if TYPE_CHECKING:
    from aish.safety.secrets.finder import find_secrets
    from aish.safety.secrets.reads import reads_secret
    from aish.safety.secrets.scrubber import SecretVault, UnknownPlaceholder

__all__ = [
    "SecretVault",
    "UnknownPlaceholder",
    "find_secrets",
    "reads_secret",
]

# Public name → module that defines it, resolved on first use so that importing one module of
# this room does not load the others.
_HOMES = {
    "SecretVault": "aish.safety.secrets.scrubber",
    "UnknownPlaceholder": "aish.safety.secrets.scrubber",
    "find_secrets": "aish.safety.secrets.finder",
    "reads_secret": "aish.safety.secrets.reads",
}

__getattr__ = lazy_names(__name__, _HOMES)
