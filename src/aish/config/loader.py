"""Layered loading: built-in defaults < system policy < user file < project file < AISH_*
environment < flags (the permission policy's denials and asks add up instead: see
`policy_layers`).

A bad file never stops aish: syntax errors set the file aside, invalid keys are dropped one by
one, and every problem becomes one warning line naming the file and line (or the variable, or
the flag). The CLI prints the warnings; nothing here prints.

The project file (`.aish.toml`, see `aish.config.project`) applies only when the caller's trust
lookup returns the sha256 of the very bytes read here; otherwise it is ignored whole, with one
notice. The lookup is a callable because config may not import the store.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from aish.config import autodetect as zero_config
from aish.config.bounded_read import FileTooLarge, read_bounded
from aish.config.layers import FileLayer, Layer, dotted, leaves
from aish.config.overrides import ENV_PREFIX, environment_layer, flags_layer
from aish.config.paths import CONFIG_PATH_VARIABLE, config_file, default_config_file, home_directory
from aish.config.policy_layers import (
    policy_only,
    system_policy_path,
    union_tightening,
    withhold_allow,
)
from aish.config.project import (
    TrustLookup,
    as_trusted,
    changed_notice,
    digest_of,
    find_project_file,
    not_trusted_notice,
)
from aish.config.schema import AishConfig
from aish.config.schema_fields import toml_data
from aish.config.toml_locations import KeyPath, locate_keys

if TYPE_CHECKING:
    from tomllib import TOMLDecodeError

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
    # The `.aish.toml` found for the cwd (trusted or not), and whether it applied.
    project_file: Path | None = None
    project_trusted: bool = False


def load_config(
    *,
    config_path: Path | str | None = None,
    env: Mapping[str, str] | None = None,
    flags: Mapping[str, object] | None = None,
    autodetect: bool = True,
    probe_timeout_s: float = 0.3,
    cwd: Path | str | None = None,
    trusted_digest: TrustLookup | None = None,
    cache_dir: Path | None = None,
) -> LoadedConfig:
    """Read, merge and validate every layer; never raises for a mistake in them.

    `cwd`: where to look for a project `.aish.toml` (None: no project file at all).
    `trusted_digest`: given the file's absolute path, the sha256 the user trusted for it, or
    None; without it every project file found is untrusted and only produces its notice.
    `cache_dir`: where validated configs are kept by the sources they came from (see
    `validated_cache`); None validates every time.
    """
    variables: Mapping[str, str] = os.environ if env is None else env
    explicit = config_path is not None or bool(variables.get(CONFIG_PATH_VARIABLE, "").strip())
    path = Path(config_path) if config_path is not None else config_file(variables)

    def load() -> LoadedConfig:
        return _load(
            variables, path, explicit, flags, autodetect, probe_timeout_s, cwd, trusted_digest
        )

    def source_key() -> str | None:
        return _source_key(variables, path, explicit, flags, autodetect, cwd, trusted_digest)

    if cache_dir is None:
        return load()
    from aish.config import validated_cache

    key = source_key()
    if key is None:
        return load()
    kept = validated_cache.cached_config(cache_dir, key)
    if isinstance(kept, LoadedConfig):
        return kept
    loaded = load()
    # Kept only if the sources still read as they did before the load: a file saved in
    # between must not leave its new config under its old bytes' key.
    if source_key() == key:
        validated_cache.keep_config(cache_dir, key, loaded, loaded.sources)
    return loaded


def _source_key(
    variables: Mapping[str, str],
    path: Path,
    explicit: bool,
    flags: Mapping[str, object] | None,
    autodetect: bool,
    cwd: Path | str | None,
    trusted_digest: TrustLookup | None,
) -> str | None:
    """The cache key of a load: a digest of every input it reads; None when one of them cannot
    be named (a read error, a failing trust lookup) or the load would probe the network."""
    from aish.config.validated_cache import SourceKey

    key = SourceKey()
    key.part("explicit", str(explicit))
    key.part("usual", str(default_config_file()))  # names the user file in warnings
    key.file("user", path)
    key.file("system", system_policy_path(variables))
    key.items("env", ((k, v) for k, v in variables.items() if k.startswith(ENV_PREFIX)))
    key.items("flags", (flags or {}).items())
    home = home_directory(variables)
    key.part("home", None if home is None else str(home))
    found = find_project_file(cwd, home) if cwd is not None else None
    key.part("cwd", "none" if cwd is None else "given")
    if found is not None:
        project = Path(os.path.abspath(found))
        key.file("project", project)
        try:
            trusted = as_trusted(trusted_digest(project) if trusted_digest is not None else None)
        except Exception:  # the load says so, as a warning of its own
            return None
        # Whether its allow rules apply changes the config as much as the digest does.
        key.part("trusted", None if trusted is None else f"{trusted.digest}:{int(trusted.allows)}")
    if autodetect and not path.is_file():
        return None  # zero-config probes the network: what it finds is not the files' to say
    return key.digest() if key.usable else None


def _load(
    variables: Mapping[str, str],
    path: Path,
    explicit: bool,
    flags: Mapping[str, object] | None,
    autodetect: bool,
    probe_timeout_s: float,
    cwd: Path | str | None,
    trusted_digest: TrustLookup | None,
) -> LoadedConfig:
    file_layer, warnings, exists = read_user_file(path, explicit=explicit)
    system, system_warnings = read_system_policy(variables)
    warnings = system_warnings + warnings
    project = project_layers(cwd, home_directory(variables), trusted_digest)
    warnings += project.warnings

    named_keys = _api_key_variables(file_layer, *project.layers)
    env_layer, env_warnings = environment_layer(variables, key_variables=named_keys)
    flag_layer, flag_warnings = flags_layer(flags or {})
    warnings += env_warnings + flag_warnings
    layers: list[Layer] = [*system, file_layer, *project.layers, env_layer, flag_layer]

    autodetected = False
    presets_given = _sets_presets(*project.layers, env_layer, flag_layer)
    if autodetect and not exists and not presets_given:
        detected = zero_config.detect_presets(variables, timeout_s=probe_timeout_s)
        if detected.presets:
            table = {"models": detected.presets, "default_model": detected.default_model}
            layers.insert(0, Layer(name="autodetect", data=table))
            autodetected = True
        else:
            warnings.append(zero_config.how_to_configure(path))

    from aish.config.recovery import validate_layers  # pydantic: only when not kept

    config, problems = validate_layers(layers)
    warnings += problems
    union_tightening(config, layers)  # a layer may add denials, never drop another's
    for layer in (file_layer, *project.layers):
        warnings += _inline_key_warnings(layer, config)
    sources = {dotted(path): label for path, label in effective_sources(layers).items()}
    return LoadedConfig(
        config=config,
        warnings=warnings,
        sources=sources,
        user_file=path if exists else None,
        autodetected=autodetected,
        project_file=project.path,
        project_trusted=bool(project.layers),
    )


@dataclass
class ProjectLayers:
    """The project file found (if any), its layer when trusted, and notices about it."""

    path: Path | None = None
    layers: list[FileLayer] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def project_layers(
    cwd: Path | str | None, home: Path | None, trusted_digest: TrustLookup | None
) -> ProjectLayers:
    """The nearest `.aish.toml` as a layer when the user trusted exactly its bytes.

    The file is read once: the bytes hashed for the trust check are the bytes parsed, so a file
    swapped in between cannot apply. Untrusted or changed: no layer, one notice.
    """
    if cwd is None:
        return ProjectLayers()
    found = find_project_file(cwd, home)
    if found is None:
        return ProjectLayers()
    # Trust belongs to this path, not to where a symlink points: a repository cannot borrow
    # the trust of a file elsewhere by linking to it.
    path = Path(os.path.abspath(found))
    try:
        raw = read_bounded(path)
    except FileTooLarge as exc:
        return ProjectLayers(path, [], [f"project config {path} ignored: {exc}"])
    except OSError as exc:
        return ProjectLayers(path, [], [f"{path}: cannot read: {exc.strerror or exc}"])
    try:
        trusted = as_trusted(trusted_digest(path) if trusted_digest is not None else None)
    except Exception as exc:  # a broken lookup means "not trusted", never a crash
        logging.getLogger("aish.config").exception("cannot check trust of %s", path)
        reason = " ".join(str(exc).split()) or type(exc).__name__
        return ProjectLayers(path, [], [f"project config {path} ignored: {reason}"])
    if trusted is None:
        return ProjectLayers(path, [], [not_trusted_notice(path)])
    if trusted.digest != digest_of(raw):
        return ProjectLayers(path, [], [changed_notice(path)])
    layer = FileLayer(name=f"project file {path}", display=str(path))
    warnings = parse_file(layer, raw, path)
    if not trusted.allows:
        warnings += withhold_allow(layer)
    return ProjectLayers(path, [layer], warnings)


def read_system_policy(variables: Mapping[str, str]) -> tuple[list[FileLayer], list[str]]:
    """The system policy file as a layer (none when there is no such file)."""
    path = system_policy_path(variables)
    # No system policy is the usual case: its absence is never worth a warning.
    layer, warnings, exists = read_user_file(path, explicit=False)
    if not exists or not layer.data:
        return [], warnings
    layer.name = f"system policy {path}"
    return [layer], warnings + policy_only(layer)


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
        raw = read_bounded(path)
    except FileNotFoundError:
        return layer, ([f"{display}: no such file"] if explicit else []), False
    except FileTooLarge as exc:
        return layer, [f"{display}: not read: {exc}"], True
    except OSError as exc:
        return layer, [f"{display}: cannot read: {exc.strerror or exc}"], True
    return layer, parse_file(layer, raw, path), True


def parse_file(layer: FileLayer, raw: bytes, path: Path) -> list[str]:
    """Fill `layer` from a TOML file's bytes; warnings when it cannot be read as TOML."""
    display = layer.display
    try:
        text = raw.decode("utf-8-sig")  # tolerate the BOM some editors write
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        return [f"{display}:{line}: syntax: not UTF-8 text"]
    import tomllib  # parsed only when the kept config does not match

    try:
        layer.data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        return [_syntax_warning(display, text, exc)]
    except RecursionError:  # tomllib recurses per nesting level; a hostile file can nest deeply
        return [f"{display}: syntax: values nested too deeply"]
    try:
        layer.lines = locate_keys(text)
    except Exception:  # line numbers only improve messages; a locator bug must not stop aish
        logging.getLogger("aish.config").exception("cannot locate keys in %s", path)
    return []


def _syntax_warning(display: str, text: str, exc: TOMLDecodeError) -> str:
    message = str(exc)
    match = _TOML_POSITION.search(message)
    if match is None:
        return f"{display}: syntax: {message}"
    line = int(match.group(1)) if match.group(1) else max(len(text.splitlines()), 1)
    return f"{display}:{line}: syntax: {message[: match.start()]}"


def _api_key_variables(*layers: FileLayer) -> set[str]:
    named: set[str] = set()
    for layer in layers:
        presets = layer.data.get("models")
        if isinstance(presets, dict):
            named |= {
                table["api_key_env"]
                for table in presets.values()
                if isinstance(table, dict) and isinstance(table.get("api_key_env"), str)
            }
    return named


def _sets_presets(*layers: Layer) -> bool:
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
    defaults = toml_data(AishConfig())
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
