"""A sandbox over one working tree: its private directories, the launch that runs a program
inside it, and the end (discard).

The tree is the project root (git's top level) or else the given directory. The overlay's upper
and work directories live in a private directory outside the tree (under the temp dir, or the
XDG cache when the tree contains the temp dir); the agent shell's rc directory sits there too
and stays writable inside. What a program inside sees: the tree, writable (copy-on-write); the
rest of the filesystem read-only; empty /tmp, /dev/shm, /run and $XDG_RUNTIME_DIR (so the
host's sockets there — Docker, containerd, D-Bus, X11, Wayland, ssh-agent — cannot be reached);
any other Unix socket the host has bound covered; its own PID namespace with a fresh /proc;
and, unless `network` is on, a network namespace of its own with only `lo`. The environment
variables that point at host sockets are dropped.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from aish.run.sandbox.changes import ChangeSet, scan_changes
from aish.run.sandbox.namespaces import _remove_tree, launcher_argv

__all__ = ["SOCKET_VARIABLES", "Sandbox", "SandboxUnavailable", "project_root"]

# Variables that lead a program to a host socket (or a daemon over the network).
SOCKET_VARIABLES = (
    "SSH_AUTH_SOCK",
    "DBUS_SESSION_BUS_ADDRESS",
    "DBUS_SYSTEM_BUS_ADDRESS",
    "DISPLAY",
    "WAYLAND_DISPLAY",
    "XAUTHORITY",
    "GPG_AGENT_INFO",
    "DOCKER_HOST",
    "CONTAINERD_ADDRESS",
    "CONTAINER_HOST",
)
# Characters the overlay's mount options cannot carry in a path.
_UNMOUNTABLE = set(",:\\\n")


class SandboxUnavailable(Exception):
    """This tree cannot be sandboxed (the message says why, in one line)."""


def project_root(cwd: str) -> Path:
    """git's top level for `cwd`, else `cwd` itself."""
    try:
        done = subprocess.run(
            ["git", "-C", cwd, "rev-parse", "--show-toplevel"],
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return Path(cwd).resolve()
    top = done.stdout.strip()
    return Path(top).resolve() if done.returncode == 0 and top else Path(cwd).resolve()


@dataclass
class Sandbox:
    """One sandbox's directories; `launch_prefix` runs a program inside it."""

    tree: Path
    base: Path
    network: bool = False
    allow_sockets: tuple[str, ...] = ()
    started_ns: int = 0
    discarded: bool = field(default=False, init=False)

    @classmethod
    def create(
        cls, tree: Path, *, network: bool = False, allow_sockets: Sequence[str] = ()
    ) -> Sandbox:
        tree = tree.resolve()
        if tree == Path("/"):
            raise SandboxUnavailable("the working tree is / (nothing would stay read-only)")
        if _UNMOUNTABLE & set(str(tree)):
            raise SandboxUnavailable(f"the overlay cannot be mounted at {tree} (, : or \\)")
        base = Path(tempfile.mkdtemp(prefix="aish-sandbox-", dir=_private_parent(tree)))
        for name in ("upper", "work", "rc"):
            (base / name).mkdir()
        return cls(tree, base, network, tuple(allow_sockets), _next_tick(base / "started"))

    @property
    def upper(self) -> Path:
        return self.base / "upper"

    @property
    def rc_dir(self) -> Path:
        """Where the agent shell's generated rc files go (writable inside)."""
        return self.base / "rc"

    def launch_prefix(self, cwd: str, env: Mapping[str, str]) -> list[str]:
        """The command line that runs a program (appended to it) inside the sandbox."""
        hide = [tempfile.gettempdir(), "/tmp", "/dev/shm", "/run", "/var/run"]
        runtime = env.get("XDG_RUNTIME_DIR")
        if runtime:
            hide.append(runtime)
        spec: dict[str, object] = {
            "tree": str(self.tree),
            "upper": str(self.upper),
            "work": str(self.base / "work"),
            "keep": [str(self.rc_dir)],
            "cwd": cwd if _inside(Path(cwd), self.tree) else str(self.tree),
            "network": self.network,
            "hide": list(dict.fromkeys(hide)),
            "allow_sockets": list(self.allow_sockets),
        }
        return launcher_argv(spec)

    @staticmethod
    def environment(env: Mapping[str, str]) -> dict[str, str]:
        """`env` for a program in the sandbox: no pointers to host sockets; AISH_SANDBOX=1."""
        inside = {k: v for k, v in env.items() if k not in SOCKET_VARIABLES}
        inside["AISH_SANDBOX"] = "1"
        return inside

    def changes(self) -> ChangeSet:
        return scan_changes(self.tree, self.upper, self.started_ns)

    def discard(self) -> None:
        """Throw the sandbox away (its programs must have ended)."""
        if not self.discarded:
            self.discarded = True
            _remove_tree(self.base)


def _next_tick(marker: Path) -> int:
    """The start as the filesystems' clock says it, taken on a fresh tick: a real-tree change
    from now on has a ctime at least this (see `changes.conflict`), and one made before the
    sandbox was asked for has an older one — ctimes come from a coarse clock, so a change in
    the very tick the start was read would otherwise look like one made after it."""
    marker.touch()
    first = marker.stat().st_ctime_ns
    deadline = time.monotonic() + 0.1
    while time.monotonic() < deadline:
        os.utime(marker)  # sets the ctime to the clock's now
        now = marker.stat().st_ctime_ns
        if now > first:
            return now
    return first + 1


def _inside(path: Path, top: Path) -> bool:
    try:
        path.resolve().relative_to(top)
    except ValueError:
        return False
    return True


def _private_parent(tree: Path) -> str:
    """A directory for the sandbox's own files outside the tree (the overlay refuses layers
    that overlap)."""
    from aish.config.paths import data_dir

    for candidate in (Path(tempfile.gettempdir()), Path("/var/tmp"), data_dir() / "sandboxes"):
        if not _inside(candidate, tree):
            candidate.mkdir(parents=True, exist_ok=True)
            return str(candidate.resolve())
    raise SandboxUnavailable(f"no place outside {tree} for the sandbox's files")
