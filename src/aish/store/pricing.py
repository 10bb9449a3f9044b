"""What one model call cost, and where that figure came from.

In order of trust:

1. `provider`: the cost the server reported with the usage (OpenRouter's `usage.cost`).
2. `config`: the preset's `price` (dollars per million tokens). A part left unset (say
   `cached_input`) is taken from the table; the source is `config` only when every rate used
   came from the config, and `table` when the table filled a part in.
3. `local`: a loopback endpoint without a configured price runs on this machine: $0.
4. `table`: the offline price data of the `genai-prices` package, looked up by the endpoint's
   URL, or else by the model's name — except for endpoints on a private network, which serve
   their own models whatever the name says.
5. `unknown`: nothing could price it. The cost is None, never $0.

Usage that aish estimated (the server reported none) and priced from the config or the table is
`estimated`: the dollars are as rough as the tokens. Cached prompt tokens are charged at the
cached rate when one is known, else at the input rate.

It sits next to the usage ledger (`usage`), whose rows carry its `CostSource`, and is pure: no
I/O but reading bundled data, and no import from a room above the store (it names `llm` types
and, for type checks only, the config's `Price`). `genai-prices` is imported on the first
lookup, never at start-up, and only its bundled data is read: its update functions (which fetch
prices over the network) are never called.
"""

from __future__ import annotations

import ipaddress
import logging
import math
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Final, Literal
from urllib.parse import urlsplit

from aish.endpoints import is_loopback_endpoint
from aish.llm.types import Rates

if TYPE_CHECKING:
    from aish.config.presets import Price
    from aish.llm.types import Usage

CostSource = Literal["provider", "config", "table", "local", "estimated", "unknown"]

COST_SOURCES: Final[tuple[CostSource, ...]] = (
    "provider",
    "config",
    "table",
    "local",
    "estimated",
    "unknown",
)

_PER_TOKENS: Final = 1_000_000

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Priced:
    """A call's cost in USD (None: unknown) and where it came from."""

    cost_usd: float | None
    source: CostSource


UNKNOWN: Final = Priced(None, "unknown")


def price_call(
    target_endpoint: str, model: str, preset_price: Price | Rates | None, usage: Usage
) -> Priced:
    """Price one call from the best source there is (see the module docstring)."""
    reported = usage.provider_cost_usd
    if reported is not None and math.isfinite(reported) and reported >= 0:
        return Priced(float(reported), "provider")
    config = _config_rates(preset_price)
    local = is_loopback_endpoint(target_endpoint)
    if local and config == Rates():
        return Priced(0.0, "local")
    table: Rates | None = None
    if not local and not _complete(config, usage):
        table = table_rates(target_endpoint, model, usage.prompt_tokens)
    # On a loopback endpoint only the configured parts cost anything.
    fallback = Rates(0.0, 0.0, None) if local else (table or Rates())
    rates = Rates(
        input=_first(config.input, fallback.input),
        output=_first(config.output, fallback.output),
        cached_input=_first(config.cached_input, fallback.cached_input),
    )
    cost = cost_at(rates, usage)
    if cost is None:
        return UNKNOWN
    from_table = table is not None and any(
        mine is None and theirs is not None and _used(part, usage)
        for part, mine, theirs in (
            ("input", config.input, table.input),
            ("output", config.output, table.output),
            ("cached_input", config.cached_input, table.cached_input),
        )
    )
    if usage.estimated:
        return Priced(cost, "estimated")
    return Priced(cost, "table" if from_table else "config")


def cost_at(rates: Rates, usage: Usage) -> float | None:
    """Dollars for `usage` at `rates`; None when a rate the usage needs is missing.

    `prompt_tokens` includes the cached ones: those are charged at `cached_input` (else at
    `input`), the rest at `input`.
    """
    cached = max(0, min(usage.cached_tokens, usage.prompt_tokens))
    fresh = max(0, usage.prompt_tokens - cached)
    cached_rate = _first(rates.cached_input, rates.input)
    total = 0.0
    for tokens, rate in (
        (fresh, rates.input),
        (cached, cached_rate),
        (max(0, usage.completion_tokens), rates.output),
    ):
        if tokens == 0:
            continue
        if rate is None:
            return None
        total += tokens * rate
    return total / _PER_TOKENS


def table_rates(endpoint: str, model: str, prompt_tokens: int = 0) -> Rates | None:
    """The `genai-prices` rates for `model` at `endpoint` now, or None when it has none.

    Tiered prices (a higher rate past some prompt size) are resolved for `prompt_tokens`.
    """
    found = _table_model(endpoint, model)
    if found is None:
        return None
    try:
        prices = found.get_prices(datetime.now(tz=UTC))
        return Rates(
            input=_rate(prices.input_mtok, prompt_tokens),
            output=_rate(prices.output_mtok, prompt_tokens),
            cached_input=_rate(prices.cache_read_mtok, prompt_tokens),
        )
    except Exception:  # bad data in the table must never fail a model call
        log.debug("genai-prices could not price %s at %s", model, endpoint, exc_info=True)
        return None


@lru_cache(maxsize=64)
def _table_model(endpoint: str, model: str) -> Any:
    """The table's `ModelInfo` for `model` at `endpoint`, or None (cached per pair)."""
    if not model:
        return None
    try:
        # Deferred: the data module is large, and aish starts without it.
        from genai_prices.data_snapshot import get_snapshot

        snapshot = get_snapshot()
        attempts: list[str | None] = [endpoint]
        if not _self_hosted(endpoint):
            attempts.append(None)  # match by the model's name alone (a gateway, a proxy)
        for url in attempts:
            try:
                _provider, info = snapshot.find_provider_model(model, None, None, url)
            except LookupError:
                continue
            return info
    except Exception:  # the table is a convenience: a failure means "unknown", not an error
        log.debug("genai-prices lookup failed for %s at %s", model, endpoint, exc_info=True)
    return None


def _self_hosted(endpoint: str) -> bool:
    """An endpoint on a private network (or named like one): it serves its own models."""
    try:
        host = (urlsplit(endpoint).hostname or "").rstrip(".").lower()
    except ValueError:
        return False
    if not host:
        return False
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return "." not in host or host.endswith((".local", ".lan", ".internal", ".home.arpa"))
    return address.is_private or address.is_link_local or address.is_loopback


def _rate(value: object, prompt_tokens: int) -> float | None:
    if value is None:
        return None
    base = getattr(value, "base", None)
    if base is not None:  # genai_prices.types.TieredPrices: the last tier the prompt passes
        price = base
        for tier in reversed(getattr(value, "tiers", ())):
            if prompt_tokens > tier.start:
                price = tier.price
                break
        return float(price)
    return float(value)  # type: ignore[arg-type]


def _config_rates(price: Price | Rates | None) -> Rates:
    if price is None:
        return Rates()
    return Rates(input=price.input, output=price.output, cached_input=price.cached_input)


def _complete(rates: Rates, usage: Usage) -> bool:
    """Whether `rates` alone price `usage` at the best rate known (no lookup needed)."""
    return all(
        not _used(part, usage) or getattr(rates, part) is not None
        for part in ("input", "output", "cached_input")
    )


def _used(part: str, usage: Usage) -> bool:
    if part == "input":
        return usage.prompt_tokens > usage.cached_tokens
    if part == "output":
        return usage.completion_tokens > 0
    return usage.cached_tokens > 0


def _first(*values: float | None) -> float | None:
    return next((value for value in values if value is not None), None)
