"""Project trust backed by the store: the lookup the config loader is given, and what
`:trust` / `:trust --revoke` do to the store, as lines to show.

Config cannot import the store, so the loader takes `trust_lookup(store)` (or
`trust_on_demand` where no store is kept open): a callable from a project file's path to the
digest the user trusted. A store that fails counts as "not trusted"
(the file is ignored with its notice), never as a crash and never as trusted.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from aish.config.bounded_read import FileTooLarge, read_bounded
from aish.config.project import Trusted, describe_project, digest_of, is_sensitive_line
from aish.store.errors import StoreError

if TYPE_CHECKING:
    from aish.store import Store

_log = logging.getLogger("aish.trust")


def trust_lookup(store: Store) -> Callable[[Path], Trusted | None]:
    """What to pass to `load_config(trusted_digest=…)`."""

    def lookup(path: Path) -> Trusted | None:
        try:
            record = store.project_trust_record(path)
        except StoreError:
            _log.exception("cannot look up trust of %s", path)
            return None
        return None if record is None else Trusted(record.digest, record.allows)

    return lookup


def trust_on_demand(path: Path) -> Trusted | None:
    """The trusted digest of a project file, for commands that keep no store open: the store
    is opened only when the cwd has a project file (the loader asks only then)."""
    from aish.store import Store

    try:
        with Store.open() as store:
            return trust_lookup(store)(path)
    except StoreError:
        return None


@dataclass
class TrustOutcome:
    """What to tell the user, and whether the store changed (so the config must be reloaded).
    The lines quote the file's path as it is: the caller escapes them for the terminal."""

    lines: list[str] = field(default_factory=list)
    changed: bool = False


@dataclass(frozen=True)
class Review:
    """A project file as the user is asked about it: what it sets (`describe_project` lines,
    marked ones first) and the digest of exactly the bytes described."""

    path: Path
    lines: list[str]
    digest: str
    # Allow rules the file holds: they apply only when the user lets them when trusting.
    allow_rules: int = 0

    @property
    def marked(self) -> int:
        return sum(1 for line in self.lines if is_sensitive_line(line))


def review_file(store: Store, path: Path) -> Review | TrustOutcome:
    """What to show before asking to trust `path`; a `TrustOutcome` instead when there is
    nothing to ask (unreadable, not TOML, already trusted as it is)."""
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
        return TrustOutcome([f"{path}: {exc}; not trusted (fix it, then :trust)"])
    digest = digest_of(data)
    allow_rules = _allow_rules(data)
    try:
        record = store.project_trust_record(path)
    except StoreError as error:
        return TrustOutcome([f"cannot look up trust: {error}"])
    # Trusted as it is, unless its allow rules were left out: then `:trust` offers them again.
    if record is not None and record.digest == digest and (record.allows or not allow_rules):
        return TrustOutcome([f"{path} is already trusted as it is"])
    return Review(path, described, digest, allow_rules)


def _allow_rules(data: bytes) -> int:
    import tomllib

    from aish.config.policy_layers import allow_rule_count

    try:
        return allow_rule_count(tomllib.loads(data.decode("utf-8-sig")))
    except (ValueError, RecursionError):  # described already, so this does not happen
        return 0


def record_trust(store: Store, review: Review, *, allows: bool = False) -> TrustOutcome:
    """Record the reviewed bytes as trusted, with its allow rules when `allows`. The digest is
    the one of the bytes shown, so a file changed while the question was open stays
    untrusted: what the user saw is what applies, or nothing."""
    allows = allows and review.allow_rules > 0
    try:
        store.trust_project(review.path, review.digest, allows=allows)
    except StoreError as error:
        return TrustOutcome([f"cannot record trust: {error}"])
    lines = [f"trusted {review.path} (sha256 {review.digest[:12]}…); an edit needs :trust again"]
    if review.allow_rules:
        lines.append(
            f"its {review.allow_rules} allow rule(s) apply too"
            if allows
            else f"its {review.allow_rules} allow rule(s) do not apply: it only tightens"
        )
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
