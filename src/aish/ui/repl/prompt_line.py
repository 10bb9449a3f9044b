"""The prompt line: `[aish:<model>] <cwd> <status>> `, or with ⚡ while Norris mode is on."""

from __future__ import annotations

import os

_MAX_CWD = 32


def shorten_cwd(cwd: str, home: str | None = None) -> str:
    """`~` for home; long paths keep their last components behind `…/`."""
    home = home if home is not None else os.path.expanduser("~")
    if home and (cwd == home or cwd.startswith(home.rstrip("/") + "/")):
        cwd = "~" + cwd[len(home.rstrip("/")) :]
    if len(cwd) <= _MAX_CWD:
        return cwd
    parts = cwd.split("/")
    kept: list[str] = []
    for part in reversed(parts):
        if len("/".join([part, *kept])) + 2 > _MAX_CWD and kept:
            break
        kept.insert(0, part)
    return "…/" + "/".join(kept)


def prompt_text(model: str, cwd: str, last_status: int, *, norris: bool = False) -> str:
    label = f"aish:{model}" + (" ⚡" if norris else "")
    status = f" [{last_status}]" if last_status else ""
    return f"[{label}] {shorten_cwd(cwd)}{status}> "
