"""The validated config kept on disk, keyed by everything it was made from.

Validating the layers imports pydantic and builds its schema for every section (a third of the
time to the first prompt). The result depends only on the bytes of the files read
(user file, system policy, the trusted project file and its recorded digest), the `AISH_*`
variables, the flags and aish's own config code, so it is kept under the sha256 of all of
them: the next start with the same sources takes it as it is, and any change to any of them
(an edited file, a new variable, a trust given or revoked, another version of aish) is a
different key and a fresh load with fresh warnings. The schema's classes are plain
dataclasses, so taking a kept config imports no pydantic.

Nothing is kept when the load probed the network (zero-config autodetection: servers come
and go) or when a preset's API key came from a variable or a flag (a key named in the
environment stays out of files; one written in the config file is in that file already).

The files are aish's own, in the user's cache dir, mode 0600; one that is not the user's, or
that others may write, is not read (it is unpickled, so it must be as private as the code).
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import pickle
import stat
import sys
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Final

import aish

__all__ = ["SourceKey", "cached_config", "keep_config", "validated_cache_dir"]

_log = logging.getLogger("aish.config")

# Entries kept: one per project directory visited with a distinct config, plus the plain one.
_KEPT: Final = 32
_SUFFIX: Final = ".config.pickle"
# The code whose output is cached: a change to any of it (a new message, a new key) must not
# serve what the old code made.
_CODE_DIR: Final = Path(__file__).resolve().parent
_SHARED_LEAVES: Final = ("errors.py", "endpoints.py")


def validated_cache_dir() -> Path:
    """`$XDG_CACHE_HOME/aish/config`."""
    import platformdirs

    return platformdirs.user_cache_path("aish") / "config"


class SourceKey:
    """Collects what a load reads; `digest()` is the cache key. `usable` turns False when some
    input cannot be named exactly (a read error, an odd flag value): such loads are not kept."""

    def __init__(self) -> None:
        self._hash = hashlib.sha256()
        self.usable = True
        self.part("aish", aish.__version__)
        self.part("code", _code_fingerprint())

    def part(self, label: str, value: str | bytes | None) -> None:
        data = value.encode("utf-8", "surrogateescape") if isinstance(value, str) else value
        marker = b"-" if data is None else b"+%d:" % len(data)
        self._hash.update(label.encode() + marker + (data or b""))

    def file(self, label: str, path: Path) -> None:
        """The bytes of `path` (or that there is no such file)."""
        from aish.config.bounded_read import read_bounded

        self.part(f"{label}-path", str(path))
        try:
            self.part(label, read_bounded(path))
        except FileNotFoundError:
            self.part(label, None)
        except OSError:
            self.usable = False  # the load will warn about it; a warning is not cached

    def items(self, label: str, items: Iterable[tuple[str, object]]) -> None:
        for name, value in sorted(items, key=lambda item: item[0]):
            if value is not None and not isinstance(value, str | int | float | bool):
                self.usable = False
                return
            self.part(f"{label}:{name}", None if value is None else repr(value))

    def digest(self) -> str:
        return self._hash.hexdigest()


def _code_fingerprint() -> str:
    """Names, sizes and modification times of the config package's modules and of the
    validator's (pydantic, pydantic-core), and Python's version: an upgrade of any of them
    may judge the same file differently (a URL parser, an error's wording)."""
    parts = [sys.version]
    files = [_CODE_DIR / name for name in sorted(os.listdir(_CODE_DIR)) if name.endswith(".py")]
    files += [_CODE_DIR.parent / name for name in _SHARED_LEAVES]
    files += _validator_files()
    for path in files:
        try:
            info = path.stat()
        except OSError:
            continue
        parts.append(f"{path.name}:{info.st_size}:{info.st_mtime_ns}")
    return ";".join(parts)


def _validator_files() -> list[Path]:
    """pydantic's and pydantic-core's version modules, found without importing them (the
    point of a kept config is not to import pydantic)."""
    import importlib.util

    found = []
    for package, leaf in (("pydantic", "version.py"), ("pydantic_core", "__init__.py")):
        try:
            spec = importlib.util.find_spec(package)
        except (ImportError, ValueError):
            spec = None
        if spec is not None and spec.origin is not None:
            found.append(Path(spec.origin).parent / leaf)
    return found


def cached_config(folder: Path, key: str) -> object:
    """What is kept under `key` (the loader checks it is a `LoadedConfig`), or None (none
    kept, not private, unreadable, stale)."""
    path = folder / f"{key}{_SUFFIX}"
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        with os.fdopen(descriptor, "rb") as file:
            if not _private(os.fstat(file.fileno())):
                _log.warning("config cache %s is not private to this user: not used", path)
                return None
            loaded = pickle.load(file)  # aish's own file, checked private above
    except Exception:  # written by another version, cut short: a miss, loaded afresh
        _log.debug("config cache %s not usable", path, exc_info=True)
        return None
    return loaded


def keep_config(folder: Path, key: str, loaded: object, sources: Mapping[str, str]) -> None:
    """Keep `loaded` (a `LoadedConfig`, whose `sources` are given) under `key`, atomically and
    privately; failing to is never an error."""
    if _holds_variable_key(sources):
        return
    temporary: str | None = None
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=folder, suffix=".part")
        with os.fdopen(handle, "wb") as file:
            pickle.dump(loaded, file, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(temporary, folder / f"{key}{_SUFFIX}")
        _prune(folder)
    except Exception:  # a read-only or full cache dir costs the next start time, nothing else
        _log.debug("cannot keep the validated config in %s", folder, exc_info=True)
        if temporary is not None:
            with contextlib.suppress(OSError):
                os.unlink(temporary)


def _holds_variable_key(sources: Mapping[str, str]) -> bool:
    return any(
        key.rsplit(".", 1)[-1] == "api_key" and source.startswith(("env ", "flag "))
        for key, source in sources.items()
    )


def _private(info: os.stat_result) -> bool:
    return (
        stat.S_ISREG(info.st_mode)
        and info.st_uid == os.getuid()
        and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
    )


def _prune(folder: Path) -> None:
    entries = []
    for entry in os.scandir(folder):
        if entry.name.endswith((_SUFFIX, ".part")):
            with contextlib.suppress(OSError):
                entries.append((entry.stat().st_mtime_ns, entry.path))
    entries.sort(reverse=True)
    for _mtime, path in entries[_KEPT:]:
        with contextlib.suppress(OSError):
            os.unlink(path)
