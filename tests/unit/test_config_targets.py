"""Resolving a preset name into the broker's ModelTarget, and the errors on the way."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from aish.config import AishConfig
from aish.config.validation import validate_config
from aish.errors import ConfigError
from aish.llm.types import ModelTarget
from aish.session import resolve_target

CONFIG = validate_config(
    {
        "default_model": "deep",
        "models": {
            "fast": {"endpoint": "http://127.0.0.1:8080/v1", "model": "small"},
            "deep": {
                "endpoint": "https://api.anthropic.com",
                "model": "claude",
                "api": "anthropic",
                "api_key_env": "DEEP_KEY",
                "timeout_s": 90,
                "connect_timeout_s": 3,
                "max_tokens": 1000,
                "temperature": 0.5,
                "max_retries": 0,
            },
            "inline": {
                "endpoint": "https://example.com/v1",
                "model": "x",
                "api_key": "sk-inline",
            },
        },
    }
)


def test_named_preset_maps_every_option() -> None:
    target = resolve_target(CONFIG, "deep", {"DEEP_KEY": "sk-deep"})
    assert target == ModelTarget(
        name="deep",
        endpoint="https://api.anthropic.com",
        model="claude",
        api="anthropic",
        api_key="sk-deep",
        connect_timeout_s=3,
        idle_timeout_s=90,
        max_tokens=1000,
        temperature=0.5,
        max_retries=0,
        scrub_secrets=True,  # off this machine: secrets are scrubbed by default
    )


def test_prices_and_scrubbing_come_from_the_preset() -> None:
    from aish.llm.types import Rates

    config = validate_config(
        {
            "models": {
                "local": {"endpoint": "http://127.0.0.1:8080/v1", "model": "m"},
                "priced": {
                    "endpoint": "http://127.0.0.1:8080/v1",
                    "model": "m",
                    "secrets": "scrub",
                    "price": {"input": 3.0, "output": 15.0},
                },
                "open": {"endpoint": "https://example.com/v1", "model": "m", "secrets": "off"},
            }
        }
    )
    local = resolve_target(config, "local", {})
    assert (local.price, local.scrub_secrets) == (None, False)
    priced = resolve_target(config, "priced", {})
    assert priced.price == Rates(input=3.0, output=15.0, cached_input=None)
    assert priced.scrub_secrets
    assert not resolve_target(config, "open", {}).scrub_secrets


def test_default_model_then_the_first_preset() -> None:
    assert resolve_target(CONFIG, None, {"DEEP_KEY": "k"}).name == "deep"
    no_default = dataclasses.replace(CONFIG, default_model=None)
    first = resolve_target(no_default, None, {})
    assert (first.name, first.api_key, first.idle_timeout_s) == ("fast", None, 60)
    assert resolve_target(CONFIG, "inline", {}).api_key == "sk-inline"


def test_missing_or_empty_key_variable() -> None:
    for env in ({}, {"DEEP_KEY": ""}, {"DEEP_KEY": "  "}):
        with pytest.raises(ConfigError) as caught:
            resolve_target(CONFIG, "deep", env)
        assert str(caught.value) == "model preset 'deep': environment variable DEEP_KEY is not set"


def test_unknown_preset_lists_the_known_ones() -> None:
    with pytest.raises(ConfigError) as caught:
        resolve_target(CONFIG, "nope", {})
    assert str(caught.value) == "unknown model preset 'nope' (known: fast, deep, inline)"


def test_no_presets_says_how_to_configure(tmp_path: Path) -> None:
    path = tmp_path / "cfg.toml"
    with pytest.raises(ConfigError) as caught:
        resolve_target(AishConfig(), None, {"AISH_CONFIG": str(path)})
    assert "aish init" in str(caught.value) and str(path) in str(caught.value)
    with pytest.raises(ConfigError):
        resolve_target(AishConfig(), "fast", {})


def test_a_key_http_cannot_carry_is_refused_without_echoing_it() -> None:
    import pytest

    from aish.errors import ConfigError
    from aish.session import resolve_target

    config = validate_config(
        {"models": {"c": {"endpoint": "https://x.example/v1", "model": "m", "api_key_env": "K"}}}
    )
    for bad in ("sk-abc\nX-Evil: 1", "sk-abc\u200b", "sk abc"):
        with pytest.raises(ConfigError) as caught:
            resolve_target(config, None, {"K": bad})
        assert "environment variable K" in str(caught.value)
        assert "sk-" not in str(caught.value)
    assert resolve_target(config, None, {"K": "sk-fine_123"}).api_key == "sk-fine_123"
