"""Pricing one model call: each cost source and their precedence.

Table figures are checked against `genai_prices.calc_price` itself, so the tests hold whatever
prices the installed data carries.
"""

from __future__ import annotations

import socket
import subprocess
import sys
from decimal import Decimal

import pytest

from aish.config.presets import Price
from aish.llm.types import Usage
from aish.store.pricing import Priced, Rates, cost_at, price_call, table_rates

OPENAI = "https://api.openai.com/v1"
OPENROUTER = "https://openrouter.ai/api/v1"
USAGE = Usage(prompt_tokens=10_000, completion_tokens=500, cached_tokens=4_000)


def _genai(model: str, endpoint: str | None, usage: Usage) -> float:
    from genai_prices import Usage as GenaiUsage
    from genai_prices import calc_price

    calculation = calc_price(
        GenaiUsage(
            input_tokens=usage.prompt_tokens,
            cache_read_tokens=usage.cached_tokens,
            output_tokens=usage.completion_tokens,
        ),
        model,
        provider_api_url=endpoint,
    )
    return float(calculation.total_price)


def test_table_price_matches_genai_prices() -> None:
    priced = price_call(OPENAI, "gpt-4o", None, USAGE)
    assert priced.source == "table"
    assert priced.cost_usd == pytest.approx(_genai("gpt-4o", OPENAI, USAGE))
    # OpenRouter's own model names, by its URL.
    routed = price_call(OPENROUTER, "anthropic/claude-sonnet-4", None, USAGE)
    assert routed.source == "table"
    assert routed.cost_usd == pytest.approx(_genai("anthropic/claude-sonnet-4", OPENROUTER, USAGE))


def test_cached_tokens_are_cheaper_when_the_table_knows_the_cached_rate() -> None:
    rates = table_rates(OPENAI, "gpt-4o")
    assert rates is not None and rates.cached_input is not None and rates.input is not None
    assert rates.cached_input < rates.input
    uncached = Usage(prompt_tokens=10_000, completion_tokens=500)
    cheaper = price_call(OPENAI, "gpt-4o", None, USAGE).cost_usd
    dearer = price_call(OPENAI, "gpt-4o", None, uncached).cost_usd
    assert cheaper is not None and dearer is not None
    assert dearer - cheaper == pytest.approx(4_000 * (rates.input - rates.cached_input) / 1e6)


def test_provider_cost_overrides_config_and_table() -> None:
    reported = Usage(10_000, 500, 4_000, provider_cost_usd=0.1234)
    price = Price(input=100, output=100, cached_input=100)
    assert price_call(OPENAI, "gpt-4o", None, reported) == Priced(0.1234, "provider")
    assert price_call(OPENAI, "gpt-4o", price, reported) == Priced(0.1234, "provider")
    assert price_call(OPENROUTER, "nobody/knows", None, reported) == Priced(0.1234, "provider")
    # A reported zero is a real figure (free models), not "unknown".
    free = Usage(10, 5, provider_cost_usd=0.0)
    assert price_call(OPENROUTER, "x/y:free", None, free) == Priced(0.0, "provider")


def test_a_full_preset_price_beats_the_table() -> None:
    price = Price(input=1.0, output=2.0, cached_input=0.5)
    expected = (6_000 * 1.0 + 4_000 * 0.5 + 500 * 2.0) / 1e6
    assert price_call(OPENAI, "gpt-4o", price, USAGE) == Priced(
        pytest.approx(expected),  # type: ignore[arg-type]
        "config",
    )
    # Also for a model the table has never heard of.
    assert price_call("https://llm.example.com/v1", "house-model", price, USAGE) == Priced(
        pytest.approx(expected),  # type: ignore[arg-type]
        "config",
    )


def test_a_partial_preset_price_falls_back_per_part() -> None:
    table = table_rates(OPENAI, "gpt-4o")
    assert table is not None and table.output is not None and table.cached_input is not None
    priced = price_call(OPENAI, "gpt-4o", Price(input=1.0), USAGE)
    expected = (6_000 * 1.0 + 4_000 * table.cached_input + 500 * table.output) / 1e6
    assert priced.source == "table"
    assert priced.cost_usd == pytest.approx(expected)
    # The parts this call does not use need no figure: no cached tokens, no lookup needed.
    plain = Usage(prompt_tokens=1000, completion_tokens=10)
    assert price_call(OPENAI, "gpt-4o", Price(input=1.0, output=2.0), plain) == Priced(
        pytest.approx(0.00102),  # type: ignore[arg-type]
        "config",
    )


def test_a_partial_price_the_table_cannot_complete_is_unknown() -> None:
    priced = price_call("https://llm.example.com/v1", "house-model", Price(input=1.0), USAGE)
    assert priced == Priced(None, "unknown")
    # Without a cached rate anywhere, cached tokens cost the input rate.
    price = Price(input=1.0, output=2.0)
    assert price_call("https://llm.example.com/v1", "house-model", price, USAGE) == Priced(
        pytest.approx((10_000 * 1.0 + 500 * 2.0) / 1e6),  # type: ignore[arg-type]
        "config",
    )


@pytest.mark.parametrize(
    "endpoint", ["http://127.0.0.1:8080/v1", "http://localhost:11434/v1", "http://[::1]:8000/v1"]
)
def test_loopback_endpoints_are_local_and_free(endpoint: str) -> None:
    # Even under the name of a hosted model: it runs on this machine.
    assert price_call(endpoint, "gpt-4o", None, USAGE) == Priced(0.0, "local")
    estimated = Usage(100, 10, estimated=True)
    assert price_call(endpoint, "llama3", None, estimated) == Priced(0.0, "local")


def test_a_price_configured_for_a_loopback_endpoint_is_used() -> None:
    # A local proxy in front of a paid service: the user's figures count, missing parts are 0.
    priced = price_call("http://127.0.0.1:4000/v1", "gpt-4o", Price(output=10.0), USAGE)
    assert priced == Priced(pytest.approx(500 * 10.0 / 1e6), "config")  # type: ignore[arg-type]


def test_estimated_usage_priced_from_the_table_says_so() -> None:
    estimated = Usage(prompt_tokens=10_000, completion_tokens=500, estimated=True)
    priced = price_call(OPENAI, "gpt-4o", None, estimated)
    assert priced.source == "estimated"
    assert priced.cost_usd == pytest.approx(_genai("gpt-4o", OPENAI, estimated))
    by_config = price_call(OPENAI, "gpt-4o", Price(input=1, output=1), estimated)
    assert by_config.source == "estimated"


@pytest.mark.parametrize(
    ("endpoint", "model"),
    [
        ("https://llm.example.com/v1", "house-model"),
        ("https://api.openai.com/v1", ""),
        # A self-hosted server on the LAN: a hosted model's name does not make it hosted.
        ("http://192.168.1.20:8000/v1", "gpt-4o"),
        ("http://gpu-box:8000/v1", "gpt-4o"),
        ("http://gpu-box.local:8000/v1", "gpt-4o"),
    ],
)
def test_unpriced_calls_are_unknown_never_zero(endpoint: str, model: str) -> None:
    assert price_call(endpoint, model, None, USAGE) == Priced(None, "unknown")


def test_a_gateway_url_still_finds_a_well_known_model_by_name() -> None:
    priced = price_call("https://llm.example.com/v1", "gpt-4o", None, USAGE)
    assert priced.source == "table"
    assert priced.cost_usd == pytest.approx(_genai("gpt-4o", OPENAI, USAGE))


def test_tiered_table_prices_follow_the_prompt_size() -> None:
    from aish.store.pricing import _rate

    class Tier:
        def __init__(self, start: int, price: str) -> None:
            self.start, self.price = start, Decimal(price)

    class Tiered:
        base = Decimal("3")
        tiers = (Tier(200_000, "6"),)

    assert _rate(Tiered(), 1_000) == 3.0
    assert _rate(Tiered(), 250_000) == 6.0
    assert _rate(Decimal("1.25"), 0) == 1.25
    assert _rate(None, 0) is None


def test_cost_at_needs_every_rate_the_usage_uses() -> None:
    assert cost_at(Rates(input=1.0), Usage(1_000_000, 0)) == 1.0
    assert cost_at(Rates(input=1.0), Usage(1_000_000, 1)) is None
    assert cost_at(Rates(), Usage(0, 0)) == 0.0
    # More cached than prompt tokens (a confused server): never a negative fresh count.
    assert cost_at(Rates(input=1.0, cached_input=0.5), Usage(10, 0, 20)) == 10 * 0.5 / 1e6


def test_table_lookups_never_touch_the_network(monkeypatch: pytest.MonkeyPatch) -> None:
    from aish.store import pricing

    pricing._table_model.cache_clear()

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("pricing opened a network connection")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    priced = price_call(OPENAI, "gpt-4o", None, USAGE)
    assert priced.source == "table" and priced.cost_usd is not None
    assert price_call("https://llm.example.com/v1", "house-model", None, USAGE).cost_usd is None


def test_importing_pricing_does_not_load_the_price_data() -> None:
    # Modules loaded from files: aish.llm's stand-in for httpx's command line (a module with
    # no file, put in place so that `import httpx` skips loading click and rich) is not httpx.
    code = (
        "import sys, aish.store.pricing; "
        "print(sorted(m for m, module in sys.modules.items() "
        "if m.startswith(('genai_prices', 'httpx')) and getattr(module, '__file__', None)))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert result.stdout.strip() == "[]"


def test_the_ledger_accepts_exactly_the_sources_pricing_gives() -> None:
    from aish.store import pricing, usage

    assert usage.COST_SOURCES == pricing.COST_SOURCES
