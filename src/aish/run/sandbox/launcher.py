"""The sandbox's launcher: a stand-alone script (standard library only, run with `python -I -S`)
that builds the sandbox in new namespaces and then becomes the program it was given.

It is a script rather than a module of aish because it must start fast and must not import
anything from the tree it is about to cover. Usage::

    python -I -S launcher.py '<spec as JSON>' program [args...]

The spec says: `tree` (the directory covered by the overlay, mounted at its own path), `upper`
and `work` (the overlay's private directories, outside the tree), `keep` (directories that stay
writable at their own path: the shell's rc directory), `cwd`, `network` (keep the host's
network namespace), `hide` (directories covered by an empty tmpfs: /tmp, /run,
$XDG_RUNTIME_DIR …), `allow_sockets` (host Unix sockets bound back in), and `probe` (instead of
running a program, check the sandbox and print what worked as JSON).

Order matters, and is why every source is opened as an `O_PATH` descriptor first: the overlay
is mounted over the tree while its directories are still visible, every mount is then remounted
read-only (the overlay's upper layer keeps its own private writable clone), and only then are
empty tmpfs mounted over the hidden directories — which may hide the tree itself (a tree under
/tmp), so the overlay and the kept directories are bound back from their descriptors.
Outside, the launcher stays as the parent of the sandbox's PID 1 and ends it when it is hung up.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import signal
import socket
import stat
import struct
import sys
from typing import Any

CLONE_NEWNS = 0x00020000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000

MS_RDONLY = 1
MS_NOSUID = 2
MS_NODEV = 4
MS_NOEXEC = 8
MS_REMOUNT = 32
MS_NOATIME = 1024
MS_NODIRATIME = 2048
MS_BIND = 4096
MS_REC = 16384
MS_PRIVATE = 1 << 18
MS_RELATIME = 1 << 21
# statvfs's f_flag bits and the mount flags that keep them (locked flags must be kept on a
# remount inside a user namespace, or it fails with EPERM).
_KEPT_FLAGS = (
    (os.ST_NOSUID, MS_NOSUID),
    (os.ST_NODEV, MS_NODEV),
    (os.ST_NOEXEC, MS_NOEXEC),
    (os.ST_NOATIME, MS_NOATIME),
    (os.ST_NODIRATIME, MS_NODIRATIME),
    (os.ST_RELATIME, MS_RELATIME),
)
PR_SET_PDEATHSIG = 1
SIOCGIFFLAGS = 0x8913
SIOCSIFFLAGS = 0x8914
IFF_UP = 0x1

_libc = ctypes.CDLL(None, use_errno=True)
_libc.mount.argtypes = (
    ctypes.c_char_p,
    ctypes.c_char_p,
    ctypes.c_char_p,
    ctypes.c_ulong,
    ctypes.c_char_p,
)


class SetupError(Exception):
    """A step the sandbox cannot go without failed."""


def _check(result: int, what: str) -> None:
    if result != 0:
        code = ctypes.get_errno()
        raise SetupError(f"{what}: {os.strerror(code)}")


def mount(
    source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None
) -> None:
    result = _libc.mount(_c(source), _c(target), _c(fstype), flags, _c(data))
    _check(result, f"mount {fstype or source} on {target}")


def _c(text: str | None) -> bytes | None:
    return None if text is None else os.fsencode(text)


def fd_path(fd: int) -> str:
    return f"/proc/self/fd/{fd}"


def under(path: str, top: str) -> bool:
    return path == top or path.startswith(top.rstrip("/") + "/")


def write_file(path: str, text: str) -> None:
    with open(path, "w") as stream:
        stream.write(text)


def map_root(uid: int, gid: int) -> None:
    """Be root in the new user namespace, the caller outside (what `--map-root-user` does)."""
    write_file("/proc/self/setgroups", "deny")
    write_file("/proc/self/uid_map", f"0 {uid} 1")
    write_file("/proc/self/gid_map", f"0 {gid} 1")


def host_sockets() -> list[str]:
    """Paths of the Unix sockets bound in this network namespace (before leaving it)."""
    paths: list[str] = []
    try:
        with open("/proc/net/unix") as stream:
            next(stream, None)
            for line in stream:
                fields = line.split()
                if len(fields) >= 8 and fields[7].startswith("/"):
                    paths.append(" ".join(fields[7:]))
    except OSError:
        pass
    return paths


def mount_points() -> list[str]:
    points: list[str] = []
    with open("/proc/self/mountinfo") as stream:
        for line in stream:
            point = line.split()[4]
            points.append(point.encode().decode("unicode_escape"))
    return points


def remount_read_only(point: str) -> bool:
    try:
        flags = os.statvfs(point).f_flag
    except OSError:
        return False
    kept = 0
    for bit, flag in _KEPT_FLAGS:
        if flags & bit:
            kept |= flag
    try:
        mount(None, point, None, MS_REMOUNT | MS_BIND | MS_RDONLY | kept)
    except SetupError:
        return False
    return True


def bring_up_loopback() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        request = struct.pack("16sH14x", b"lo", 0)
        flags = struct.unpack("16sH14x", _ioctl(sock, SIOCGIFFLAGS, request))[1]
        _ioctl(sock, SIOCSIFFLAGS, struct.pack("16sH14x", b"lo", flags | IFF_UP))


def _ioctl(sock: socket.socket, request: int, data: bytes) -> bytes:
    import fcntl

    return fcntl.ioctl(sock.fileno(), request, data)


def bind_from(fd: int, target: str, directory: bool = True) -> None:
    """Bind what `fd` names onto `target`, creating the mount point in a fresh tmpfs."""
    if directory:
        os.makedirs(target, exist_ok=True)
    elif not os.path.lexists(target):
        os.makedirs(os.path.dirname(target), exist_ok=True)
        os.close(os.open(target, os.O_CREAT | os.O_WRONLY, 0o600))
    mount(fd_path(fd), target, None, MS_BIND | MS_REC)


def build(spec: dict[str, Any], sockets: list[str]) -> dict[str, Any]:
    """Inside the new namespaces, as their PID 1: make the sandbox's filesystem."""
    tree = spec["tree"]
    report: dict[str, Any] = {
        "overlay": False,
        "read_only": False,
        "proc": False,
        "hidden": [],
        "failed": [],
    }
    mount(None, "/", None, MS_REC | MS_PRIVATE)
    options = f"lowerdir={tree},upperdir={spec['upper']},workdir={spec['work']}"
    try:
        mount("overlay", tree, "overlay", 0, options + ",userxattr")
    except SetupError:
        mount("overlay", tree, "overlay", 0, options)  # kernels before 5.11 have no userxattr
    report["overlay"] = True
    keep_fds: list[tuple[str, int]] = []
    for path in spec["keep"]:
        mount(path, path, None, MS_BIND | MS_REC)  # its own mount: left writable below
        keep_fds.append((path, os.open(path, os.O_PATH | os.O_DIRECTORY)))
    tree_fd = os.open(tree, os.O_PATH | os.O_DIRECTORY)
    allowed: list[tuple[str, int]] = []
    for path in spec.get("allow_sockets", []):
        try:
            if stat.S_ISSOCK(os.stat(path).st_mode):
                allowed.append((path, os.open(path, os.O_PATH)))
        except OSError:
            report["failed"].append(f"allowed socket not found: {path}")
    writable = [tree, *spec["keep"]]
    root_read_only = False
    for point in mount_points():
        if any(under(point, top) for top in writable) or under(point, "/proc"):
            continue
        if remount_read_only(point):
            root_read_only = root_read_only or point == "/"
        else:
            report["failed"].append(f"read-only: {point}")
    report["read_only"] = root_read_only
    hidden: list[str] = []
    for path in spec["hide"]:
        real = os.path.realpath(path)
        if not os.path.isdir(real) or any(under(real, h) for h in hidden) or under(real, tree):
            continue  # gone, hidden already, or part of the tree (the overlay holds it)
        mount("tmpfs", real, "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777")
        hidden.append(real)
    report["hidden"] = hidden
    if any(under(tree, h) for h in hidden):
        bind_from(tree_fd, tree)
    for path, fd in keep_fds:
        if any(under(path, h) for h in hidden):
            bind_from(fd, path)
    for path, fd in allowed:
        bind_from(fd, path, directory=False)
    allowed_paths = {path for path, _ in allowed}
    for path in sockets:
        if path in allowed_paths or any(under(path, h) for h in hidden):
            continue
        try:
            if stat.S_ISSOCK(os.lstat(path).st_mode):
                mount("/dev/null", path, None, MS_BIND)
        except (OSError, SetupError) as error:
            report["failed"].append(f"socket {path}: {error}")
    try:
        mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
        report["proc"] = True
    except SetupError as error:
        report["failed"].append(str(error))
    if not spec["network"]:
        try:
            bring_up_loopback()
        except OSError as error:
            report["failed"].append(f"loopback: {error}")
    return report


def probe(spec: dict[str, Any], report: dict[str, Any]) -> int:
    """Check the sandbox from inside: the tree is writable, the rest is not."""
    checks = dict(report)
    marker = os.path.join(spec["tree"], ".aish-probe")
    try:
        write_file(marker, "x")
        os.unlink(marker)
        checks["tree_writable"] = True
    except OSError:
        checks["tree_writable"] = False
    checks["outside_read_only"] = bool(os.statvfs("/").f_flag & os.ST_RDONLY)
    checks["pid"] = os.getpid()
    # The probe's answer to its parent (namespaces.sandbox_support): one JSON line on stdout.
    sys.stdout.write(json.dumps(checks) + "\n")
    sys.stdout.flush()
    return 0


def child(spec: dict[str, Any], sockets: list[str], argv: list[str]) -> int:
    ctypes.CDLL(None).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    try:
        report = build(spec, sockets)
    except (SetupError, OSError) as error:
        sys.stderr.write(f"aish sandbox: {error}\n")
        return 125
    if spec.get("probe"):
        return probe(spec, report)
    try:
        os.chdir(spec["cwd"])  # the cwd must be the overlay's directory, not the real one
    except OSError:
        os.chdir(spec["tree"])
    os.execv(argv[0], argv)  # never returns


def main() -> int:
    spec = json.loads(sys.argv[1])
    argv = sys.argv[2:]
    uid, gid = os.getuid(), os.getgid()
    sockets = host_sockets()
    flags = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID
    if not spec["network"]:
        flags |= CLONE_NEWNET
    try:
        _check(_libc.unshare(flags), "unshare")
        map_root(uid, gid)
    except (SetupError, OSError) as error:
        sys.stderr.write(f"aish sandbox: {error}\n")
        return 125
    pid = os.fork()
    if pid == 0:
        try:
            code = child(spec, sockets, argv)
        except BaseException as error:  # never return into the parent's code
            sys.stderr.write(f"aish sandbox: {error}\n")
            code = 126
        os._exit(code)
    return wait_for(pid)


def wait_for(pid: int) -> int:
    """Stay the parent of the sandbox's PID 1 and end it when our terminal hangs up."""

    def end(signum: int, frame: object) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)

    for signum in (signal.SIGHUP, signal.SIGTERM):
        signal.signal(signum, end)
    for signum in (signal.SIGINT, signal.SIGQUIT, signal.SIGTSTP, signal.SIGTTOU, signal.SIGTTIN):
        signal.signal(signum, signal.SIG_IGN)
    while True:
        try:
            _, status = os.waitpid(pid, 0)
        except InterruptedError:
            continue
        except ChildProcessError:
            return 0
        if os.WIFEXITED(status):
            return os.WEXITSTATUS(status)
        if os.WIFSIGNALED(status):
            return 128 + os.WTERMSIG(status)


if __name__ == "__main__":
    sys.exit(main())
