"""What leaves the machine: every model call aish makes passes here first (SPEC §11).

For a target that scrubs secrets (`secrets = "scrub"`, the default for any endpoint off this
machine) every message — the system prompt, the history, command output, tool results, the
question — is scrubbed by the session's vault before it is sent: known secret values and
secret-shaped strings become stable `AISH_SECRET_<TYPE>_<n>` placeholders. Replies come back
with placeholders; only the gate turns them back into values, when a command is redeemed to run
(`gate.redeem`), and never into anything the model or the log is told.

The spending stop (`cost.stop_at_dollars`) is checked here too, before any call to a model that
is not on this machine: once the session has spent that much, such calls are refused with one
clear error until the limit is raised (`:cost limit <usd>`).

Each session (`aish.session.Session`) owns one `Outbound` and hands it to whatever calls a
model or redeems a placeholder (the chat turn, the Norris run, the gate's policies, the second
opinion, the context budget, the memory summarizer): there is no process-wide one. The class
lives here, below the session, because the agent's modules are the ones that use it. The vault
lives in memory only.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from aish.errors import AishError, ConfigError
from aish.llm.errors import LLMError

if TYPE_CHECKING:
    from aish.llm.model_client import ModelClient
    from aish.llm.transport import ClientPool
    from aish.llm.types import Message, ModelTarget, Reply, ToolSpec
    from aish.safety.secrets.scrubber import SecretVault

__all__ = ["REQUEST_FAILURES", "Outbound", "RequestFailure", "SpendingStopped", "door"]


class SpendingStopped(AishError):
    """The session reached `cost.stop_at_dollars`: no more calls to paid models.

    Neither a broker failure (`LLMError`: nothing was sent) nor a configuration error (the
    config is fine; the session spent its allowance): callers that mean it name it."""

    def __init__(self, reason: str, *, target: str | None = None) -> None:
        super().__init__(reason)
        self.message = reason
        self.target = target

    def __str__(self) -> str:
        where = f"{self.target}: " if self.target else ""
        return f"{where}{self.message}"


# Why a model call through this door failed: the broker's error, a request that cannot be made
# as configured, or the spending stop. The tuple is for `except`, the union for annotations.
RequestFailure = LLMError | ConfigError | SpendingStopped
REQUEST_FAILURES = (LLMError, ConfigError, SpendingStopped)


@dataclass
class Outbound:
    # Says why a call to `target` must not be made (the spending stop), or None.
    refuse: Callable[[ModelTarget], str | None] | None = None
    # Whose sensitive variables are known secrets (None: aish's own environment), learned
    # before the first scrub — not at start-up, which must stay fast.
    environment: Mapping[str, str] | None = None
    _learned: bool = field(default=False, init=False, repr=False)
    _vault: SecretVault | None = field(default=None, init=False, repr=False)
    # Scrubbed text by original, with the vault's generation it was scrubbed at: a history
    # is scrubbed once, not on every request, until the vault learns something new.
    _scrubbed_cache: dict[str, tuple[int, str]] = field(
        default_factory=dict, init=False, repr=False
    )
    # Keep HTTP connections from one request to the next (whoever sets it closes them with
    # `aclose`); otherwise every request has a client of its own, closed with it.
    keep_connections: bool = False
    _clients: ClientPool | None = field(default=None, init=False, repr=False)

    def client(self, target: ModelTarget) -> ModelClient | None:
        """The kept client for `target`'s kind of endpoint, whose open connection the next
        request reuses (no new TCP and TLS handshake, the CA bundle loaded once); None when
        connections are not kept (the client is imported on the first call)."""
        if not self.keep_connections:
            return None
        if self._clients is None:
            from aish.llm.transport import ClientPool

            self._clients = ClientPool()
        return self._clients.client(target)

    async def aclose(self) -> None:
        """Close the session's connections to model servers."""
        if self._clients is not None:
            await self._clients.aclose()

    @property
    def vault(self) -> SecretVault:
        """The session's placeholders (made on first use: its patterns take a while to load)."""
        if self._vault is None:
            from aish.safety.secrets.scrubber import SecretVault

            self._vault = SecretVault()
        return self._vault

    def prepare(self, target: ModelTarget, messages: Sequence[Message]) -> list[Message]:
        """The messages as `target` may see them; raises `SpendingStopped` for a call the
        session's spending limit refuses."""
        reason = self.refuse(target) if self.refuse is not None else None
        if reason is not None:
            raise SpendingStopped(reason, target=target.name)
        if not target.scrub_secrets:
            return list(messages)
        self._learn_environment()
        # Learn from every message first: a value revealed by the newest one (after
        # `--password`, in `.env` output) is scrubbed in the older ones of this request too.
        for message in messages:
            self._scrub(message.content)
        scrubbed = [self._scrubbed(message) for message in messages]
        self._keep_only(messages)
        return scrubbed

    async def chat(
        self,
        target: ModelTarget,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] | None = None,
        *,
        client: ModelClient | None = None,
    ) -> Reply:
        """The broker's `chat`, through this door (the broker is imported on the first call)."""
        from aish.llm import broker

        sent = self.prepare(target, messages)
        return await broker.chat(target, sent, tools, client=client or self.client(target))

    def _learn_environment(self) -> None:
        if not self._learned:
            self._learned = True
            from aish.safety.secrets.scrubber import sensitive_environment

            env = os.environ if self.environment is None else self.environment
            self.vault.learn(sensitive_environment(env))

    def scrub(self, text: str) -> str:
        """`text` with its secrets replaced, whoever it is for (memory candidates: they go
        into later conversations, cloud ones included)."""
        self._learn_environment()
        return self.vault.scrub(text)

    def holds_secrets(self, text: str) -> bool:
        """Whether `scrub` would change `text`; nothing is learned from it."""
        self._learn_environment()
        return self.vault.holds_secrets(text)

    def _scrubbed(self, message: Message) -> Message:
        calls = tuple(replace(c, arguments=self._scrub(c.arguments)) for c in message.tool_calls)
        return replace(message, content=self._scrub(message.content), tool_calls=calls)

    def _scrub(self, text: str) -> str:
        vault = self.vault
        cached = self._scrubbed_cache.get(text)
        if cached is not None and cached[0] == vault.generation:
            return cached[1]
        scrubbed = vault.scrub(text)
        self._scrubbed_cache[text] = (vault.generation, scrubbed)
        return scrubbed

    def _keep_only(self, messages: Sequence[Message]) -> None:
        """The cache holds one conversation's messages, not every text ever sent."""
        if len(self._scrubbed_cache) > 2 * len(messages) + 64:
            keep = {m.content for m in messages} | {
                c.arguments for m in messages for c in m.tool_calls
            }
            self._scrubbed_cache = {k: v for k, v in self._scrubbed_cache.items() if k in keep}


def door(outbound: Outbound | None) -> Outbound:
    """`outbound`, or a door of its own for a caller outside any session (a test, a
    benchmark): no spending stop, and a vault nothing else shares."""
    return Outbound() if outbound is None else outbound
