"""The cloud fallback's pure parts: the failure in a few words, the status line, and which
preset `routing.fallback_model` resolves to."""

from __future__ import annotations

import pytest

from aish.agent.fallback import (
    fallback_reason,
    fallback_status,
    fallback_target,
    is_private_endpoint,
)
from aish.config import AishConfig
from aish.config.validation import validate_config
from aish.errors import ConfigError
from aish.llm.errors import (
    AuthError,
    ConnectError,
    HTTPStatusError,
    LLMError,
    ModelNotFoundError,
    ProtocolError,
    StreamErrorEvent,
    TimedOut,
    TruncatedStreamError,
)
from aish.llm.types import ModelTarget
from aish.session import preset_resolver

LOCAL = ModelTarget("fast", "http://127.0.0.1:8080/v1", "small")
CLOUD = ModelTarget("cloud", "https://openrouter.ai/api/v1", "big", api_key="sk-cloud")


def config(**routing: object) -> AishConfig:
    return validate_config(
        {
            "models": {
                "fast": {"endpoint": "http://127.0.0.1:8080/v1", "model": "small"},
                "cloud": {
                    "endpoint": "https://openrouter.ai/api/v1",
                    "model": "big",
                    "api_key_env": "CLOUD_KEY",
                    "max_retries": 0,
                },
            },
            "routing": routing,
        }
    )


@pytest.mark.parametrize(
    ("error", "reason"),
    [
        (ConnectError("x", reason="connection refused"), "connection refused"),
        (ConnectError("x", reason="unknown host"), "cannot resolve host"),
        (ConnectError("x", reason="TLS error: bad"), "TLS error: bad"),
        (ConnectError("x"), "cannot connect"),
        (TimedOut("x", phase="connect"), "connect timed out"),
        (TimedOut("x", phase="idle"), "timed out"),
        (TimedOut("x", phase="write"), "send timed out"),
        (HTTPStatusError("x", status=502), "HTTP 502"),
        (HTTPStatusError("x", status=408), "HTTP 408"),
        (ModelNotFoundError("x", status=404), "model not found"),
        (AuthError("x", status=401), "HTTP 401"),
        (StreamErrorEvent("x"), "error in the reply stream"),
        (TruncatedStreamError("x"), "reply cut short"),
        (ProtocolError("x"), "not a model server's answer"),
        (ConfigError("x"), "configuration error"),
        (LLMError("x"), "LLMError"),
    ],
)
def test_reason_names_the_failure_in_a_few_words(error: LLMError, reason: str) -> None:
    assert fallback_reason(error) == reason


def test_status_says_local_for_a_model_on_this_machine() -> None:
    error = ConnectError("x", reason="connection refused")
    assert fallback_status(LOCAL, error, CLOUD) == (
        "local fast failed (connection refused); retrying via cloud"
    )


def test_status_names_a_remote_model_without_local() -> None:
    error = HTTPStatusError("x", status=503)
    assert fallback_status(CLOUD, error, LOCAL) == "cloud failed (HTTP 503); retrying via fast"


@pytest.mark.parametrize(
    ("url", "private"),
    [
        ("http://127.0.0.1:8080/v1", True),
        ("http://localhost:11434/v1", True),
        ("http://[::1]:8080/v1", True),
        ("http://192.168.1.20:8080/v1", True),
        ("http://10.0.0.5/v1", True),
        ("http://172.16.3.4/v1", True),
        ("http://100.101.102.103:8080/v1", True),  # a VPN mesh (Tailscale)
        ("http://[fd00::5]:8080/v1", True),
        ("http://gpu-box:8080/v1", True),
        ("http://gpu-box.local:8080/v1", True),
        ("http://gpu.home.arpa/v1", True),
        ("https://openrouter.ai/api/v1", False),
        ("https://api.anthropic.com", False),
        ("http://8.8.8.8/v1", False),
        ("not a url", False),
    ],
)
def test_private_endpoints(url: str, private: bool) -> None:
    assert is_private_endpoint(url) is private


def test_target_resolves_the_fallback_preset_with_its_key() -> None:
    settings = config(fallback_model="cloud")
    chosen, problem = fallback_target(
        settings, LOCAL, preset_resolver(settings, {"CLOUD_KEY": "sk-1"}), enabled=True
    )
    assert problem is None
    assert chosen is not None
    assert (chosen.name, chosen.model, chosen.api_key, chosen.max_retries) == (
        "cloud",
        "big",
        "sk-1",
        0,
    )


@pytest.mark.parametrize(
    ("routing", "enabled"),
    [
        ({"fallback_model": "cloud"}, False),  # `:fallback off`
        ({}, True),  # no fallback_model
        ({"fallback_model": "fast"}, True),  # the active preset itself
    ],
)
def test_no_fallback(routing: dict[str, object], enabled: bool) -> None:
    settings = config(**routing)
    assert fallback_target(
        settings, LOCAL, preset_resolver(settings, {"CLOUD_KEY": "k"}), enabled=enabled
    ) == (
        None,
        None,
    )


def test_an_unknown_preset_is_a_problem_to_say() -> None:
    settings = config(fallback_model="clod")
    chosen, problem = fallback_target(settings, LOCAL, preset_resolver(settings, {}), enabled=True)
    assert chosen is None
    assert problem == "routing.fallback_model: no model preset 'clod' (known: fast, cloud)"


def test_a_missing_key_is_a_problem_to_say() -> None:
    settings = config(fallback_model="cloud")
    chosen, problem = fallback_target(settings, LOCAL, preset_resolver(settings, {}), enabled=True)
    assert chosen is None
    assert problem == (
        "routing.fallback_model: model preset 'cloud': environment variable CLOUD_KEY is not set"
    )
