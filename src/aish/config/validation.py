"""Checking data against the schema: the one place aish's config meets pydantic.

Imported only when something must be validated — a config whose sources changed since the kept
one, a server table imported from another host's file, a rule table of one layer — never by a
start that takes the kept config. Each adapter builds its pydantic schema on first use.

Errors are pydantic's `ValidationError`s with the key's location (`("models", "x",
"endpoint")`), which `recovery` turns into one warning per key. An unknown key is reported
as `extra_forbidden` whatever pydantic calls it for a dataclass (`UNKNOWN_KEY`).
"""

from __future__ import annotations

from functools import cache
from typing import Annotated, Any, Final, TypeVar

from pydantic import TypeAdapter, ValidationError
from pydantic_core import InitErrorDetails, PydanticCustomError

from aish.config.field_checks import After
from aish.config.schema import AishConfig, McpServer, PolicyRuleConfig, command_or_url

Section = TypeVar("Section")

__all__ = [
    "UNKNOWN_KEY",
    "ValidationError",
    "is_unknown_key",
    "validate_config",
    "validate_rule",
    "validate_section",
    "validate_server",
]

# What an unknown key is called in the errors: pydantic says `unexpected_keyword_argument` for a
# dataclass where a model says `extra_forbidden`.
UNKNOWN_KEY: Final = frozenset({"extra_forbidden", "unexpected_keyword_argument"})


def is_unknown_key(error_type: str) -> bool:
    return error_type in UNKNOWN_KEY


def _default_model_is_a_preset(config: AishConfig) -> AishConfig:
    name = config.default_model
    if name is None or name in config.models:
        return config
    known = ", ".join(config.models) or "none configured"
    # Raised as a ValidationError so the error sits at `default_model`, not at the root:
    # the loader uses the location to find the line and to drop just this key.
    error = PydanticCustomError(
        "unknown_preset",
        "no model preset named '{name}' (known: {known})",
        {"name": name, "known": known},
    )
    details = InitErrorDetails(type=error, loc=("default_model",), input=name)
    raise ValidationError.from_exception_data(AishConfig.__name__, [details])


@cache
def _config_adapter() -> TypeAdapter[AishConfig]:
    return TypeAdapter(Annotated[AishConfig, After(_default_model_is_a_preset)])


@cache
def _server_adapter() -> TypeAdapter[McpServer]:
    return TypeAdapter(Annotated[McpServer, After(command_or_url)])


_SECTION_ADAPTERS: dict[type, TypeAdapter[Any]] = {}


def validate_config(data: Any) -> AishConfig:
    """The whole config from merged TOML data; raises ValidationError."""
    return _config_adapter().validate_python(data)


def validate_server(data: Any) -> McpServer:
    """One MCP server table (after `${VAR}` expansion); raises ValidationError."""
    return _server_adapter().validate_python(data)


def validate_rule(data: Any) -> PolicyRuleConfig:
    """One `[[safety.rule]]` table; raises ValidationError."""
    return validate_section(PolicyRuleConfig, data)


def validate_section(section: type[Section], data: Any) -> Section:
    """One table against its schema class (`ModelPreset`, `McpConfig`, …), checks of its own
    included; those made where it sits in the config (`default_model` names a preset, a
    server is a command or a URL) are `validate_config`'s and `validate_server`'s."""
    adapter = _SECTION_ADAPTERS.get(section)
    if adapter is None:
        adapter = _SECTION_ADAPTERS[section] = TypeAdapter(section)
    validated: Section = adapter.validate_python(data)
    return validated
