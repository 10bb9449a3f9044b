"""Shared by the sandbox tests: hashing a whole tree, and whether this machine can sandbox."""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

import pytest


def tree_state(root: Path) -> dict[str, tuple[str, int, str]]:
    """Every path under `root` → (kind, mode, content hash or link target): equal states are
    byte-identical trees, modes and symlinks included."""
    state: dict[str, tuple[str, int, str]] = {}
    for top, dirs, files in os.walk(root):
        for name in [*dirs, *files]:
            path = Path(top) / name
            info = path.lstat()
            rel = str(path.relative_to(root))
            mode = stat.S_IMODE(info.st_mode)
            if stat.S_ISLNK(info.st_mode):
                state[rel] = ("symlink", 0, os.readlink(path))
            elif stat.S_ISDIR(info.st_mode):
                state[rel] = ("dir", mode, "")
            elif stat.S_ISREG(info.st_mode):
                state[rel] = ("file", mode, hashlib.sha256(path.read_bytes()).hexdigest())
            else:
                state[rel] = ("other", mode, "")
    return state


def require_sandbox() -> None:
    """Skip, saying why, where the kernel cannot build the sandbox."""
    from aish.run.sandbox import sandbox_support

    support = sandbox_support()
    if not support.available:
        pytest.skip(f"no sandbox on this machine: {support.reason}")
