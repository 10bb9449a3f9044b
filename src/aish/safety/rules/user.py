"""Rules the user adds in config: `safety.destructive` and `safety.allow`.

Each entry is a shell-style glob matched against one simple command after unwrapping
(`sudo`, `env`, `bash -c` …) and quote removal, its words joined by single spaces: `terraform
apply*`, `make deploy`, `./scripts/check.sh *`. A `destructive` match adds a reason and makes
the command destructive; an `allow` match turns an `unknown` command safe and never lowers a
built-in destructive verdict.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class UserRules:
    destructive: tuple[str, ...] = ()
    allow: tuple[str, ...] = ()
