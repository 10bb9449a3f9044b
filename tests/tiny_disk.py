"""A tiny tmpfs that fills up, for full-disk tests without root.

`unshare --user --map-root-user --mount` gives an unprivileged process its own mount namespace
in which it may mount a tmpfs; the mount exists only for the command run inside it. Where that
is not allowed (no unshare, user namespaces disabled) the test is skipped with one line.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

import pytest

# Runs "$@" with a `size` tmpfs mounted on $1 (then shifted away).
_MOUNT_AND_RUN = (
    'where=$1; size=$2; shift 2; mount -t tmpfs -o "size=$size" tmpfs "$where" && exec "$@"'
)


def on_tiny_disk(
    where: Path, command: Sequence[str], *, size: str = "256k", **run: object
) -> subprocess.CompletedProcess[str]:
    """`command` run with a fresh `size` tmpfs on `where` (an existing directory)."""
    return subprocess.run(
        [*namespace_prefix(where, size), *command], capture_output=True, text=True, **run
    )  # type: ignore[call-overload, no-any-return]


def namespace_prefix(where: Path, size: str = "256k") -> list[str]:
    """The argv prefix that runs a command with a fresh tmpfs on `where`; skips the test when
    this machine does not allow it."""
    unshare = shutil.which("unshare")
    if unshare is None:
        pytest.skip("full-disk test skipped: unshare(1) is not installed")
    where.mkdir(parents=True, exist_ok=True)
    prefix = [unshare, "--user", "--map-root-user", "--mount", "sh", "-c", _MOUNT_AND_RUN, "sh"]
    probe = subprocess.run([*prefix, str(where), size, "true"], capture_output=True, text=True)
    if probe.returncode != 0:
        reason = " ".join(probe.stderr.split()) or f"exit {probe.returncode}"
        pytest.skip(f"full-disk test skipped: cannot mount a tmpfs in a user namespace ({reason})")
    return [*prefix, str(where), size]
