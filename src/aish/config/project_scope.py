"""Which config applies in a directory: the user's, plus the project file found there when the
user trusted exactly its bytes.

A project's settings belong to its directory tree. Leaving it (or entering another project) must
stop them, so whoever acts in a directory — the user's shell, Norris's own shell — asks
`ConfigScope.loaded_for(cwd)` at the moment it acts instead of keeping the config it started
with. `ProjectState` is the cheap part of that question (find the file, hash it, ask the trust
lookup); a full load happens only when the state differs from every one seen recently.
"""

from __future__ import annotations

import logging
import os
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Final

from aish.config.bounded_read import read_bounded
from aish.config.project import TrustLookup, as_trusted, digest_of, find_project_file

if TYPE_CHECKING:
    from aish.config.loader import LoadedConfig

# Loads the whole config for a directory (None: no project file at all).
ConfigLoader = Callable[[str | None], "LoadedConfig"]

_log = logging.getLogger("aish.config")

# Configs kept: a user moves between a handful of projects; each entry is one small load.
_KEPT: Final = 16


@dataclass(frozen=True)
class ProjectState:
    """The project file that governs a directory as it is now: where it is, the sha256 of its
    bytes (None when it cannot be read), whether the user trusted exactly those bytes, and
    whether they trusted some other bytes of it (it was edited since), and whether they let its
    allow rules apply (a config kept for the state must not outlive a change of that)."""

    path: Path | None = None
    digest: str | None = None
    trusted: bool = False
    recorded: bool = False
    allows: bool = False


def project_state(
    cwd: Path | str, home: Path | None, trusted_digest: TrustLookup | None
) -> ProjectState:
    """The `ProjectState` of `cwd`; a lookup that fails counts as "not trusted"."""
    found = find_project_file(cwd, home)
    if found is None:
        return ProjectState()
    path = Path(os.path.abspath(found))  # trust belongs to this path, not a link's target
    try:
        digest = digest_of(read_bounded(path))
    except OSError:  # unreadable or too large: it cannot apply (the loader says why)
        return ProjectState(path)
    try:
        recorded = as_trusted(trusted_digest(path) if trusted_digest is not None else None)
    except Exception:
        _log.exception("cannot check trust of %s", path)
        recorded = None
    trusted = recorded is not None and recorded.digest == digest
    allows = trusted and recorded is not None and recorded.allows
    return ProjectState(path, digest, trusted, recorded is not None, allows)


class ConfigScope:
    """The loaded config of each directory, kept per `ProjectState` so a step that stays in
    one project costs a file hash and a trust lookup, not a load."""

    def __init__(
        self,
        load: ConfigLoader,
        trusted_digest: TrustLookup | None,
        home: Path | None,
    ) -> None:
        self._load = load
        self._trusted_digest = trusted_digest
        self._home = home
        self._kept: OrderedDict[ProjectState | None, LoadedConfig] = OrderedDict()

    def forget(self) -> None:
        """Drop every kept config: `:config reload` means the user's own files changed too,
        and they are not part of a `ProjectState`."""
        self._kept.clear()

    def state(self, cwd: str) -> ProjectState:
        return project_state(cwd, self._home, self._trusted_digest)

    def loaded_for(self, cwd: str) -> LoadedConfig:
        """The config as it applies in `cwd` now (its project file only when trusted as it is)."""
        return self.at(cwd)[1]

    def at(self, cwd: str) -> tuple[ProjectState, LoadedConfig]:
        """`cwd`'s project state and its config. The load reads and hashes the file again
        itself, so a file changed after the state was taken applies only if those new bytes
        are trusted too."""
        state = self.state(cwd)
        return state, self._kept_or_loaded(state, cwd)

    def outside_projects(self) -> LoadedConfig:
        """The config with no project file: the user's own settings, which hold anywhere."""
        return self._kept_or_loaded(None, None)

    def _kept_or_loaded(self, key: ProjectState | None, cwd: str | None) -> LoadedConfig:
        loaded = self._kept.get(key)
        if loaded is None:
            loaded = self._load(cwd)
            self._kept[key] = loaded
            while len(self._kept) > _KEPT:
                self._kept.popitem(last=False)
        else:
            self._kept.move_to_end(key)
        return loaded
