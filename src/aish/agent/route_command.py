"""`aish route`: show where lines would go, as JSON lines, without running anything.

With arguments, the joined arguments are one line; without, every line of stdin is routed.
Each decision is printed as `{"line": …, "route": "shell"|"model"|"meta", "reason": …}`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import TextIO

from aish.agent.routing import KnownCommands, route_line

__all__ = ["run_route_command"]

EXIT_OK = 0


def run_route_command(args: list[str], stdin: TextIO, stdout: TextIO) -> int:
    """Route `args` joined by spaces, or each line of `stdin` when there are no `args`."""
    known = KnownCommands.from_system()
    lines: Iterable[str] = [" ".join(args)] if args else (raw.rstrip("\r\n") for raw in stdin)
    for line in lines:
        route = route_line(line, known)
        record = {"line": line, "route": route.target, "reason": route.reason}
        stdout.write(json.dumps(record, ensure_ascii=False) + "\n")
        stdout.flush()
    return EXIT_OK
