"""Cloud fallback (SPEC §8): which preset a failed request is retried on, and what to say.

A request whose model failed in transport (cannot connect, DNS, timeout, HTTP 5xx, 408, 404
model-not-found) before anything was shown is sent once more to `routing.fallback_model`; the
error itself says whether it qualifies (`fallback_eligible`). The `Exchange` (and `aish ask`)
do the retry; this module decides when one is due, watches what was shown, resolves the
fallback preset, names the failure in a few words and builds the status line.
"""

from __future__ import annotations

import ipaddress
from dataclasses import fields
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from aish.agent.events import (
    AgentEvent,
    AssistantDelta,
    AssistantReasoning,
    Frontend,
    ReplyFinished,
    ToolCallProposed,
)
from aish.agent.outbound import RequestFailure, SpendingStopped
from aish.errors import ConfigError
from aish.llm.errors import (
    ConnectError,
    HTTPStatusError,
    LLMError,
    ModelNotFoundError,
    ProtocolError,
    StreamErrorEvent,
    TimedOut,
    TruncatedStreamError,
)
from aish.llm.types import ModelTarget, PresetResolver, Reply

if TYPE_CHECKING:
    from aish.config.schema import AishConfig

_STATUS = "{where}{name} failed ({reason}); retrying via {fallback}"

# Host names that only resolve inside a home or office network.
_PRIVATE_SUFFIXES = (".local", ".lan", ".home.arpa", ".internal", ".localhost")

_CONNECT_REASONS = {
    "connection refused": "connection refused",
    "unknown host": "cannot resolve host",
}

# Carrier-grade NAT space: also what VPN meshes (Tailscale) give the machines of one network.
_SHARED = ipaddress.ip_network("100.64.0.0/10")

_TIMEOUT_PHASES = {"connect": "connect timed out", "idle": "timed out", "write": "send timed out"}


# What makes a reply "shown": after any of these, a failure can no longer fall back.
_OUTPUT = (AssistantDelta, AssistantReasoning, ToolCallProposed)


class UntilShown:
    """Passes a request's events on, noting whether any of the reply itself was shown
    (`shown`; a retry notice or a status is not the reply). The end of a reply cut before
    anything was shown is held back: if the request falls back, the failed attempt leaves no
    trace but its status line; `release` passes it on when it does not."""

    def __init__(self, frontend: Frontend) -> None:
        self._frontend = frontend
        self.shown = False
        self._held: ReplyFinished | None = None

    def render(self, event: AgentEvent) -> None:
        if isinstance(event, ReplyFinished) and event.cut and not self.shown:
            self._held = event
            return
        self.shown = self.shown or isinstance(event, _OUTPUT)
        self._frontend.render(event)

    def release(self) -> None:
        if self._held is not None:
            self._frontend.render(self._held)
            self._held = None


def falls_back(
    error: RequestFailure, shown: bool, target: ModelTarget, fallback: ModelTarget | None
) -> bool:
    """A request to `target` that failed with `error` is asked again on `fallback`: once,
    for a transport failure, and only when nothing of the reply was shown."""
    if fallback is None or fallback.name == target.name:
        return False
    # A request refused before it was sent (config, spending stop) is not a transport failure.
    return isinstance(error, LLMError) and error.fallback_eligible and not shown


def reset_reply(reply: Reply) -> None:
    """Empty the caller's `reply` in place, for the fallback's answer to fill."""
    fresh = Reply()
    for spec in fields(Reply):
        setattr(reply, spec.name, getattr(fresh, spec.name))


def fallback_reason(error: RequestFailure) -> str:
    """The failure in a few words, for the status line: `connection refused`, `HTTP 502`…"""
    if isinstance(error, ConnectError):
        return _CONNECT_REASONS.get(error.reason, error.reason or "cannot connect")
    if isinstance(error, TimedOut):
        return _TIMEOUT_PHASES.get(error.phase, "timed out")
    if isinstance(error, ModelNotFoundError):
        return "model not found"
    if isinstance(error, HTTPStatusError):
        return f"HTTP {error.status}"
    if isinstance(error, StreamErrorEvent):
        return "error in the reply stream"
    if isinstance(error, TruncatedStreamError):
        return "reply cut short"
    if isinstance(error, ProtocolError):
        return "not a model server's answer"
    if isinstance(error, ConfigError | SpendingStopped):
        return "configuration error"
    return type(error).__name__


def fallback_status(failed: ModelTarget, error: RequestFailure, fallback: ModelTarget) -> str:
    """The status line (the frontend adds `[aish] `): `local <name>` only for a preset whose
    endpoint is this machine or a private network, where "local" is what the user expects."""
    where = "local " if is_private_endpoint(failed.endpoint) else ""
    return _STATUS.format(
        where=where, name=failed.name, reason=fallback_reason(error), fallback=fallback.name
    )


def is_private_endpoint(url: str) -> bool:
    """True when the URL's host is this machine or on a private network: loopback, RFC 1918,
    link-local and IPv6 unique-local addresses, 100.64/10 (VPN meshes), `localhost`, names
    ending in `.local`, `.lan`, `.home.arpa` or `.internal`, and single-label host names."""
    try:
        host = urlsplit(url).hostname
    except ValueError:
        return False
    if not host:
        return False
    host = host.rstrip(".").lower()
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host == "localhost" or "." not in host or host.endswith(_PRIVATE_SUFFIXES)
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    if address.is_loopback or address.is_private or address.is_link_local:
        return True
    return isinstance(address, ipaddress.IPv4Address) and address in _SHARED


def fallback_target(
    config: AishConfig, active: ModelTarget, targets: PresetResolver, *, enabled: bool
) -> tuple[ModelTarget | None, str | None]:
    """The preset failed requests of `active` fall back to, and a one-line problem to say once.

    `(None, None)`: no fallback (disabled, `routing.fallback_model` unset, or naming the active
    preset itself); `(None, reason)`: the fallback is configured but cannot be used (unknown
    preset, missing API key).
    """
    name = config.routing.fallback_model
    if not enabled or not name or name == active.name:
        return None, None
    if name not in config.models:
        known = ", ".join(config.models)
        return None, f"routing.fallback_model: no model preset '{name}' (known: {known})"
    try:
        return targets(name), None
    except ConfigError as error:
        return None, f"routing.fallback_model: {error}"
