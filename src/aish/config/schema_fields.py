"""The schema read as data: each class's keys, their types, bounds and defaults.

For what describes the config rather than holds it — the generated reference, the "did you
mean" of an unknown key, which keys are required — without pydantic: the schema is plain
dataclasses and `setting(...)` keeps a key's TOML name and bounds in its field metadata.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from dataclasses import dataclass
from functools import cache
from typing import Annotated, Any, Union, get_args, get_origin

from aish.config.field_checks import BOUND_NAMES, Bounds

__all__ = ["SchemaField", "bare", "fields_of", "is_section", "toml_data", "without_none"]


@dataclass(frozen=True)
class SchemaField:
    """One key of a schema class."""

    name: str  # the attribute
    key: str  # as written in TOML (differs for `import`)
    annotation: Any  # the type, markers removed; `X | None` stays as it is
    shown: Any  # the same with the bounds of list items kept, for the reference
    bounds: dict[str, float]
    required: bool
    default: Any  # the default value (a factory's product); None when required

    @property
    def optional(self) -> bool:
        return without_none(self.annotation) is not self.annotation


@cache
def fields_of(section: type) -> dict[str, SchemaField]:
    """A schema class's keys by their TOML name, in declaration order."""
    hints = typing.get_type_hints(section, include_extras=True)
    found: dict[str, SchemaField] = {}
    for item in dataclasses.fields(section):
        metadata = item.metadata
        required = (
            item.default is dataclasses.MISSING and item.default_factory is dataclasses.MISSING
        )
        if item.default_factory is not dataclasses.MISSING:
            default = item.default_factory()
        else:
            default = None if required else item.default
        key = metadata.get("alias", item.name)
        found[key] = SchemaField(
            name=item.name,
            key=key,
            annotation=bare(hints[item.name]),
            shown=bare(hints[item.name], keep_bounds=True),
            bounds={name: metadata[name] for name in BOUND_NAMES if name in metadata},
            required=required,
            default=default,
        )
    return found


def is_section(annotation: Any) -> bool:
    """Whether `annotation` is one of the schema's classes (a TOML table)."""
    return isinstance(annotation, type) and dataclasses.is_dataclass(annotation)


def bare(annotation: Any, *, keep_bounds: bool = False) -> Any:
    """The type without its checks: `Annotated[X, After(…)]` → `X`, inside lists, tables
    and unions too. `keep_bounds`: an item's `Bounds` stay (`list[Annotated[float,
    Bounds(ge=0)]]`), for a reader that shows them."""
    origin = get_origin(annotation)
    if origin is Annotated:
        inner, *extras = get_args(annotation)
        kept = [extra for extra in extras if keep_bounds and isinstance(extra, Bounds)]
        stripped = bare(inner, keep_bounds=keep_bounds)
        return Annotated[(stripped, *kept)] if kept else stripped
    if origin in (list, dict):
        return origin[tuple(bare(arg, keep_bounds=keep_bounds) for arg in get_args(annotation))]
    if origin in (Union, types.UnionType):
        args = tuple(bare(arg, keep_bounds=keep_bounds) for arg in get_args(annotation))
        return Union[args]  # noqa: UP007
    return annotation


def without_none(annotation: Any) -> Any:
    """`X | None` → `X`; anything else as it is."""
    if get_origin(annotation) in (Union, types.UnionType):
        rest = [arg for arg in get_args(annotation) if arg is not type(None)]
        if len(rest) == 1:
            return rest[0]
    return annotation


def toml_data(value: Any) -> Any:
    """A config (or any part of it) as the data TOML would hold: tables by their TOML key
    names, lists and scalars as they are."""
    section: type = type(value)
    if is_section(section):
        return {
            field.key: toml_data(getattr(value, field.name))
            for field in fields_of(section).values()
        }
    if isinstance(value, dict):
        return {key: toml_data(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [toml_data(item) for item in value]
    return value
