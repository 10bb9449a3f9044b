"""Routing: where a typed line goes — the shell, the model or a meta command (SPEC §1).

`router` decides (`route_line`, pure and deterministic: a tree-sitter parse, the caller's
`KnownCommands` and a test of names in the shell's cwd); `english` is the English-sentence
exception and `operands` what common commands' operands look like; `names` the names bash
knows without PATH; `repair` stand-ins for valid bash tree-sitter misreads; `paths` the cwd
test the REPL hands the router; `continuation` whether Enter asks for another line; and
`subcommand` is `aish route`. Callers outside this room import this lazy face.

Looks at no disk, PATH or environment itself except through what its callers hand it (and
`aish route`'s own reading of them). Imports nothing from `ui`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from aish._lazy_face import lazy_names

if TYPE_CHECKING:
    from aish.agent.routing.continuation import needs_another_line
    from aish.agent.routing.paths import paths_under
    from aish.agent.routing.router import (
        NO_PATHS,
        KnownCommands,
        NameTest,
        Route,
        RouteTarget,
        route_line,
    )
    from aish.agent.routing.subcommand import run_class_command, run_route_command

__all__ = [
    "NO_PATHS",
    "KnownCommands",
    "NameTest",
    "Route",
    "RouteTarget",
    "needs_another_line",
    "paths_under",
    "route_line",
    "run_class_command",
    "run_route_command",
]

# Public name → module that defines it, resolved on first use.
_HOMES = {
    "NO_PATHS": "aish.agent.routing.router",
    "KnownCommands": "aish.agent.routing.router",
    "NameTest": "aish.agent.routing.router",
    "Route": "aish.agent.routing.router",
    "RouteTarget": "aish.agent.routing.router",
    "needs_another_line": "aish.agent.routing.continuation",
    "paths_under": "aish.agent.routing.paths",
    "route_line": "aish.agent.routing.router",
    "run_class_command": "aish.agent.routing.subcommand",
    "run_route_command": "aish.agent.routing.subcommand",
}

__getattr__ = lazy_names(__name__, _HOMES)
