"""Project trust backed by the store: the lookup the config loader is given, and what
`:trust` / `:trust --revoke` do to the store, as lines to show.

Config cannot import the store, so the loader takes `trust_lookup(store)`: a callable from a
project file's path to the digest the user trusted. A store that fails counts as "not trusted"
(the file is ignored with its notice), never as a crash and never as trusted.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from aish.config.bounded_read import FileTooLarge, read_bounded
from aish.config.project import describe_project, digest_of, is_sensitive_line
from aish.store.errors import StoreError
from aish.ui.visible_text import visible

if TYPE_CHECKING:
    from aish.config.project import TrustLookup
    from aish.store import Store

_log = logging.getLogger("aish.trust")

SENSITIVE_NOTE = (
    "lines marked ! change where questions or keys go, MCP servers, auto_approve, "
    "safety rules or the programs aish runs"
)


def trust_lookup(store: Store) -> TrustLookup:
    """What to pass to `load_config(trusted_digest=…)`."""

    def lookup(path: Path) -> str | None:
        try:
            return store.project_trust(path)
        except StoreError:
            _log.exception("cannot look up trust of %s", path)
            return None

    return lookup


@dataclass
class TrustOutcome:
    """What to tell the user, and whether the store changed (so the config must be reloaded)."""

    lines: list[str] = field(default_factory=list)
    changed: bool = False


def trust_file(store: Store, path: Path) -> TrustOutcome:
    """Show what the file sets and record its current bytes as trusted.

    The bytes described are the bytes hashed, so what the user saw is what applies.
    """
    path = Path(os.path.abspath(path))
    try:
        data = read_bounded(path)
    except FileTooLarge as exc:
        return TrustOutcome([f"{path}: {exc}; not trusted"])
    except OSError as exc:
        return TrustOutcome([f"cannot read {path}: {exc.strerror or exc}"])
    try:
        described = describe_project(path, data)
    except ValueError as exc:
        return TrustOutcome([visible(f"{path}: {exc}; not trusted (fix it, then :trust)")])
    digest = digest_of(data)
    try:
        if store.project_trust(path) == digest:
            return TrustOutcome([f"{path} is already trusted as it is"])
        store.trust_project(path, digest)
    except StoreError as error:
        return TrustOutcome([f"cannot record trust: {error}"])
    # Keys, values and the path are the file's own words: shown, never obeyed.
    described = [visible(line) for line in described]
    lines = [f"{visible(str(path))} sets:", *described] if described else [f"{path} sets nothing"]
    if any(is_sensitive_line(line) for line in described):
        lines.append(SENSITIVE_NOTE)
    lines.append(f"trusted {path} (sha256 {digest[:12]}…); an edit needs :trust again")
    return TrustOutcome(lines, changed=True)


def revoke_file(store: Store, path: Path) -> TrustOutcome:
    """Forget the trust in `path`; the file is ignored from the next load on."""
    path = Path(os.path.abspath(path))
    try:
        revoked = store.revoke_project(path)
    except StoreError as error:
        return TrustOutcome([f"cannot revoke trust: {error}"])
    if not revoked:
        return TrustOutcome([f"{path} was not trusted"])
    return TrustOutcome([f"{path} is no longer trusted"], changed=True)
