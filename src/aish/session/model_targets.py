"""Model choice: from a preset name to the broker's `ModelTarget`, the one place API keys are read.

Keys are read from the environment at the moment a target is resolved, never stored in the
config object, so a key exported after start-up is picked up by the next resolution.

Why here, in the application layer: resolving a preset joins two leaf rooms that may not import
each other — `config` (the presets, where the config file is) and `llm` (the target the broker
takes) — and DESIGN gives model choice to the session. The agent, below the session, never
resolves a preset itself: it is handed a `PresetResolver` (`preset_resolver(config, env)`) by
whoever builds it (the CLI, the REPL, the goal runner; later the `Session`), so the agent's
routing, fallback, Norris and summariser choices stay testable with any resolver and the doors
keep pointing down.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from aish.config.autodetect import how_to_configure
from aish.config.paths import config_file
from aish.config.schema import AishConfig, Price
from aish.config.targets import preset_name
from aish.errors import ConfigError
from aish.llm.types import ModelTarget, PresetResolver, Rates

__all__ = ["preset_resolver", "resolve_target"]


def preset_resolver(config: AishConfig, env: Mapping[str, str]) -> PresetResolver:
    """The resolver the agent is handed: a preset name of `config` → its target, keys read
    from `env` at each call (pass `os.environ` itself, not a copy, to see later exports)."""

    def resolve(name: str) -> ModelTarget:
        return resolve_target(config, name, env)

    return resolve


def _sendable(key: str) -> bool:
    return key.isascii() and key.isprintable() and " " not in key


def _unparsable(path: Path) -> bool:
    """The config file is there but is not TOML (the loader set it aside with a warning)."""
    import tomllib

    try:
        tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, RecursionError):
        return True
    except OSError:
        return False  # missing or unreadable: not a syntax matter
    return False


def resolve_target(config: AishConfig, name: str | None, env: Mapping[str, str]) -> ModelTarget:
    """The named preset (or the default) ready for the broker, its key read from `env`.

    Raises `ConfigError` for an unknown name, a missing key variable or no presets at all.
    """
    if not config.models:
        path = config_file(env)
        if _unparsable(path):  # its presets may be fine: the syntax error (said above) hides them
            raise ConfigError(f"no model preset could be read: fix the syntax error in {path}")
        if path.exists():  # `aish init` would refuse to overwrite it; say what to fix instead
            raise ConfigError(
                f"no usable model preset in {path}: add a [models.<name>] table "
                "with an endpoint and a model"
            )
        raise ConfigError(how_to_configure(path))
    chosen = preset_name(config, name) or ""
    preset = config.models.get(chosen)
    if preset is None:
        known = ", ".join(config.models)
        raise ConfigError(f"unknown model preset '{chosen}' (known: {known})")
    api_key = preset.api_key
    source = "its api_key"
    if preset.api_key_env is not None:
        api_key = env.get(preset.api_key_env, "").strip()
        source = f"environment variable {preset.api_key_env}"
        if not api_key:
            raise ConfigError(f"model preset '{chosen}': {source} is not set")
    if api_key is not None and not _sendable(api_key):
        # Never echo the value: it is a secret, and the odd character is likely a paste error.
        raise ConfigError(
            f"model preset '{chosen}': {source} holds characters an HTTP header cannot carry "
            "(a line break, a space or non-ASCII text?)"
        )
    return ModelTarget(
        name=chosen,
        endpoint=preset.endpoint,
        model=preset.model,
        api=preset.api,
        api_key=api_key,
        connect_timeout_s=preset.connect_timeout_s,
        idle_timeout_s=preset.timeout_s,
        max_tokens=preset.max_tokens,
        temperature=preset.temperature,
        max_retries=preset.max_retries,
        max_reply_chars=preset.max_reply_chars,
        tools=preset.tools,
        price=_rates(preset.price),
        scrub_secrets=preset.effective_secrets() == "scrub",
    )


def _rates(price: Price | None) -> Rates | None:
    if price is None:
        return None
    return Rates(input=price.input, output=price.output, cached_input=price.cached_input)
