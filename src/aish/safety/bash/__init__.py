"""Bash as the classifier reads it: the tree-sitter parse (`syntax`), the walk over every
simple command and redirection (`command_walk`), wrappers that run other commands, options as
getopt-style programs read them, expansions (brace, history, arithmetic), what a line assigns,
the live shell's aliases and functions (`live_shell`), and whether typed text is unfinished
(`continuation`). Pure; tree-sitter is loaded on first parse, never by importing this face.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from aish._lazy_face import lazy_names

if TYPE_CHECKING:
    from aish.safety.bash.command_walk import Arg, Invocation, Redirect, walk_bash
    from aish.safety.bash.continuation import Unfinished, unfinished
    from aish.safety.bash.live_shell import ShellFacts
    from aish.safety.bash.syntax import BashLine, SimpleCommand, parse_bash
    from aish.safety.bash.wrappers import is_wrapper, unwrap

__all__ = [
    "Arg",
    "BashLine",
    "Invocation",
    "Redirect",
    "ShellFacts",
    "SimpleCommand",
    "Unfinished",
    "is_wrapper",
    "parse_bash",
    "unfinished",
    "unwrap",
    "walk_bash",
]

# Public name → module that defines it, resolved on first use so that importing one module of
# this room does not load the others.
_HOMES = {
    "Arg": "aish.safety.bash.command_walk",
    "BashLine": "aish.safety.bash.syntax",
    "Invocation": "aish.safety.bash.command_walk",
    "Redirect": "aish.safety.bash.command_walk",
    "ShellFacts": "aish.safety.bash.live_shell",
    "SimpleCommand": "aish.safety.bash.syntax",
    "Unfinished": "aish.safety.bash.continuation",
    "parse_bash": "aish.safety.bash.syntax",
    "is_wrapper": "aish.safety.bash.wrappers",
    "unfinished": "aish.safety.bash.continuation",
    "unwrap": "aish.safety.bash.wrappers",
    "walk_bash": "aish.safety.bash.command_walk",
}

__getattr__ = lazy_names(__name__, _HOMES)
