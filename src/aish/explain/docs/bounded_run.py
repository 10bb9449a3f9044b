"""Running a documentation program (`man`, `prog --help`, bash's `help`) and reading what it
says as untrusted text: no input, a deadline, a cap on output, no controlling terminal, and
every terminal escape taken out before anyone sees it.
"""

from __future__ import annotations

import contextlib
import os
import re
import selectors
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence

__all__ = ["clean_text", "run_bounded"]

# Enough for the longest man pages (bash's is about 400 kB formatted at 100 columns).
OUTPUT_LIMIT = 1_000_000
_ESCAPES = re.compile(
    r"\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC (titles, hyperlinks)
    r"|\x1b[P^_X][^\x1b]*(?:\x1b\\)?"  # DCS, PM, APC, SOS strings
    r"|\x1b\[[0-?]*[ -/]*[@-~]"  # CSI (colours, cursor moves)
    r"|\x9b[0-?]*[ -/]*[@-~]"  # CSI in its 8-bit form
    r"|\x1b[ -/]*[0-~]?"  # the rest: two- and three-byte escapes
)
_OVERSTRIKE = re.compile(r".\x08")  # nroff's bold (`x\bx`) and underline (`_\bx`)
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def run_bounded(
    argv: Sequence[str],
    *,
    env: Mapping[str, str],
    cwd: str,
    timeout: float,
    limit: int = OUTPUT_LIMIT,
    executable: str | None = None,
    as_user: tuple[int, int] | None = None,
) -> bytes | None:
    """What `argv` writes (stdout and stderr together) within `timeout` seconds, cut at
    `limit` bytes; None when it could not start. `executable`: the file to run, when it is
    not `argv[0]` looked up on the PATH of `env`. Never raises for the program's behaviour: a
    program that overruns is killed with its whole process group. `as_user`: (uid, gid) to run
    as instead, with no supplementary groups (aish running as root)."""
    try:
        process = subprocess.Popen(
            list(argv),
            executable=executable,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            cwd=cwd,
            env=dict(env),
            close_fds=True,
            # No controlling terminal: nothing it starts can open /dev/tty and write to ours.
            start_new_session=True,
            user=None if as_user is None else as_user[0],
            group=None if as_user is None else as_user[1],
            extra_groups=None if as_user is None else [],
        )
    except OSError:
        return None
    assert process.stdout is not None
    chunks: list[bytes] = []
    size = 0
    deadline = time.monotonic() + timeout
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        while size < limit:
            left = deadline - time.monotonic()
            if left <= 0 or not selector.select(left):
                break
            chunk = os.read(process.stdout.fileno(), 65536)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    _stop(process)
    return b"".join(chunks)[:limit]


def _stop(process: subprocess.Popen[bytes]) -> None:
    """End the program and whatever it started (it led its own process group). Not yet
    waited for, its pid cannot have been reused, so the group is still its own."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    assert process.stdout is not None
    process.stdout.close()
    process.wait()


def clean_text(raw: bytes) -> str:
    """`raw` as text a terminal shows as plain characters: escapes, overstrikes and other
    control characters removed (tabs and newlines kept)."""
    text = raw.decode("utf-8", "replace").replace("\r\n", "\n")
    text = _ESCAPES.sub("", text)
    while _OVERSTRIKE.search(text):
        text = _OVERSTRIKE.sub("", text)
    return _CONTROLS.sub("", text)
