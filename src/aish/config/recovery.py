"""Validation that survives mistakes: bad keys are reported one line each and dropped.

The merged layers are validated; each error is traced (by its location) to the layer that
supplied the value, that key alone is removed, and validation runs again. One typo therefore
costs one key, not the user's other presets. Only if a few rounds cannot make the data valid is
a whole layer set aside, with a warning saying so.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, get_args, get_origin

from aish.config.layers import Layer, Problem, existing_depth, merge
from aish.config.schema import AishConfig
from aish.config.schema_fields import fields_of, is_section, without_none
from aish.config.toml_locations import KeyPath
from aish.config.validation import ValidationError, is_unknown_key, validate_config

if TYPE_CHECKING:
    from pydantic_core import ErrorDetails

# Each round removes every key the previous validation flagged; errors that only show up once
# others are fixed (a default_model naming a dropped preset) need another round or two.
MAX_ROUNDS = 6
# Values of these keys are never quoted back in a warning: they may hold credentials.
_SENSITIVE_PARTS = frozenset({"api_key", "api_key_env", "headers", "env"})
_MAX_SHOWN_VALUE = 40
# Pydantic's wording for type errors speaks of Python; these speak of TOML.
_FRIENDLY = {
    "model_type": "must be a table",
    "model_attributes_type": "must be a table",
    "dataclass_type": "must be a table",
    "dict_type": "must be a table",
    "list_type": "must be an array",
    "string_type": "must be a string",
    "bool_type": "must be true or false",
    "bool_parsing": "must be true or false",
    "int_type": "must be a whole number",
    "int_parsing": "must be a whole number",
    "int_from_float": "must be a whole number",
    "float_type": "must be a number",
    "float_parsing": "must be a number",
}


def validate_layers(layers: Sequence[Layer]) -> tuple[AishConfig, list[str]]:
    """The config the layers describe, dropping what is invalid; warnings say what was dropped.

    Layers are listed lowest precedence first and are edited in place, so afterwards they hold
    exactly the values that took effect (the loader builds the sources map from them).
    """
    warnings: list[str] = []
    for _ in range(MAX_ROUNDS):
        try:
            return validate_config(merge_all(layers)), warnings
        except ValidationError as exc:
            if not _drop_offending(exc, layers, warnings):
                break
    for layer in layers:
        if not layer.data:
            continue
        layer.data.clear()
        warnings.append(
            f"{layer.title()}: still invalid after dropping bad keys; all of it ignored"
        )
        try:
            return validate_config(merge_all(layers)), warnings
        except ValidationError:
            continue
    return AishConfig(), warnings


def merge_all(layers: Sequence[Layer]) -> dict[str, Any]:
    merged: dict[str, Any] = {}
    for layer in layers:
        merged = merge(merged, layer.data)
    return merged


def _drop_offending(exc: ValidationError, layers: Sequence[Layer], warnings: list[str]) -> bool:
    """Report and drop the keys behind `exc`'s errors; False when none could be traced."""
    found: dict[tuple[int, KeyPath], list[Problem]] = {}
    retried: set[tuple[int, KeyPath]] = set()
    for error in exc.errors(include_url=False):
        loc = tuple(error["loc"])
        owner = _owner(layers, loc)
        if owner is None:
            continue
        index, depth = owner
        path = loc[:depth]
        if (index, path) in retried:
            continue
        # `AISH_DEFAULT_MODEL=123` parsed as a number; as text it may well be right.
        if not is_unknown_key(error["type"]) and layers[index].retry_as_text(path):
            retried.add((index, path))
            continue
        problem = _problem(error, loc, path)
        found.setdefault((index, problem.key), []).append(problem)
    drops: set[tuple[int, KeyPath]] = set()
    for (index, _key), problems in found.items():
        first = problems[0]
        message = "; ".join(dict.fromkeys(problem.message for problem in problems))
        warnings.append(layers[index].describe(replace(first, message=message)))
        drops.add((index, first.drop))
    # Deepest and last items first, so removing one never shifts another list item's index.
    for index, path in sorted(drops, key=lambda item: (item[0], _sort_key(item[1])), reverse=True):
        layers[index].drop(path)
    return bool(found or retried)


def _owner(layers: Sequence[Layer], loc: KeyPath) -> tuple[int, int] | None:
    """The layer whose value the error is about: the one holding most of `loc`, ties going to
    the higher precedence (its value is the one that took effect)."""
    best: tuple[int, int] | None = None
    for index in reversed(range(len(layers))):
        depth = existing_depth(layers[index].data, loc)
        if depth and (best is None or depth > best[1]):
            best = (index, depth)
    return best


def _problem(error: ErrorDetails, loc: KeyPath, path: KeyPath) -> Problem:
    """Words for one error; `path` is the part of `loc` present in the layer."""
    kind = error["type"]
    if kind == "missing" and len(loc) > len(path):
        return Problem(loc[: len(path) + 1], path, "required key missing")
    if is_unknown_key(kind):
        return Problem(path, path, "unknown key", unknown_key=True, suggestion=_suggest(path))
    message = _FRIENDLY.get(kind) or error["msg"].removeprefix("Value error, ")
    message = message.replace("Input should be", "must be", 1)
    shown = _shown_value(error["input"], path, type_error=kind in _FRIENDLY)
    if shown is not None and kind != "unknown_preset":
        message += f" (got {shown})"
    # Without a required key its table cannot stand, so the table goes, in one step. The same
    # for a bad credential: a preset without its key would send unauthenticated requests.
    drop = path[:-1] if len(path) > 1 and (_is_required(path) or _is_credential(path)) else path
    return Problem(path, drop, message)


def _shown_value(value: object, path: KeyPath, *, type_error: bool) -> str | None:
    if _SENSITIVE_PARTS.intersection(part for part in path if isinstance(part, str)):
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, str):
        clipped = value if len(value) <= _MAX_SHOWN_VALUE else value[:_MAX_SHOWN_VALUE] + "…"
        return repr(clipped)
    if type_error and isinstance(value, list):
        return "an array"
    if type_error and isinstance(value, dict):
        return "a table"
    return None


def _suggest(path: KeyPath) -> str | None:
    name = path[-1]
    model = _model_at(path[:-1])
    if not isinstance(name, str) or model is None:
        return None
    matches = difflib.get_close_matches(name, list(fields_of(model)), n=1, cutoff=0.6)
    return matches[0] if matches else None


_CREDENTIAL_KEYS = frozenset({"api_key", "api_key_env"})


def _is_credential(path: KeyPath) -> bool:
    return len(path) == 3 and path[0] == "models" and str(path[-1]) in _CREDENTIAL_KEYS


def _is_required(path: KeyPath) -> bool:
    model = _model_at(path[:-1])
    info = None if model is None else fields_of(model).get(str(path[-1]))
    return info is not None and info.required


def _model_at(table: KeyPath) -> type | None:
    """The schema class describing the table at `table`, if it is one."""
    annotation: Any = AishConfig
    for part in table:
        if is_section(annotation):
            info = fields_of(annotation).get(str(part))
            if info is None:
                return None
            annotation = without_none(info.annotation)
        elif get_origin(annotation) is dict:
            annotation = without_none(get_args(annotation)[1])
        else:
            return None
    return annotation if is_section(annotation) else None


def _sort_key(path: KeyPath) -> list[tuple[int, int, str]]:
    return [(0, part, "") if isinstance(part, int) else (1, 0, part) for part in path]
