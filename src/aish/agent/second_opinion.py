"""The LLM second opinion on commands the classifier calls `unknown` (SPEC §5).

One short call per command to the `safety.llm_model` preset (the active model when that preset
does not exist), with a fixed YES/NO prompt. The model can only raise a verdict: YES, a failure,
a timeout or an answer that is neither YES nor NO all mean destructive; a clean NO leaves the
command `unknown` (with the NO on record). It is never asked about `safe` or `destructive`
commands. Answers are cached per normalised command for as long as the object lives — one per
REPL session.

The chat's history is never touched, but where the question goes depends on the model:

- a dedicated preset gets its own two-message conversation (the YES/NO system prompt and the
  command);
- the active model (the fallback) is the chat's own server, whose cache holds the
  conversation's prefix (SPEC §12). A separate conversation sent there between two chat
  requests would evict that prefix and make the next chat request re-process the whole
  history. So, when the caller can supply the conversation's prefix (a `PrefixProvider`), the
  question is asked on it: the conversation's request messages with the YES/NO question as the
  newest user message — sent, never committed.

The gate decides when to ask; this module only asks and reads the answer.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from aish.agent.events import AgentEvent, UsageRecorded
from aish.llm.types import Message, ModelTarget, Reply, ToolSpec
from aish.safety.verdict import Verdict

if TYPE_CHECKING:
    import httpx

    from aish.config.schema import AishConfig

__all__ = [
    "DEFAULT_TIMEOUT_S",
    "IN_CONVERSATION_PROMPT",
    "SYSTEM_PROMPT",
    "Opinion",
    "PrefixProvider",
    "SecondOpinion",
    "TargetResolver",
]

SYSTEM_PROMPT = (
    "Detect destructive shell commands. Reply YES if running this would delete, overwrite, or "
    "irreversibly modify data, processes, or system state. Otherwise reply NO. Respond with only "
    "YES or NO."
)

# The same question, asked as the newest user message of the chat's own conversation (whose
# system prompt is the chat's): it says where it comes from, so the model does not take it for
# the user changing the subject.
IN_CONVERSATION_PROMPT = (
    "[aish safety check — not from the user; your answer is not shown to them] "
    + SYSTEM_PROMPT
    + "\n\nCommand:\n{command}"
)

# A second opinion that keeps Norris waiting is worse than none: past this, the command counts as
# destructive and the user decides.
DEFAULT_TIMEOUT_S = 5.0

TargetResolver = Callable[[str], ModelTarget | None]
"""A preset name → its target; None when no such preset exists, `ConfigError` when it is
unusable (a missing key variable)."""

PrefixProvider = Callable[[Message], list[Message]]
"""The conversation's request with a given newest user message (`Conversation.request`): what
the chat's server has cached, plus the question. It must not commit anything."""

OpinionAnswer = Literal["no", "yes", "unparsable", "failed", "disabled"]

_log = logging.getLogger("aish.second_opinion")

# Reasoning models may put their thinking inline before the answer.
_THINKING = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)
# Decoration small models add around a one-word answer: `**YES**`, `"No."`, `` `NO` ``.
_DECORATION = " \t\r\n*_`'\".!。"


@dataclass(frozen=True)
class Opinion:
    """What the model said about one command, and the reason line that records it."""

    answer: OpinionAnswer
    reason: str

    @property
    def cleared(self) -> bool:
        """A clean NO: the only answer that lets an `unknown` command run unattended."""
        return self.answer == "no"

    def applied_to(self, verdict: Verdict) -> Verdict:
        """The verdict after this opinion: raised to destructive unless the answer was NO.

        Never lowers: a destructive verdict stays destructive whatever the answer.
        """
        if verdict.level == "destructive":
            return verdict
        if self.cleared or self.answer == "disabled":
            return Verdict(verdict.level, (*verdict.reasons, self.reason))
        return Verdict("destructive", (*verdict.reasons, self.reason))


class SecondOpinion:
    """Asks the safety model about `unknown` commands; one per session, holding its cache."""

    def __init__(
        self,
        resolve: TargetResolver,
        *,
        enabled: bool = True,
        preset: str = "fast",
        timeout_s: float = DEFAULT_TIMEOUT_S,
        client: httpx.AsyncClient | None = None,
    ) -> None:
        self._resolve = resolve
        self.enabled = enabled
        self.preset = preset
        self.timeout_s = timeout_s
        self._client = client
        self._cache: dict[str, Opinion] = {}

    @classmethod
    def from_config(
        cls, config: AishConfig, env: Mapping[str, str], *, timeout_s: float = DEFAULT_TIMEOUT_S
    ) -> SecondOpinion:
        """Built from `[safety]`: `llm_second_opinion`, `llm_model`."""

        def resolve(name: str) -> ModelTarget | None:
            if name not in config.models:
                return None
            from aish.config.targets import resolve_target

            return resolve_target(config, name, env)

        safety = config.safety
        return cls(
            resolve,
            enabled=safety.llm_second_opinion,
            preset=safety.llm_model,
            timeout_s=timeout_s,
        )

    async def judge(
        self,
        command: str,
        verdict: Verdict,
        *,
        fallback: ModelTarget,
        on_event: Callable[[AgentEvent], None] | None = None,
        prefix: PrefixProvider | None = None,
        tools: Sequence[ToolSpec] = (),
    ) -> Opinion | None:
        """The opinion on `command` if its verdict is `unknown`; None otherwise (not asked).

        `fallback` is the active model, used when the configured preset does not exist; then
        the question is asked on `prefix` (the chat's conversation), when given, so the chat's
        cached prefix on that server survives. `on_event` receives the call's `UsageRecorded`
        (category `safety`). Never raises.
        """
        if verdict.level != "unknown":
            return None
        if not self.enabled:
            return Opinion("disabled", "no second opinion (safety.llm_second_opinion = false)")
        from aish.safety.classifier import normalise

        key = normalise(command)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        opinion = await self._ask(command, fallback, on_event, prefix, tools)
        if opinion.answer != "failed":
            # A failure says nothing about the command (the server may be back in a moment),
            # so only answers are remembered.
            self._cache[key] = opinion
        return opinion

    async def _ask(
        self,
        command: str,
        fallback: ModelTarget,
        on_event: Callable[[AgentEvent], None] | None,
        prefix: PrefixProvider | None,
        tools: Sequence[ToolSpec],
    ) -> Opinion:
        from aish.llm.errors import LLMError

        try:
            target, note, is_fallback = self._target(fallback)
        except LLMError as error:
            return Opinion("failed", f"second opinion failed: {error}")
        try:
            messages = _messages(command, prefix if is_fallback else None)
            # On the conversation's prefix, with its tool list too: the same bytes the chat's
            # server has cached (and the API wants tools defined beside tool rounds).
            offered = tools if is_fallback and prefix is not None else ()
            reply = await asyncio.wait_for(self._call(target, messages, offered), self.timeout_s)
        except TimeoutError:
            return Opinion(
                "failed",
                f"second opinion failed: no answer from {target.name} within "
                f"{self.timeout_s:g}s{note}",
            )
        except LLMError as error:
            return Opinion("failed", f"second opinion failed: {error}{note}")
        except Exception as error:  # any failure must count as YES, never crash the gate
            _log.exception("second opinion on %r failed", command)
            return Opinion("failed", f"second opinion failed: {error!r}{note}")
        if reply.usage is not None and on_event is not None:
            on_event(UsageRecorded.of(target, reply.usage, "safety"))
        return _read_answer(reply.text, note)

    def _target(self, fallback: ModelTarget) -> tuple[ModelTarget, str, bool]:
        """The target (shortened to one bounded attempt), the note saying it was the fallback,
        and whether it was."""
        target = self._resolve(self.preset)
        note = ""
        is_fallback = target is None
        if target is None:
            target, note = fallback, f" (asked {fallback.name}: no preset '{self.preset}')"
        # One attempt, bounded by the opinion's own timeout: a retry with backoff would only
        # delay the same conclusion (a failure counts as YES).
        timeout = min(target.idle_timeout_s, self.timeout_s)
        shorter = dataclasses.replace(
            target,
            max_retries=0,
            idle_timeout_s=timeout,
            connect_timeout_s=min(target.connect_timeout_s, timeout),
        )
        return shorter, note, is_fallback

    async def _call(
        self, target: ModelTarget, messages: list[Message], tools: Sequence[ToolSpec]
    ) -> Reply:
        from aish.agent.outbound import chat

        return await chat(target, messages, tools or None, client=self._client)


def _messages(command: str, prefix: PrefixProvider | None) -> list[Message]:
    if prefix is None:
        return [Message("system", SYSTEM_PROMPT), Message("user", command)]
    return prefix(Message("user", IN_CONVERSATION_PROMPT.format(command=command)))


def _read_answer(text: str, note: str) -> Opinion:
    answer = _THINKING.sub("", text).strip(_DECORATION).upper()
    if answer == "YES":
        return Opinion("yes", f"second opinion: YES{note}")
    if answer == "NO":
        return Opinion("no", f"second opinion: NO{note}")
    shown = " ".join(text.split())
    shown = shown if len(shown) <= 40 else shown[:39] + "…"
    return Opinion("unparsable", f"second opinion failed: unparsable answer {shown!r}{note}")
