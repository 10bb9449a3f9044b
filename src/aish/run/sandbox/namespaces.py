"""What the kernel allows: can this process build the sandbox here?

Asked once per process and remembered: the launcher builds a real sandbox over a scratch tree
in probe mode (user, mount, PID and network namespaces, the overlay, the read-only remount, a
fresh /proc) and reports from inside what worked. Anything short of an overlay over a writable
tree with the rest read-only means "not available", with the reason in one line.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from functools import cache
from pathlib import Path

__all__ = ["LAUNCHER", "SandboxSupport", "launcher_argv", "sandbox_support"]

LAUNCHER = Path(__file__).with_name("launcher.py")
_PROBE_TIMEOUT_S = 20.0


@dataclass(frozen=True)
class SandboxSupport:
    available: bool
    reason: str = ""  # why not, in a few words
    fresh_proc: bool = False  # /proc shows only the sandbox's processes


def launcher_argv(spec: dict[str, object]) -> list[str]:
    """The command line that runs the launcher with `spec` (the program follows it)."""
    # -I -S: no site-packages, no user paths: the launcher is the standard library only.
    return [sys.executable, "-I", "-S", str(LAUNCHER), json.dumps(spec)]


@cache
def sandbox_support() -> SandboxSupport:
    """Whether a sandbox can be built here (probed once per process)."""
    if not sys.platform.startswith("linux"):
        return SandboxSupport(False, "the sandbox needs Linux namespaces")
    scratch = Path(tempfile.mkdtemp(prefix="aish-sandbox-probe-"))
    try:
        for name in ("tree", "upper", "work", "rc"):
            (scratch / name).mkdir()
        spec = {
            "tree": str(scratch / "tree"),
            "upper": str(scratch / "upper"),
            "work": str(scratch / "work"),
            "keep": [str(scratch / "rc")],
            "cwd": str(scratch / "tree"),
            "network": False,
            "hide": [tempfile.gettempdir(), "/run", "/dev/shm"],
            "probe": True,
        }
        try:
            done = subprocess.run(
                launcher_argv(spec),
                capture_output=True,
                text=True,
                timeout=_PROBE_TIMEOUT_S,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as error:
            return SandboxSupport(False, f"the sandbox launcher did not run: {error}")
        if done.returncode != 0:
            said = (done.stderr.strip().splitlines() or ["no reason given"])[-1]
            return SandboxSupport(False, said.removeprefix("aish sandbox: "))
        try:
            report = json.loads(done.stdout.strip().splitlines()[-1])
        except (ValueError, IndexError):
            return SandboxSupport(False, "the sandbox probe said nothing readable")
        if not report.get("tree_writable"):
            return SandboxSupport(False, "the overlay is not writable")
        if not report.get("outside_read_only"):
            return SandboxSupport(False, "the rest of the filesystem could not be made read-only")
        return SandboxSupport(True, fresh_proc=bool(report.get("proc")))
    finally:
        _remove_tree(scratch)


def _remove_tree(path: Path) -> None:
    """Remove a sandbox directory; the overlay's work dir leaves a mode-000 directory behind."""
    for inner in path.rglob("*"):
        if inner.is_dir() and not inner.is_symlink():
            try:
                inner.chmod(0o700)
            except OSError:
                continue
    shutil.rmtree(path, ignore_errors=True)
