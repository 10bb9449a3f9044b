"""Which resolved targets are the same model: the judge of an action is never its proposer."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st

from aish.agent.model_identity import endpoint_identity, same_model
from aish.llm.types import ModelTarget, Rates

LOCAL = ModelTarget(name="local", endpoint="http://127.0.0.1:8080/v1", model="qwen2.5-coder-7b")


def target(endpoint: str, model: str = "qwen2.5-coder-7b", name: str = "other") -> ModelTarget:
    return ModelTarget(name=name, endpoint=endpoint, model=model)


@pytest.mark.parametrize(
    "endpoint",
    [
        "http://127.0.0.1:8080/v1",
        "http://127.0.0.1:8080/v1/",
        "http://127.0.0.1:8080",
        "http://127.0.0.1:8080/",
        "HTTP://LOCALHOST:8080/v1",
        "http://localhost:8080/v1",
        "http://[::1]:8080/v1",
        "http://0.0.0.0:8080/v1",
        "http://127.0.1.1:8080/v1",
        "  http://127.0.0.1:8080/v1  ",
        "127.0.0.1:8080/v1",
    ],
)
def test_spellings_of_one_endpoint_are_the_same_model(endpoint: str) -> None:
    assert same_model(LOCAL, target(endpoint))
    assert same_model(target(endpoint), LOCAL)


def test_the_preset_name_and_its_settings_do_not_make_another_model() -> None:
    # Two presets of one server and model, configured differently, are still one model.
    judge = dataclasses.replace(
        LOCAL,
        name="judge",
        api_key="k",
        temperature=0.0,
        max_tokens=4,
        idle_timeout_s=3.0,
        max_retries=0,
        headers=(("X-Judge", "1"),),
        price=Rates(1.0, 2.0),
        scrub_secrets=True,
    )
    assert same_model(LOCAL, judge)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("https://api.openai.com/v1", "https://api.openai.com:443/v1"),
        ("http://box.lan/v1", "http://box.lan:80/v1"),
        ("https://api.anthropic.com", "https://api.anthropic.com/v1"),
        ("https://OpenRouter.ai/api/v1", "https://openrouter.ai/api/v1/"),
        ("https://example.org./v1", "https://example.org/v1"),
    ],
)
def test_default_ports_case_and_a_trailing_v1_do_not_matter(first: str, second: str) -> None:
    assert endpoint_identity(first) == endpoint_identity(second)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("qwen2.5-coder-7b", "Qwen2.5-Coder-7B"),
        ("llama3.2", "llama3.2:latest"),
        (" llama3.2 ", "llama3.2"),
    ],
)
def test_model_names_compare_loosely(first: str, second: str) -> None:
    assert same_model(target(LOCAL.endpoint, first), target(LOCAL.endpoint, second))


@pytest.mark.parametrize(
    "other",
    [
        target("http://127.0.0.1:8081/v1"),  # another server (port)
        target("http://10.0.0.5:8080/v1"),  # another host
        target("https://127.0.0.1:8080/v1"),  # another scheme
        target("http://127.0.0.1:8080/judge/v1"),  # another path on a proxy
        target("http://127.0.0.1:8080/v1", "judge-model"),  # another model on the same server
        target("http://127.0.0.1:8080/v1", "llama3.2:1b"),
    ],
)
def test_another_endpoint_or_model_is_another_model(other: ModelTarget) -> None:
    assert not same_model(LOCAL, other)
    assert not same_model(other, LOCAL)


def test_openrouter_models_behind_one_endpoint_are_distinct() -> None:
    endpoint = "https://openrouter.ai/api/v1"
    sonnet = target(endpoint, "anthropic/claude-sonnet-4.5")
    gpt = target(endpoint, "openai/gpt-4o-mini")
    assert not same_model(sonnet, gpt)
    assert same_model(sonnet, target(endpoint, "anthropic/claude-sonnet-4.5", name="cloud2"))


def test_an_endpoint_that_is_no_url_is_compared_as_written() -> None:
    odd = "http://[not-an-address/v1"
    assert endpoint_identity(odd) == endpoint_identity(odd.upper())
    assert not same_model(target(odd), LOCAL)


_HOSTS = st.sampled_from(["127.0.0.1", "localhost", "example.org", "10.1.2.3", "openrouter.ai"])
_PATHS = st.sampled_from(["", "/", "/v1", "/v1/", "/api/v1", "/proxy"])
_MODELS = st.text(st.characters(codec="ascii", categories=["L", "N"]), min_size=1, max_size=12)


@given(
    st.sampled_from(["http", "https"]),
    _HOSTS,
    st.integers(1, 65535),
    _PATHS,
    _MODELS,
    _MODELS,
)
def test_same_model_is_an_equivalence_on_endpoint_and_model(
    scheme: str, host: str, port: int, path: str, model: str, other_model: str
) -> None:
    endpoint = f"{scheme}://{host}:{port}{path}"
    one = target(endpoint, model, name="a")
    assert same_model(one, one)
    assert same_model(one, target(endpoint.upper(), model.upper(), name="b"))
    moved = target(f"{scheme}://{host}:{port % 65535 + 1}{path}", model)
    assert not same_model(one, moved)  # another port is always another server
    assert same_model(one, target(endpoint, other_model)) == (model.lower() == other_model.lower())
