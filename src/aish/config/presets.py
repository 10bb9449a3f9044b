"""The model preset: one named endpoint + model + options, as the user writes it in the config.

Also decides which endpoints count as local: a loopback host never sees scrubbing by default,
everything else does, because a secret that reaches a remote server cannot be called back.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Annotated, Final, Literal
from urllib.parse import urlsplit

from aish.config.field_checks import After, setting
from aish.endpoints import Api, is_loopback_endpoint

__all__ = [
    "Api",
    "ModelPreset",
    "Price",
    "check_http_url",
    "check_url_with_host",
    "is_loopback_endpoint",
]

SecretsMode = Literal["scrub", "off"]

# A POSIX-ish environment variable name. Anything else in `api_key_env` is almost always the key
# itself pasted into the wrong field, which must not be sent anywhere or echoed back.
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def check_url_with_host(value: str) -> str:
    """Accept an http(s) URL with a host, exactly as written (an MCP server's URL may carry
    a query: some hosted servers take their key there)."""
    try:
        parts = urlsplit(value)
        has_host = bool(parts.hostname)
        parts.port  # noqa: B018 -- raises ValueError for a port out of range
    except ValueError:
        raise ValueError("not a valid URL (check the host and port)") from None
    if parts.scheme not in ("http", "https") or not has_host:
        raise ValueError("must be an http:// or https:// URL with a host")
    return value


def check_http_url(value: str) -> str:
    """A model endpoint: an http(s) URL with a host, without a query; no trailing slash."""
    parts = urlsplit(check_url_with_host(value))
    if parts.query or parts.fragment:
        # Paths are appended to the endpoint (`/chat/completions`); a query would end up
        # in the middle of the URL.
        raise ValueError("must not contain a query (?…) or fragment (#…)")
    return value.rstrip("/")


# What pydantic is told about every schema class (read only when a config is validated).
FORBID_UNKNOWN: Final = {"extra": "forbid"}


def _api_key_env_is_a_name(value: str | None) -> str | None:
    if value is not None and not _ENV_NAME.fullmatch(value):
        raise ValueError(
            "must be the NAME of an environment variable (like OPENAI_API_KEY), not the key itself"
        )
    return value


@dataclass
class Price:
    """Dollars per million tokens; unset parts fall back to the bundled price table."""

    __pydantic_config__ = FORBID_UNKNOWN

    input: float | None = setting(None, ge=0)
    output: float | None = setting(None, ge=0)
    cached_input: float | None = setting(None, ge=0)


@dataclass
class ModelPreset:
    """A named model: where it lives, which protocol it speaks, and how to talk to it."""

    __pydantic_config__ = FORBID_UNKNOWN

    endpoint: Annotated[str, After(check_http_url)]
    model: str = setting(min_length=1)
    api: Api = "openai"
    # The NAME of the variable holding the key; the key itself stays out of the file.
    api_key_env: Annotated[str | None, After(_api_key_env_is_a_name)] = None
    # Allowed because some users insist; loading one from a file produces a warning.
    api_key: str | None = None
    # The idle timeout: the longest silence tolerated between two bytes of a reply.
    timeout_s: float = setting(60.0, gt=0)
    connect_timeout_s: float = setting(5.0, gt=0)
    max_tokens: int | None = setting(None, gt=0)
    temperature: float | None = setting(None, ge=0, le=2)
    price: Price | None = None
    # None: decided by the endpoint's locality (see `effective_secrets`).
    secrets: SecretsMode | None = None
    # Offer MCP tools to this model; `false` for small local models that handle them badly.
    tools: bool = True
    max_retries: int = setting(2, ge=0, le=10)
    # Characters of one reply (text, reasoning and tool-call arguments) read before the
    # stream is closed and the reply cut with a notice: a broken or hostile server cannot
    # fill memory. Two million is far beyond any model's longest answer (about
    # 500,000 tokens), and leaves room for a 1 MB reply.
    max_reply_chars: int = setting(2_000_000, gt=0)

    def effective_secrets(self) -> SecretsMode:
        """`scrub` unless set otherwise or the endpoint is on this machine."""
        if self.secrets is not None:
            return self.secrets
        return "off" if is_loopback_endpoint(self.endpoint) else "scrub"
