"""`aish route`: show where lines would go, as JSON lines, without running anything.

With arguments, the joined arguments are one line; without, every line of stdin is routed.
Each decision is printed as `{"line": …, "route": "shell"|"model"|"meta", "reason": …}`.

`aish route --class` says instead which class of model a text wants and the preset the config
gives it: `{"text": …, "class": "code"|"reasoning"|"default", "preset": …|null, "reason": …}`.
There the two characters backslash-n mean a line break, so one line of stdin can hold a paste.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from typing import TYPE_CHECKING, TextIO

from aish.agent.model_class import classify_model
from aish.agent.routing.paths import paths_under
from aish.agent.routing.router import KnownCommands, route_line

if TYPE_CHECKING:
    from aish.config.schema import RoutingConfig

__all__ = ["decode_text", "run_class_command", "run_route_command"]

EXIT_OK = 0


def run_route_command(args: list[str], stdin: TextIO, stdout: TextIO) -> int:
    """Route `args` joined by spaces, or each line of `stdin` when there are no `args`."""
    known = KnownCommands.from_system()
    names_path = paths_under(os.getcwd())  # `aish route` runs where the user is
    for line in _inputs(args, stdin):
        route = route_line(line, known, names_path)
        record = {"line": line, "route": route.target, "reason": route.reason}
        stdout.write(json.dumps(record, ensure_ascii=False) + "\n")
        stdout.flush()
    return EXIT_OK


def run_class_command(
    args: list[str], stdin: TextIO, stdout: TextIO, routing: RoutingConfig
) -> int:
    """Classify `args` joined by spaces, or each line of `stdin`, by the model class it wants."""
    for line in _inputs(args, stdin):
        text = decode_text(line)
        choice = classify_model(text, routing)
        record = {
            "text": text,
            "class": choice.model_class,
            "preset": choice.preset,
            "reason": choice.reason,
        }
        stdout.write(json.dumps(record, ensure_ascii=False) + "\n")
        stdout.flush()
    return EXIT_OK


def decode_text(line: str) -> str:
    """One line as the text it stands for: the two characters backslash-n are a line break."""
    return line.replace("\\n", "\n")


def _inputs(args: list[str], stdin: TextIO) -> Iterable[str]:
    return [" ".join(args)] if args else (raw.rstrip("\r\n") for raw in stdin)
