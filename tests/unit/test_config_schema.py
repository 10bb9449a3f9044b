"""The schema on its own: defaults, forbidden extras, cross-checks, endpoint locality."""

from __future__ import annotations

import subprocess
import sys

import pytest

from aish.config import AishConfig, ModelPreset, is_loopback_endpoint
from aish.config.schema import McpConfig
from aish.config.validation import (
    ValidationError,
    is_unknown_key,
    validate_config,
    validate_section,
)


def preset(**fields: object) -> ModelPreset:
    return validate_section(
        ModelPreset, {"endpoint": "http://127.0.0.1:8080/v1", "model": "m"} | fields
    )


def test_section_defaults() -> None:
    config = AishConfig()
    assert config.default_model is None and config.models == {}
    assert config.safety.llm_second_opinion and config.safety.llm_model == "fast"
    assert config.safety.confirm_cmd
    assert config.norris.max_norris_steps == 16 and config.norris.tasks_max == 16
    assert config.memory.inject_max_chars == 2000
    assert not config.routing.auto and not config.routing.cloud_fallback
    assert not config.context.summarize_on_evict
    assert (config.context.output_max_lines, config.context.output_max_bytes) == (200, 16384)
    assert config.cost.warn_at_dollars == [] and config.cost.stop_at_dollars is None
    assert config.mcp.servers == {} and config.mcp.import_ == []
    assert (config.ui.show_reasoning, config.ui.edit_mode) == ("dim", "shell")


def test_preset_defaults() -> None:
    fast = preset()
    assert fast.api == "openai" and fast.tools and fast.max_retries == 2
    assert (fast.timeout_s, fast.connect_timeout_s) == (60, 5)
    assert fast.api_key_env is None and fast.price is None


@pytest.mark.parametrize(
    ("fields", "where"),
    [
        ({"endpoint": "127.0.0.1:8080"}, ("endpoint",)),
        ({"api": "gemini"}, ("api",)),
        ({"timeout_s": 0}, ("timeout_s",)),
        ({"connect_timeout_s": -1}, ("connect_timeout_s",)),
        ({"max_tokens": 0}, ("max_tokens",)),
        ({"temperature": 2.5}, ("temperature",)),
        ({"price": {"input": -1}}, ("price", "input")),
        ({"price": {"inptu": 1}}, ("price", "inptu")),
        ({"secrets": "maybe"}, ("secrets",)),
        ({"max_retries": -1}, ("max_retries",)),
        ({"api_key_env": "sk-live-123"}, ("api_key_env",)),
        ({"colour": "red"}, ("colour",)),
    ],
)
def test_preset_rejects(fields: dict[str, object], where: tuple[str, ...]) -> None:
    with pytest.raises(ValidationError) as caught:
        preset(**fields)
    assert [error["loc"] for error in caught.value.errors()] == [where]


def test_every_section_forbids_unknown_keys() -> None:
    for section in ("safety", "norris", "memory", "routing", "context", "cost", "mcp", "ui"):
        with pytest.raises(ValidationError) as caught:
            validate_config({section: {"no_such_key": 1}})
        assert caught.value.errors()[0]["loc"] == (section, "no_such_key")
        assert is_unknown_key(caught.value.errors()[0]["type"])


def test_default_model_must_name_a_preset() -> None:
    models = {"fast": {"endpoint": "http://127.0.0.1:1/v1", "model": "m"}}
    assert validate_config({"default_model": "fast", "models": models})
    with pytest.raises(ValidationError) as caught:
        validate_config({"default_model": "deep", "models": models})
    (error,) = caught.value.errors()
    assert error["loc"] == ("default_model",)
    assert error["msg"] == "no model preset named 'deep' (known: fast)"


def test_secrets_default_by_endpoint_locality() -> None:
    assert preset().effective_secrets() == "off"
    assert preset(endpoint="http://localhost:11434/v1").effective_secrets() == "off"
    assert preset(endpoint="http://[::1]:8080/v1").effective_secrets() == "off"
    assert preset(endpoint="https://openrouter.ai/api/v1").effective_secrets() == "scrub"
    assert preset(endpoint="http://192.168.1.5:8080/v1").effective_secrets() == "scrub"
    assert preset(secrets="scrub").effective_secrets() == "scrub"
    assert preset(endpoint="https://api.openai.com/v1", secrets="off").effective_secrets() == "off"


@pytest.mark.parametrize(
    ("url", "loopback"),
    [
        ("http://127.0.0.1:8080/v1", True),
        ("http://127.8.9.10/", True),
        ("http://localhost/v1", True),
        ("http://LOCALHOST.:1234", True),
        ("http://[::1]:8000/v1", True),
        ("http://[::ffff:127.0.0.1]/", True),
        ("http://128.0.0.1/", False),
        ("http://localhost.example.com/", False),
        ("http://[::2]/", False),
        ("https://api.anthropic.com", False),
        ("not a url", False),
        ("http://[bad", False),
    ],
)
def test_is_loopback_endpoint(url: str, loopback: bool) -> None:
    assert is_loopback_endpoint(url) is loopback


def test_endpoint_trailing_slash_is_dropped() -> None:
    assert preset(endpoint="http://127.0.0.1:8080/v1/").endpoint == "http://127.0.0.1:8080/v1"


def test_warn_at_dollars_takes_one_number_or_a_list() -> None:
    for written, held in ((2, [2]), ([1, 5], [1, 5]), ([], [])):
        config = validate_config({"cost": {"warn_at_dollars": written}})
        assert config.cost.warn_at_dollars == held


def test_mcp_server_is_a_command_or_a_url() -> None:
    config = validate_section(
        McpConfig,
        {
            "servers": {
                "time": {"command": "uvx", "args": ["mcp-server-time"], "auto_approve": ["*"]},
                "web": {"url": "https://example.com/mcp", "headers": {"X": "y"}},
            },
            "import": ["~/.cursor/mcp.json"],
        },
    )
    assert config.servers["time"].timeout_s > 0 and not config.servers["time"].trusted
    assert config.import_ == ["~/.cursor/mcp.json"]
    for bad in ({}, {"command": "x", "url": "http://127.0.0.1:1"}, {"url": "file:///x"}):
        with pytest.raises(ValidationError):
            validate_section(McpConfig, {"servers": {"s": bad}})


def test_routing_classes_are_the_known_ones() -> None:
    routed = validate_config({"routing": {"classes": {"code": "deep"}}})
    assert routed.routing.classes == {"code": "deep"}
    with pytest.raises(ValidationError):
        validate_config({"routing": {"classes": {"poetry": "deep"}}})


def test_importing_the_config_room_is_cheap() -> None:
    code = (
        "import sys\nimport aish.config\nfrom aish.config import load_config\n"
        "from aish.session import resolve_target\n"
        "print('httpx' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
    bare = "import sys\nimport aish.config\nprint('pydantic' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", bare], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
