"""Config layers: raw nested tables from one source each, merged in precedence order.

A layer is what one source (the user file, the environment, the command line, autodetection)
says, as plain dicts before validation. Layers know how to name themselves in a warning, so
the loader can blame the right file line, variable or flag for a bad value, and how to drop
one key so the rest of the source still counts.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from aish.config.toml_locations import KeyPath, line_of

Table = dict[str, Any]


@dataclass(frozen=True)
class Problem:
    """One thing wrong with one key, in words, before a layer says where it came from."""

    key: KeyPath  # the key the message is about (a missing key is not in the layer)
    drop: KeyPath  # what the layer loses: the key itself, or the table that requires it
    message: str
    unknown_key: bool = False
    suggestion: str | None = None

    def detail(self) -> str:
        if self.unknown_key:
            hint = f" (did you mean {self.suggestion}?)" if self.suggestion else ""
            return f"unknown key{hint}"
        if len(self.drop) < len(self.key):
            return f"{self.message}; {dotted(self.drop)} ignored"
        return self.message


def dotted(path: KeyPath) -> str:
    """`models.fast.timeout_s`, `safety.allow[2]`, `models."a.b".model`."""
    text = ""
    for part in path:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            plain = part and all(char.isalnum() or char in "_-" for char in part)
            name = part if plain else '"' + part.replace('"', '\\"') + '"'
            text += f".{name}" if text else name
    return text


def existing_depth(data: Table, path: KeyPath) -> int:
    """How many leading parts of `path` name something that exists in `data`."""
    node: Any = data
    for depth, part in enumerate(path):
        in_table = isinstance(node, dict) and isinstance(part, str) and part in node
        in_array = isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node)
        if not (in_table or in_array):
            return depth
        node = node[part]
    return len(path)


def delete_path(data: Table, path: KeyPath) -> None:
    """Remove the key or list item at `path`; a path that is already gone is fine."""
    if not path or existing_depth(data, path) < len(path):
        return
    node: Any = data
    for part in path[:-1]:
        node = node[part]
    del node[path[-1]]


def leaves(data: Mapping[str, Any], prefix: KeyPath = ()) -> Iterator[tuple[KeyPath, Any]]:
    """Every non-table value with its path; an empty table counts as a value."""
    for key, value in data.items():
        path = (*prefix, key)
        if isinstance(value, dict) and value:
            yield from leaves(value, path)
        else:
            yield path, value


def merge(base: Table, over: Mapping[str, Any]) -> Table:
    """A new table: `over` on top of `base`, tables merged key by key, anything else replaced."""
    merged = dict(base)
    for key, value in over.items():
        below = merged.get(key)
        if isinstance(value, dict) and isinstance(below, dict):
            merged[key] = merge(below, value)
        else:
            merged[key] = value
    return merged


@dataclass
class Layer:
    """One source of values. `name` labels every key it sets unless `origins` says better."""

    name: str
    data: Table = field(default_factory=dict)
    # Finer labels for parts of the data: `env AISH_ROUTING__AUTO`, `flag --model`.
    origins: dict[KeyPath, str] = field(default_factory=dict)

    def source_of(self, path: KeyPath) -> str:
        for end in range(len(path), 0, -1):
            label = self.origins.get(path[:end])
            if label is not None:
                return label
        return self.name

    def title(self) -> str:
        """What to call the whole source in a message."""
        return self.name

    def drop(self, path: KeyPath) -> None:
        delete_path(self.data, path)

    def retry_as_text(self, path: KeyPath) -> bool:
        """Offer the value at `path` as plain text instead; False when there is no such form."""
        return False

    def describe(self, problem: Problem) -> str:
        return f"{self.name}: key {dotted(problem.key)}: {problem.detail()}"


@dataclass
class FileLayer(Layer):
    """The user's TOML file; problems are reported as `<file>:<line>: key <key>: …`."""

    display: str = "config.toml"
    lines: dict[KeyPath, int] = field(default_factory=dict)

    def title(self) -> str:
        return self.display

    def where(self, path: KeyPath) -> str:
        line = line_of(self.lines, path)
        return self.display if line is None else f"{self.display}:{line}"

    def describe(self, problem: Problem) -> str:
        return f"{self.where(problem.key)}: key {dotted(problem.key)}: {problem.detail()}"


@dataclass
class VariableLayer(Layer):
    """Values set one key at a time (environment variables, flags), each with its own label."""

    # For values parsed as TOML: the text as written, tried when the parsed value is refused
    # (`AISH_DEFAULT_MODEL=123` means the preset named "123", not the number).
    texts: dict[KeyPath, str] = field(default_factory=dict)

    def origins_near(self, path: KeyPath) -> list[tuple[KeyPath, str]]:
        """The settings at, above or below `path`."""
        return [
            (origin, label)
            for origin, label in self.origins.items()
            if origin[: len(path)] == path or path[: len(origin)] == origin
        ]

    def retry_as_text(self, path: KeyPath) -> bool:
        retried = False
        for origin, _label in self.origins_near(path):
            text = self.texts.pop(origin, None)
            if text is not None and existing_depth(self.data, origin) == len(origin):
                node: Any = self.data
                for part in origin[:-1]:
                    node = node[part]
                node[origin[-1]] = text
                retried = True
        return retried

    def describe(self, problem: Problem) -> str:
        near = self.origins_near(problem.drop)
        labels = ", ".join(sorted({label for _origin, label in near})) or self.name
        key = dotted(problem.key)
        if problem.unknown_key:
            return f"{labels}: unknown config key {key}"
        if len(near) == 1 and near[0][0] == problem.key:
            return f"{labels}: {problem.detail()}"
        return f"{labels}: key {key}: {problem.detail()}"


def put_path(data: Table, path: tuple[str, ...], value: object) -> str | None:
    """Set `value` at `path`, creating tables; say why not when a non-table is in the way."""
    node = data
    for depth, part in enumerate(path[:-1]):
        child = node.setdefault(part, {})
        if not isinstance(child, dict):
            return f"{dotted(path[: depth + 1])} is already set to a value, not a table"
        node = child
    below = node.get(path[-1])
    if isinstance(below, dict) and below:
        return f"{dotted(path)} already has keys set below it"
    node[path[-1]] = value
    return None
