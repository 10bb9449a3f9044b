"""Whether two resolved model targets are the same model: the judge must never be the proposer.

Two presets are the same model when they send to the same endpoint and name the same model,
whatever the presets are called. Preset names, timeouts, keys and prices say nothing about
which weights answer, so only the endpoint and the model name are compared, and both are
compared loosely: when in doubt the answer is "the same", because calling two spellings of one
model independent would let a model judge its own proposal, while calling two models the same
only means the user is asked.

Loose means: the URL is case-insensitive; a default port (80, 443) is the same as
none; every loopback spelling (`localhost`, `127.0.0.1`, `[::1]`, `0.0.0.0`) is one host; a
trailing `/` or `/v1` on the path does not matter (servers serve both, and Anthropic's base URL
is written with or without it); the model name is case-insensitive and Ollama's implicit
`:latest` tag is the bare name.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from aish.llm.types import ModelTarget

__all__ = ["endpoint_identity", "model_identity", "same_model"]

_DEFAULT_PORTS = {"http": 80, "https": 443}
_LOOPBACK = frozenset({"localhost", "127.0.0.1", "::1", "0.0.0.0", "::", "ip6-localhost"})


def same_model(first: ModelTarget, second: ModelTarget) -> bool:
    """True when both targets reach the same model at the same endpoint."""
    return model_identity(first) == model_identity(second)


def model_identity(target: ModelTarget) -> tuple[str, str]:
    """What identifies the model behind a target: its endpoint and its model name, normalised."""
    model = target.model.strip().lower()
    model = model.removesuffix(":latest")
    return endpoint_identity(target.endpoint), model


def endpoint_identity(endpoint: str) -> str:
    """The endpoint URL reduced to what decides which server answers."""
    text = endpoint.strip()
    if "://" not in text:
        text = "http://" + text  # users write `127.0.0.1:8080/v1` too
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError:
        return text.lower()  # not a URL we can take apart: compared as written
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower().rstrip(".")
    if host in _LOOPBACK or host.startswith("127."):
        host = "loopback"
    if port is None:
        port = _DEFAULT_PORTS.get(scheme)
    # Paths are compared without case too: a server that tells `/V1` from `/v1` is rarer than
    # a user who wrote them differently.
    path = parts.path.lower().rstrip("/")
    path = path.removesuffix("/v1").rstrip("/")
    query = f"?{parts.query.lower()}" if parts.query else ""
    return f"{scheme}://{host}:{port}{path}{query}"
