"""Checks the schema attaches to its fields, for pydantic to run when a config is validated.

The schema's classes are plain dataclasses, so that a start which takes the kept config
(`validated_cache`) never imports pydantic (about a third of the time to the first prompt).
Validation happens only when the sources changed, through `aish.config.validation`; these
markers tell it what to check beyond the types. Each one builds its pydantic-core schema on
demand, so defining the schema imports nothing but this module.

    endpoint: Annotated[str, After(check_http_url)]      # a ValueError is the key's problem
    warn_at_dollars: Annotated[list[...], Before(...)]    # reshapes what was written first
    list[Annotated[float, Bounds(ge=0)]]                  # bounds on an item, not the list

Bounds of a key itself go into `setting(...)` (field metadata pydantic reads as `Field`
arguments); `config.schema_fields` reads them back for the reference and the warnings.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import MISSING, Field, field
from typing import Any, Final

__all__ = ["After", "Before", "Bounds", "setting"]

# The `Field` arguments the schema uses, kept in field metadata.
BOUND_NAMES: Final = ("ge", "gt", "le", "lt", "min_length")


class After:
    """Run `check` on the validated value; it returns the value to keep or raises ValueError."""

    def __init__(self, check: Callable[[Any], Any]) -> None:
        self.check = check

    def __get_pydantic_core_schema__(self, source: Any, handler: Callable[[Any], Any]) -> Any:
        from pydantic_core import core_schema

        return core_schema.no_info_after_validator_function(self.check, handler(source))


class Before:
    """Run `reshape` on the value as written, before its type is checked."""

    def __init__(self, reshape: Callable[[Any], Any]) -> None:
        self.reshape = reshape

    def __get_pydantic_core_schema__(self, source: Any, handler: Callable[[Any], Any]) -> Any:
        from pydantic_core import core_schema

        return core_schema.no_info_before_validator_function(self.reshape, handler(source))


class Bounds:
    """Numeric bounds (`ge`, `gt`, `le`, `lt`) on a value that is not a key of its own."""

    def __init__(self, **bounds: float) -> None:
        self.bounds = bounds

    def __get_pydantic_core_schema__(self, source: Any, handler: Callable[[Any], Any]) -> Any:
        return {**handler(source), **self.bounds}


def setting(
    default: Any = MISSING,
    *,
    factory: Callable[[], Any] | None = None,
    alias: str | None = None,
    **bounds: float,
) -> Any:
    """A schema field: its default (or `factory`), the name written in TOML when it differs
    from the attribute's, and its bounds (`ge=1`, `gt=0`, `le=2`, `min_length=1`)."""
    unknown = set(bounds) - set(BOUND_NAMES)
    if unknown:
        raise TypeError(f"unknown bounds {sorted(unknown)}")
    metadata: dict[str, Any] = dict(bounds)
    if alias is not None:
        metadata["alias"] = alias
    made: Field[Any]
    if factory is not None:
        made = field(default_factory=factory, metadata=metadata)
    else:
        made = field(default=default, metadata=metadata)
    return made
