"""Lazy faces: a room's `__init__` names what the room offers without importing it.

A face maps each public name to the module that defines it and hands the map to `lazy_names`;
the module-level `__getattr__` it returns (PEP 562) imports a name's module on first use. So
`import aish.safety.bash`, or importing one module of a room, does not load the rest of the room
(tree-sitter, pyte, pydantic …), and start-up pays only for what the first prompt uses. Type
checkers see the same names through the face's `if TYPE_CHECKING:` imports.

    _HOMES = {"parse_bash": "aish.safety.bash.syntax", "unwrap": "aish.safety.bash.wrappers"}
    __getattr__ = lazy_names(__name__, _HOMES)

A public name must not also be the name of a module in the room: importing that module sets
the package attribute of the same name, and the face would then hand out the module.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping

__all__ = ["lazy_names"]


def lazy_names(face: str, homes: Mapping[str, str]) -> Callable[[str], object]:
    """The `__getattr__` of the face module `face`: `homes` maps public name → defining module."""

    def __getattr__(name: str) -> object:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {face!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(home), name)
        setattr(sys.modules[face], name, value)  # later lookups skip this function
        return value

    return __getattr__
