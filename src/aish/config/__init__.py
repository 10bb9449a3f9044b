"""Configuration: the schema (plain dataclasses, validated with pydantic only when a config's
sources changed), layered loading (defaults < user file < trusted project
file < AISH_* environment < CLI flags), XDG paths and zero-config autodetection of model servers.

Imports no other room (`aish.errors` and `aish.endpoints` are shared leaves, not rooms): turning
a preset into the broker's target is model choice, in `aish.session`, and probing an endpoint
is the broker's, in `aish.llm.probe`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from aish._lazy_face import lazy_names

if TYPE_CHECKING:
    from aish.config.loader import LoadedConfig, load_config
    from aish.config.paths import config_file, data_dir, log_file, state_dir
    from aish.config.presets import ModelPreset, is_loopback_endpoint
    from aish.config.project_scope import ConfigScope
    from aish.config.schema import AishConfig

__all__ = [
    "AishConfig",
    "ConfigScope",
    "LoadedConfig",
    "ModelPreset",
    "config_file",
    "data_dir",
    "is_loopback_endpoint",
    "load_config",
    "log_file",
    "state_dir",
]

# Public name → module that defines it. Resolved on first use so that `import aish.config`
# (done by every entry point) costs nothing until a name is actually needed.
_HOMES = {
    "AishConfig": "aish.config.schema",
    "ConfigScope": "aish.config.project_scope",
    "LoadedConfig": "aish.config.loader",
    "ModelPreset": "aish.config.presets",
    "config_file": "aish.config.paths",
    "data_dir": "aish.config.paths",
    "is_loopback_endpoint": "aish.endpoints",
    "load_config": "aish.config.loader",
    "log_file": "aish.config.paths",
    "state_dir": "aish.config.paths",
}


__getattr__ = lazy_names(__name__, _HOMES)
