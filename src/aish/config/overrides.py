"""The two override layers above the files: `AISH_*` environment variables and CLI flags.

`AISH_DEFAULT_MODEL=deep` sets `default_model`; a double underscore goes one table deeper
(`AISH_ROUTING__AUTO=true`, `AISH_MODELS__FAST__TIMEOUT_S=120`). Names are lower-cased, so a
preset reached this way must have a lower-case name. Values are read as TOML values when they
parse as one (`true`, `5`, `"x"`, `[1, 2]`) and as plain text otherwise.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from aish.config.layers import VariableLayer, put_path

ENV_PREFIX = "AISH_"
# AISH_ variables that belong to aish but not to the config schema.
NON_CONFIG_VARIABLES = frozenset({"AISH_LOG", "AISH_CONFIG", "AISH_SYSTEM_POLICY"})
# The flag that sets a config key, for messages and the sources map; other keys are shown as
# `--<key>` (the CLI may pass any dotted key).
FLAG_NAMES: Mapping[str, str] = {"default_model": "--model"}


def parse_env_value(text: str) -> object:
    """The TOML value `text` spells, or `text` itself when it is not exactly one TOML value."""
    import tomllib  # only when an AISH_* variable is set

    try:
        parsed = tomllib.loads(f"value = {text}")
    except tomllib.TOMLDecodeError:
        return text
    # More than one key means the text smuggled in a newline and another assignment.
    return parsed["value"] if len(parsed) == 1 else text


def environment_layer(
    env: Mapping[str, str], *, key_variables: Collection[str] = ()
) -> tuple[VariableLayer, list[str]]:
    """The `AISH_*` variables of `env` as a layer, plus warnings for ones that cannot apply.

    `key_variables` are variables that presets name in `api_key_env`: someone who keeps a key
    in `AISH_OPENAI_KEY` is using it correctly, not misspelling a config key.
    """
    layer = VariableLayer(name="environment")
    warnings: list[str] = []
    for name in sorted(env):
        if not name.startswith(ENV_PREFIX) or name in NON_CONFIG_VARIABLES:
            continue
        if name in key_variables:
            continue
        label = f"env {name}"
        key = name[len(ENV_PREFIX) :].lower()
        path = tuple(key.split("__"))
        if not all(path):
            warnings.append(f"{label}: unknown config key {key}")
            continue
        raw = env[name]
        value = parse_env_value(raw)
        clash = put_path(layer.data, path, value)
        if clash is not None:
            warnings.append(f"{label}: ignored: {clash}")
            continue
        layer.origins[path] = label
        if not isinstance(value, str):
            layer.texts[path] = raw
    return layer, warnings


def flag_label(key: str) -> str:
    """How a flag is named in messages and sources: `flag --model`."""
    return f"flag {FLAG_NAMES.get(key, '--' + key)}"


def flags_layer(flags: Mapping[str, object]) -> tuple[VariableLayer, list[str]]:
    """Dotted keys → values from the command line; None means the flag was not given."""
    layer = VariableLayer(name="flags")
    warnings: list[str] = []
    for key, value in flags.items():
        if value is None:
            continue
        label = flag_label(key)
        path = tuple(key.split("."))
        if not all(path):
            warnings.append(f"{label}: unknown config key {key}")
            continue
        clash = put_path(layer.data, path, value)
        if clash is not None:
            warnings.append(f"{label}: ignored: {clash}")
            continue
        layer.origins[path] = label
    return layer, warnings
