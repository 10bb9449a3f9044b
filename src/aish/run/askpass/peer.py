"""Who is asking the askpass bridge: only sudo's own askpass child gets a password.

Every step of the agent's shell has `$SUDO_ASKPASS` in its environment, so any program a
step runs could run it and print what comes back — the password, in the step's output, sent
to the model. The bridge therefore answers a connection only when the connecting process
(its pid and uid from SO_PEERCRED) is of this user and its parent is sudo running with
effective uid 0: `/proc/<ppid>/status` says euid 0 (a user's own process cannot fake a
setuid program's euid) and `/proc/<ppid>/exe` is a sudo binary from the system directories.

`AISH_TRUSTED_SUDO` (for tests: the fake sudo) names one more program that counts as sudo;
a script is run by its interpreter, so its path is also looked for as the script argument in
`/proc/<ppid>/cmdline`.
"""

from __future__ import annotations

import os
import socket
import struct
from dataclasses import dataclass
from pathlib import Path

__all__ = ["TRUSTED_SUDO_VARIABLE", "Peer", "peer_of", "refusal"]

_SYSTEM_SUDO = ("/usr/bin/sudo", "/bin/sudo", "/usr/local/bin/sudo")
# For tests only: the fake sudo (tests/support/fake_sudo.py), which is not a system program.
TRUSTED_SUDO_VARIABLE = "AISH_TRUSTED_SUDO"


@dataclass(frozen=True)
class Peer:
    """The process at the other end of a Unix socket, as the kernel says at connect time."""

    pid: int
    uid: int


def peer_of(channel: socket.socket) -> Peer | None:
    """The connecting process, or None where the kernel does not say (no SO_PEERCRED)."""
    if not hasattr(socket, "SO_PEERCRED"):
        return None
    creds = channel.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    pid, uid, _gid = struct.unpack("3i", creds)
    return Peer(pid, uid)


def refusal(peer: Peer | None) -> str | None:
    """Why this peer gets no password (a line for the log, no secrets), or None: it is
    sudo's askpass child."""
    if peer is None:
        return "the connecting process cannot be identified (no SO_PEERCRED)"
    if peer.uid != os.getuid():
        return f"pid {peer.pid} runs as uid {peer.uid}, not this user"
    parent = _parent_pid(peer.pid)
    if parent is None:
        return f"pid {peer.pid} is gone or unreadable"
    if _effective_uid(parent) != 0:
        return f"pid {peer.pid}'s parent {parent} is not running as root (not sudo)"
    if not _is_sudo(parent):
        return f"pid {peer.pid}'s parent {parent} is not sudo"
    return None


def _status_field(pid: int, name: str) -> list[str] | None:
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key == name:
            return value.split()
    return None


def _parent_pid(pid: int) -> int | None:
    field = _status_field(pid, "PPid")
    return int(field[0]) if field else None


def _effective_uid(pid: int) -> int | None:
    field = _status_field(pid, "Uid")  # real, effective, saved, filesystem
    return int(field[1]) if field and len(field) > 1 else None


def _trusted_programs() -> tuple[set[str], str | None]:
    """The realpaths of the system's sudo binaries, and the test's fake sudo (if named)."""
    system = {os.path.realpath(p) for p in _SYSTEM_SUDO if os.path.isfile(p)}
    named = os.environ.get(TRUSTED_SUDO_VARIABLE)
    return system, os.path.realpath(named) if named else None


def _is_sudo(pid: int) -> bool:
    system, fake = _trusted_programs()
    try:
        exe = os.path.realpath(os.readlink(f"/proc/{pid}/exe"))
    except OSError:
        return False
    if exe in system or exe == fake:
        return True
    if fake is None:
        return False
    # The fake is a script: its interpreter is the exe, the script its first non-option word.
    try:
        words = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    script = next((w for w in words[1:] if w and not w.startswith(b"-")), None)
    return script is not None and os.path.realpath(os.fsdecode(script)) == fake
