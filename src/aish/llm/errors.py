"""Typed broker errors.

Policies (retry, cloud fallback, what to tell the user) ask an error what it is — `retryable`,
`fallback_eligible` — instead of matching message strings. Every error renders as one line via
`str()`, naming what failed and where.

A request that cannot be made as configured raises `aish.errors.ConfigError`, which is not an
`LLMError`: it is not a failure of the model server, so it is never retried and never falls
back, and callers that mean it catch it by name.
"""

from __future__ import annotations

from aish.errors import AishError


class LLMError(AishError):
    """Base of every broker failure. `partial` keeps whatever text arrived before it."""

    retryable: bool = False
    fallback_eligible: bool = False

    def __init__(self, message: str, *, target: str | None = None, partial: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.target = target
        self.partial = partial

    def __str__(self) -> str:
        where = f"{self.target}: " if self.target else ""
        return f"{where}{self.message}"


class ConnectError(LLMError):
    """Cannot reach the endpoint: refused, DNS failure, TLS failure. `reason` says which."""

    retryable = True
    fallback_eligible = True

    def __init__(self, message: str, *, reason: str = "", target: str | None = None) -> None:
        super().__init__(message, target=target)
        self.reason = reason


class TimedOut(LLMError):
    """No connection or no byte within the allowed time. `phase` is `connect` or `idle`."""

    retryable = True
    fallback_eligible = True

    def __init__(
        self, message: str, *, phase: str, target: str | None = None, partial: str = ""
    ) -> None:
        super().__init__(message, target=target, partial=partial)
        self.phase = phase


class HTTPStatusError(LLMError):
    """The server answered with a non-success status before streaming began."""

    def __init__(
        self,
        message: str,
        *,
        status: int,
        body: str = "",
        retry_after_s: float | None = None,
        target: str | None = None,
    ) -> None:
        super().__init__(message, target=target)
        self.status = status
        self.body = body
        self.retry_after_s = retry_after_s

    @property
    def retryable(self) -> bool:  # type: ignore[override]
        # A 429 without Retry-After is usually a quota, not a burst: waiting will not help.
        if self.status == 429:
            return self.retry_after_s is not None
        return self.status == 408 or self.status >= 500

    @property
    def fallback_eligible(self) -> bool:  # type: ignore[override]
        return self.status == 408 or self.status >= 500


class AuthError(HTTPStatusError):
    """401/403: the key is missing, wrong or lacks permission. Never retried, never falls back."""

    @property
    def retryable(self) -> bool:  # type: ignore[override]
        return False

    @property
    def fallback_eligible(self) -> bool:  # type: ignore[override]
        return False


class ModelNotFoundError(HTTPStatusError):
    """404: the endpoint does not serve this model. Another preset may."""

    @property
    def retryable(self) -> bool:  # type: ignore[override]
        return False

    @property
    def fallback_eligible(self) -> bool:  # type: ignore[override]
        return True


class StreamErrorEvent(LLMError):
    """The server reported an error inside a stream that had already started.

    Servers that open the stream at once (OpenRouter, Anthropic) report upstream overloads
    this way; when the event carries a 5xx-like status it is retryable — which the broker only
    does while nothing was shown. It never falls back to another model (SPEC §8).
    """

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        target: str | None = None,
        partial: str = "",
    ) -> None:
        super().__init__(message, target=target, partial=partial)
        self.status = status

    @property
    def retryable(self) -> bool:  # type: ignore[override]
        return self.status is not None and (self.status == 408 or self.status >= 500)

    def __str__(self) -> str:
        where = f"{self.target}: " if self.target else ""
        return f"{where}error in the reply stream: {self.message}"


class TruncatedStreamError(LLMError):
    """The stream ended without a finish reason or `[DONE]`: the reply is incomplete.

    Retryable because a connection that drops before anything arrived is a transport failure;
    the broker never retries once output was shown, so a cut after text surfaces as is.
    """

    retryable = True


class ProtocolError(LLMError):
    """The server answered with something that is not the protocol: HTML, non-JSON, garbage."""
