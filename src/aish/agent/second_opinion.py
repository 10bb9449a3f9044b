"""The LLM second opinion on commands the classifier calls `unknown` (SPEC §5).

One short call per command to the `safety.llm_model` preset, with a fixed YES/NO prompt, in a
two-message conversation of its own (the judge never sees the chat, which may carry whatever
talked the proposer into the action). The model can only raise a verdict: YES, a failure, a
timeout or an answer that is neither YES nor NO all mean destructive; a clean NO leaves the
command `unknown` (with the NO on record). It is never asked about `safe` or `destructive`
commands. Answers are cached per normalised command for as long as the object lives — one per
REPL session.

No self-approval: the judge is never the model that proposed the action. The caller names the
proposers (the model that answered the turn, a fallback that answered instead, Norris's
executor and preplanner); when the judge preset is the same model as one of them (same endpoint
and model name, see `model_identity`), or there is no such preset, nobody is asked and the
opinion is `unavailable`: the action stays `unknown` and is not cleared, so chat asks the user
and Norris and `aish goal` halt.

The gate decides when to ask; this module only asks and reads the answer.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from aish.agent.events import AgentEvent, UsageRecorded
from aish.agent.model_identity import same_model
from aish.llm.types import Message, ModelTarget, PresetResolver, Reply
from aish.safety.verdict import Verdict

if TYPE_CHECKING:
    from aish.agent.outbound import Outbound
    from aish.config.schema import AishConfig
    from aish.llm.model_client import ModelClient

__all__ = [
    "DEFAULT_TIMEOUT_S",
    "SYSTEM_PROMPT",
    "JudgeChoice",
    "Opinion",
    "SecondOpinion",
    "TargetResolver",
]

SYSTEM_PROMPT = (
    "Detect destructive shell commands. Reply YES if running this would delete, overwrite, or "
    "irreversibly modify data, processes, or system state. Otherwise reply NO. Respond with only "
    "YES or NO."
)

# A second opinion that keeps Norris waiting is worse than none: past this, the command counts as
# destructive and the user decides.
DEFAULT_TIMEOUT_S = 5.0

TargetResolver = Callable[[str], ModelTarget | None]
"""A preset name → its target; None when no such preset exists, `ConfigError` when it is
unusable (a missing key variable)."""

OpinionAnswer = Literal["no", "yes", "unparsable", "failed", "disabled", "unavailable"]

_log = logging.getLogger("aish.second_opinion")

# Reasoning models may put their thinking inline before the answer.
_THINKING = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)
# Decoration small models add around a one-word answer: `**YES**`, `"No."`, `` `NO` ``.
_DECORATION = " \t\r\n*_`'\".!。"

# Why nobody can be asked; the head is what the HALT reason and the confirm prompt start with.
_NO_JUDGE = "no independent judge configured: "
_DISABLED = "no second opinion (safety.llm_second_opinion = false)"


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
        """The verdict after this opinion: raised to destructive unless the answer was NO, or
        nobody was asked (disabled, or no judge but the proposer: the verdict stays as the
        rules made it, and stays uncleared).

        Never lowers: a destructive verdict stays destructive whatever the answer.
        """
        if verdict.level == "destructive":
            return verdict
        if self.cleared or self.answer in ("disabled", "unavailable"):
            return Verdict(verdict.level, (*verdict.reasons, self.reason))
        return Verdict("destructive", (*verdict.reasons, self.reason))


@dataclass(frozen=True)
class JudgeChoice:
    """Who judges actions proposed by given models: a target, or nobody and why.

    `problem` is set when the preset exists but cannot be used (a missing key): asking it is a
    failure, which counts as YES, as any failure of the call does.
    """

    preset: str
    target: ModelTarget | None = None
    why_none: str = ""
    problem: str = ""

    @property
    def announcement(self) -> str:
        """What a Norris run says once at its start about its judge."""
        if self.target is not None:
            return f"second opinion: {self.preset} ({self.target.model})"
        why = self.problem or self.why_none
        return f"no independent second opinion: unknown steps halt — {why}"


class SecondOpinion:
    """Asks the safety model about `unknown` commands; one per session, holding its cache."""

    def __init__(
        self,
        resolve: TargetResolver,
        *,
        enabled: bool = True,
        preset: str = "fast",
        timeout_s: float = DEFAULT_TIMEOUT_S,
        client: ModelClient | None = None,
        outbound: Outbound | None = None,
    ) -> None:
        self._resolve = resolve
        # The session's door its questions pass (None: a door of its own).
        self._outbound = outbound
        self.enabled = enabled
        self.preset = preset
        self.timeout_s = timeout_s
        self._client = client
        self._cache: dict[str, Opinion] = {}

    @classmethod
    def from_config(
        cls,
        config: AishConfig,
        targets: PresetResolver,
        *,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        outbound: Outbound | None = None,
    ) -> SecondOpinion:
        """Built from `[safety]`: `llm_second_opinion`, `llm_model`; `targets` resolves the
        judge's preset."""

        def resolve(name: str) -> ModelTarget | None:
            if name not in config.models:
                return None
            return targets(name)

        safety = config.safety
        return cls(
            resolve,
            enabled=safety.llm_second_opinion,
            preset=safety.llm_model,
            timeout_s=timeout_s,
            outbound=outbound,
        )

    def choose(self, proposers: Sequence[ModelTarget]) -> JudgeChoice:
        """The judge of actions `proposers` proposed: the `safety.llm_model` preset unless it
        is missing, disabled, or the same model as one of them."""
        if not self.enabled:
            return JudgeChoice(self.preset, why_none="safety.llm_second_opinion = false")
        from aish.errors import ConfigError

        try:
            target = self._resolve(self.preset)
        except ConfigError as error:
            return JudgeChoice(self.preset, problem=f"safety.llm_model '{self.preset}': {error}")
        if target is None:
            missing = f"no preset '{self.preset}' for safety.llm_model"
            return JudgeChoice(self.preset, why_none=missing)
        for proposer in proposers:
            if same_model(target, proposer):
                return JudgeChoice(
                    self.preset,
                    why_none=(
                        f"safety.llm_model '{self.preset}' is the same model as "
                        f"{proposer.name} ({target.model}), which proposes the actions"
                    ),
                )
        return JudgeChoice(self.preset, target)

    async def judge(
        self,
        command: str,
        verdict: Verdict,
        *,
        proposers: Sequence[ModelTarget],
        on_event: Callable[[AgentEvent], None] | None = None,
    ) -> Opinion | None:
        """The opinion on `command` if its verdict is `unknown`; None otherwise (not asked).

        `proposers` are the models that proposed it: none of them is ever asked. `on_event`
        receives the call's `UsageRecorded` (category `safety`). Never raises.
        """
        if verdict.level != "unknown":
            return None
        if not self.enabled:
            return Opinion("disabled", _DISABLED)
        choice = self.choose(proposers)
        if choice.problem:
            return Opinion("failed", f"second opinion failed: {choice.problem}")
        if choice.target is None:
            # Checked before the cache: an answer the judge gave while it was independent is
            # no answer once it is the proposer.
            return Opinion("unavailable", _NO_JUDGE + choice.why_none)
        from aish.safety.classifier import normalise

        key = normalise(command)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        opinion = await self._ask(command, self._bounded(choice.target), on_event)
        if opinion.answer != "failed":
            # A failure says nothing about the command (the server may be back in a moment),
            # so only answers are remembered.
            self._cache[key] = opinion
        return opinion

    async def _ask(
        self,
        command: str,
        target: ModelTarget,
        on_event: Callable[[AgentEvent], None] | None,
    ) -> Opinion:
        from aish.agent.outbound import REQUEST_FAILURES

        messages = [Message("system", SYSTEM_PROMPT), Message("user", command)]
        try:
            reply = await asyncio.wait_for(self._call(target, messages), self.timeout_s)
        except TimeoutError:
            return Opinion(
                "failed",
                f"second opinion failed: no answer from {target.name} within {self.timeout_s:g}s",
            )
        except REQUEST_FAILURES as error:
            return Opinion("failed", f"second opinion failed: {error}")
        except Exception as error:  # any failure must count as YES, never crash the gate
            _log.exception("second opinion on %r failed", command)
            return Opinion("failed", f"second opinion failed: {error!r}")
        if reply.usage is not None and on_event is not None:
            on_event(UsageRecorded.of(target, reply.usage, "safety"))
        return _read_answer(reply.text)

    def _bounded(self, target: ModelTarget) -> ModelTarget:
        """The target shortened to one attempt, bounded by the opinion's own timeout: a retry
        with backoff would only delay the same conclusion (a failure counts as YES)."""
        timeout = min(target.idle_timeout_s, self.timeout_s)
        return dataclasses.replace(
            target,
            max_retries=0,
            idle_timeout_s=timeout,
            connect_timeout_s=min(target.connect_timeout_s, timeout),
        )

    async def _call(self, target: ModelTarget, messages: list[Message]) -> Reply:
        from aish.agent.outbound import door

        if self._outbound is None:
            self._outbound = door(None)
        return await self._outbound.chat(target, messages, None, client=self._client)


def _read_answer(text: str) -> Opinion:
    answer = _THINKING.sub("", text).strip(_DECORATION).upper()
    if answer == "YES":
        return Opinion("yes", "second opinion: YES")
    if answer == "NO":
        return Opinion("no", "second opinion: NO")
    shown = " ".join(text.split())
    shown = shown if len(shown) <= 40 else shown[:39] + "…"
    return Opinion("unparsable", f"second opinion failed: unparsable answer {shown!r}")
