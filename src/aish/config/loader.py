"""Layered loading: built-in defaults < user file < (project file) < AISH_* environment < flags.

A bad file never stops aish: syntax errors set the file aside, invalid keys are dropped one by
one, and every problem becomes one warning line naming the file and line (or the variable, or
the flag). The CLI prints the warnings; nothing here prints.
"""

from __future__ import annotations

import logging
import os
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from aish.config import autodetect as zero_config
from aish.config.layers import FileLayer, Layer, VariableLayer, dotted, leaves
from aish.config.overrides import environment_layer, flags_layer
from aish.config.paths import CONFIG_PATH_VARIABLE, config_file, default_config_file
from aish.config.recovery import validate_layers
from aish.config.schema import AishConfig
from aish.config.toml_locations import KeyPath, locate_keys

# tomllib puts the position at the end of its message; aish shows it as `file:LINE:` instead.
_TOML_POSITION = re.compile(r"\s*\((?:at line (\d+), column \d+|at end of document)\)\s*$")


@dataclass
class LoadedConfig:
    """The validated config and how it came to be."""

    config: AishConfig
    # One line each, ready to print after `aish: `.
    warnings: list[str] = field(default_factory=list)
    # Dotted key → `default`, the user file's path, `env AISH_…`, `flag --…` or `autodetect`.
    sources: dict[str, str] = field(default_factory=dict)
    # The user config file when one exists (even if it had to be set aside).
    user_file: Path | None = None
    # True when the presets were found by probing servers and key variables.
    autodetected: bool = False


def load_config(
    *,
    config_path: Path | str | None = None,
    env: Mapping[str, str] | None = None,
    flags: Mapping[str, object] | None = None,
    autodetect: bool = True,
    probe_timeout_s: float = 0.3,
) -> LoadedConfig:
    """Read, merge and validate every layer; never raises for a mistake in them."""
    variables: Mapping[str, str] = os.environ if env is None else env
    explicit = config_path is not None or bool(variables.get(CONFIG_PATH_VARIABLE, "").strip())
    path = Path(config_path) if config_path is not None else config_file(variables)
    file_layer, warnings, exists = read_user_file(path, explicit=explicit)

    named_keys = _api_key_variables(file_layer)
    env_layer, env_warnings = environment_layer(variables, key_variables=named_keys)
    flag_layer, flag_warnings = flags_layer(flags or {})
    warnings += env_warnings + flag_warnings
    layers: list[Layer] = [file_layer, *project_layers(), env_layer, flag_layer]

    autodetected = False
    if autodetect and not exists and not _sets_presets(env_layer, flag_layer):
        detected = zero_config.detect_presets(variables, timeout_s=probe_timeout_s)
        if detected.presets:
            table = {"models": detected.presets, "default_model": detected.default_model}
            layers.insert(0, Layer(name="autodetect", data=table))
            autodetected = True
        else:
            warnings.append(zero_config.how_to_configure(path))

    config, problems = validate_layers(layers)
    warnings += problems
    warnings += _inline_key_warnings(file_layer, config)
    sources = {dotted(path): label for path, label in effective_sources(layers).items()}
    return LoadedConfig(
        config=config,
        warnings=warnings,
        sources=sources,
        user_file=path if exists else None,
        autodetected=autodetected,
    )


def project_layers() -> list[Layer]:
    """Trusted `.aish.toml` files from the cwd up, lowest precedence first.

    The seam for §10: project files need `:trust` (path + content hash, kept in the store)
    before they may apply, and until that exists they are not read at all.
    """
    return []


def display_name(path: Path) -> str:
    """`config.toml` for the usual location; any other file as the user gave it."""
    try:
        usual = path.absolute() == default_config_file().absolute()
    except OSError:
        usual = False
    return path.name if usual else str(path)


def read_user_file(path: Path, *, explicit: bool) -> tuple[FileLayer, list[str], bool]:
    """The file as a layer, warnings about reading it, and whether it exists at all."""
    display = display_name(path)
    layer = FileLayer(name=str(path), display=display)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return layer, ([f"{display}: no such file"] if explicit else []), False
    except OSError as exc:
        return layer, [f"{display}: cannot read: {exc.strerror or exc}"], True
    try:
        text = raw.decode("utf-8-sig")  # tolerate the BOM some editors write
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        return layer, [f"{display}:{line}: syntax: not UTF-8 text"], True
    try:
        layer.data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        return layer, [_syntax_warning(display, text, exc)], True
    except RecursionError:  # tomllib recurses per nesting level; a hostile file can nest deeply
        return layer, [f"{display}: syntax: values nested too deeply"], True
    try:
        layer.lines = locate_keys(text)
    except Exception:  # line numbers only improve messages; a locator bug must not stop aish
        logging.getLogger("aish.config").exception("cannot locate keys in %s", path)
    return layer, [], True


def _syntax_warning(display: str, text: str, exc: tomllib.TOMLDecodeError) -> str:
    message = str(exc)
    match = _TOML_POSITION.search(message)
    if match is None:
        return f"{display}: syntax: {message}"
    line = int(match.group(1)) if match.group(1) else max(len(text.splitlines()), 1)
    return f"{display}:{line}: syntax: {message[: match.start()]}"


def _api_key_variables(layer: FileLayer) -> set[str]:
    presets = layer.data.get("models")
    if not isinstance(presets, dict):
        return set()
    return {
        table["api_key_env"]
        for table in presets.values()
        if isinstance(table, dict) and isinstance(table.get("api_key_env"), str)
    }


def _sets_presets(*layers: VariableLayer) -> bool:
    return any(layer.data.get("models") for layer in layers)


def _inline_key_warnings(layer: FileLayer, config: AishConfig) -> list[str]:
    presets = layer.data.get("models")
    if not isinstance(presets, dict):
        return []
    warnings = []
    for name, table in presets.items():
        if isinstance(table, dict) and "api_key" in table and name in config.models:
            path: KeyPath = ("models", name, "api_key")
            warnings.append(
                f"{layer.where(path)}: key {dotted(path)}: a key written in the config file; "
                "prefer api_key_env"
            )
    return warnings


def effective_sources(layers: Sequence[Layer]) -> dict[KeyPath, str]:
    """Which source each key's value came from: `default` or the last layer that set it.

    A value replaces whatever lower layers said about keys inside it; an empty table changes
    nothing and is not counted.
    """
    defaults = AishConfig().model_dump(by_alias=True)
    sources: dict[KeyPath, str] = {path: "default" for path, _value in leaves(defaults)}
    for layer in layers:
        for path, value in leaves(layer.data):
            if isinstance(value, dict):
                continue
            for inner in [other for other in sources if other[: len(path)] == path]:
                del sources[inner]
            for end in range(1, len(path)):
                sources.pop(path[:end], None)
            sources[path] = layer.source_of(path)
    return sources
