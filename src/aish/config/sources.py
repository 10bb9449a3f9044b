"""`:config`: every value of the effective config with the source it came from.

Sources are the loader's labels made readable: `default`, `user file <path>`, `project file
<path>`, `env AISH_…`, `flag --…` (and `autodetect` for presets found by probing). A value no
layer set — a preset's timeout the user never wrote — is a default, even inside a table that a
file declared. Credentials are never shown.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from aish.config.layers import dotted, leaves
from aish.config.project import shown_value
from aish.config.schema_fields import toml_data
from aish.config.toml_locations import KeyPath

if TYPE_CHECKING:
    from aish.config.loader import LoadedConfig

PRECEDENCE = "default < user file < project file < env < flag"
_AS_IS = ("default", "autodetect", "env ", "flag ", "project file ")


def source_label(raw: str) -> str:
    """The loader's label for a source as `:config` shows it."""
    if any(raw == prefix or raw.startswith(prefix) for prefix in _AS_IS):
        return raw
    return f"user file {raw}"  # the user file's layer is named by its path


def source_of(sources: dict[str, str], path: KeyPath) -> str:
    """Where the value at `path` came from: its own entry, else the nearest table's, else
    `default`."""
    for end in range(len(path), 0, -1):
        label = sources.get(dotted(path[:end]))
        if label is not None:
            return source_label(label)
    return "default"


def project_line(loaded: LoadedConfig) -> str:
    """One line on the project file: none, applied, or ignored until `:trust`."""
    path = loaded.project_file
    if path is None:
        return "project file: none"
    if loaded.project_trusted:
        return f"project file: {path} (trusted, applied)"
    return f"project file: {path} (not applied: not trusted, or changed since; :trust to use it)"


def config_sources_lines(loaded: LoadedConfig) -> list[str]:
    """`key = value  (source)` for every leaf of the effective config, in schema order."""
    data = toml_data(loaded.config)
    return [
        f"{dotted(path)} = {shown_value(path, value)}  ({source_of(loaded.sources, path)})"
        for path, value in leaves(data)
    ]
