"""A program's manual page, formatted by the local `man` as plain text."""

from __future__ import annotations

import os
import shutil

from aish.explain.docs.bounded_run import clean_text, run_bounded

__all__ = ["has_man_page", "read_man_page"]

# Wide enough that option headers and their descriptions rarely wrap.
_WIDTH = "100"
# Sections that document programs: user commands, administration, games.
_SECTIONS = "--sections=1,8,6"
_TIMEOUT = 10.0


def read_man_page(name: str) -> str | None:
    """The man page of program `name` as `man` prints it to a pipe, or None without one.
    `name` is a plain program name (the caller checked it): `man` never gets a path."""
    man = shutil.which("man")
    if man is None:
        return None
    raw = run_bounded(
        # No hyphenation or justification: descriptions read as written, options stay whole.
        [man, "-P", "cat", "--nh", "--nj", _SECTIONS, "--", name],
        env=_env(),
        cwd="/",
        timeout=_TIMEOUT,
    )
    if not raw:
        return None
    text = clean_text(raw)
    # man says "No manual entry for x" on stderr, which is read together with stdout.
    return None if text.startswith("No manual entry") or "\n" not in text.strip() else text


def has_man_page(name: str) -> bool:
    """Whether `man` finds a page for `name` (cheap: nothing is formatted)."""
    man = shutil.which("man")
    if man is None:
        return False
    raw = run_bounded([man, "-w", _SECTIONS, "--", name], env=_env(), cwd="/", timeout=_TIMEOUT)
    return raw is not None and raw.startswith(b"/")


def _env() -> dict[str, str]:
    """The user's environment (their MANPATH, their man config) with the output made plain,
    in English (the options are found by shape, the words shown are the page's)."""
    env = {k: v for k, v in os.environ.items() if k not in ("MANOPT", "MAN_KEEP_FORMATTING")}
    env.update(
        MANWIDTH=_WIDTH, MANPAGER="cat", PAGER="cat", LC_ALL="C.UTF-8", LANGUAGE="", TERM="dumb"
    )
    return env
