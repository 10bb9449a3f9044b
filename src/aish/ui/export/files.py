"""Where an export is written: a new file, never one that is there already.

Without a name the file is `aish-<session>-<date>.<md|html>` in the given folder, and when
that name is taken the next free `…-2`, `…-3`. A name the user gave that is taken is refused:
an export never replaces a file silently. The file is created with mode 0600 (before the
umask): a session holds what the user's commands printed.
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

from aish.errors import AishError

__all__ = ["ExportError", "default_name", "write_new"]

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_TRIES = 1000


class ExportError(AishError):
    """An export that cannot be made; the message is one line for the user."""


def default_name(label: str, started_at: float, extension: str) -> str:
    """`aish-<label>-<YYYY-MM-DD>.<extension>`, the label cut to what a file name may hold."""
    safe = _UNSAFE.sub("-", label).strip("-.")[:40] or "session"
    day = time.strftime("%Y-%m-%d", time.localtime(started_at)) if started_at > 0 else "undated"
    return f"aish-{safe}-{day}.{extension}"


def write_new(text: str, *, path: Path | None, folder: Path, default: str) -> Path:
    """Write `text` to `path`, a new file (relative to `folder`); without one, to the first
    free name after `default` in `folder`. Returns the path written."""
    data = text.encode("utf-8", "replace")
    if path is not None:
        target = path if path.is_absolute() else folder / path
        if not _create(target, data):
            raise ExportError(f"{target} exists: give another name (an export replaces no file)")
        return target
    stem, dot, extension = default.rpartition(".")
    for number in range(1, _TRIES + 1):
        name = default if number == 1 else f"{stem}-{number}{dot}{extension}"
        if _create(folder / name, data):
            return folder / name
    raise ExportError(f"no free name like {default} in {folder}")


def _create(target: Path, data: bytes) -> bool:
    """Write `data` to the new file `target`; False when it exists already."""
    try:
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
    except FileExistsError:
        return False
    except OSError as error:
        raise ExportError(f"cannot write {target}: {error.strerror or error}") from None
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
    except OSError as error:
        target.unlink(missing_ok=True)  # a half-written export is not an export
        raise ExportError(f"cannot write {target}: {error.strerror or error}") from None
    return True
