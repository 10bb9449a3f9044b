"""The second opinion against a real model server (aish-testllm over HTTP on 127.0.0.1)."""

from __future__ import annotations

from typing import Any

import pytest

from aish.agent.events import AgentEvent, UsageRecorded
from aish.agent.gate import HaltAnswer, Policy, ProposedCommand, authorize
from aish.agent.second_opinion import (
    IN_CONVERSATION_PROMPT,
    SYSTEM_PROMPT,
    Opinion,
    SecondOpinion,
)
from aish.config.schema import AishConfig
from aish.conversation.context import Conversation
from aish.llm.types import Message, ModelTarget
from aish.safety.classifier import classify
from aish.safety.verdict import Verdict

from ..conftest import ServeFn

UNKNOWN = Verdict("unknown", ("frob is not known to be read-only",))
ASKED = {"system": "^Detect destructive shell commands"}


def answering(*replies: dict[str, Any]) -> dict[str, Any]:
    """A scenario whose safety questions get `replies` in turn (the last one repeats)."""
    return {"rules": [{"name": "safety", "when": ASKED, "replies": list(replies)}]}


def config(url: str | None, **safety: Any) -> AishConfig:
    models = {"fast": {"endpoint": f"{url}/v1", "model": "fast-model"}} if url else {}
    return AishConfig.model_validate({"models": models, "safety": safety})


def active(url: str) -> ModelTarget:
    return ModelTarget(name="local", endpoint=f"{url}/v1", model="active-model")


class Events:
    def __init__(self) -> None:
        self.seen: list[AgentEvent] = []

    def __call__(self, event: AgentEvent) -> None:
        self.seen.append(event)


async def judge(
    opinion: SecondOpinion, command: str, url: str, events: Events | None = None
) -> Opinion | None:
    return await opinion.judge(command, classify(command), fallback=active(url), on_event=events)


async def test_yes_makes_the_command_destructive(serve: ServeFn) -> None:
    server = serve(answering({"text": "YES"}))
    events = Events()
    opinion = SecondOpinion.from_config(config(server.url), {})
    said = await judge(opinion, "frob --all", server.url, events)
    assert said == Opinion("yes", "second opinion: YES")
    assert said.applied_to(UNKNOWN) == Verdict("destructive", (*UNKNOWN.reasons, said.reason))
    [request] = server.requests
    assert request["model"] == "fast-model"  # the `safety.llm_model` preset, not the active one
    assert request["body"]["messages"] == [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": "frob --all"},
    ]
    [usage] = events.seen
    assert isinstance(usage, UsageRecorded)
    assert (usage.preset, usage.category) == ("fast", "safety")
    assert usage.prompt_tokens > 0 and usage.completion_tokens > 0


async def test_no_keeps_it_unknown(serve: ServeFn) -> None:
    server = serve(answering({"text": "NO"}))
    said = await judge(SecondOpinion.from_config(config(server.url), {}), "frob", server.url)
    assert said == Opinion("no", "second opinion: NO") and said.cleared
    assert said.applied_to(UNKNOWN) == Verdict("unknown", (*UNKNOWN.reasons, said.reason))


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("no", "no"),
        ("**No.**", "no"),
        ("  Yes\n", "yes"),
        ("<think>It removes nothing… or does it?</think>\nNO", "no"),
        ("Maybe, it depends on the Makefile.", "unparsable"),
        ("NO, but YES if run as root", "unparsable"),
        ("", "unparsable"),
    ],
)
async def test_only_a_plain_yes_or_no_is_an_answer(serve: ServeFn, text: str, answer: str) -> None:
    server = serve(answering({"text": text}))
    said = await judge(SecondOpinion.from_config(config(server.url), {}), "make", server.url)
    assert said is not None and said.answer == answer
    if answer == "unparsable":
        assert said.reason.startswith("second opinion failed: unparsable answer")
        assert said.applied_to(UNKNOWN).level == "destructive"


@pytest.mark.parametrize(
    ("reply", "mentions"),
    [
        ({"status": 500}, "500"),
        ({"status": 503, "headers": {"Retry-After": "0"}}, "503"),
        ({"text": "NO", "cut_after": 0}, "second opinion failed"),
    ],
)
async def test_a_failed_call_counts_as_yes(
    serve: ServeFn, reply: dict[str, Any], mentions: str
) -> None:
    server = serve(answering(reply))
    said = await judge(SecondOpinion.from_config(config(server.url), {}), "make", server.url)
    assert said is not None and said.answer == "failed"
    assert said.reason.startswith("second opinion failed: ") and mentions in said.reason
    assert said.applied_to(UNKNOWN).level == "destructive"
    assert len(server.requests) == 1  # one short call: no retries


async def test_a_dead_server_counts_as_yes(serve: ServeFn) -> None:
    server = serve(answering({"text": "NO"}))
    url = server.url
    server.close()
    said = await judge(SecondOpinion.from_config(config(url), {}), "make", url)
    assert said is not None and said.answer == "failed"
    assert said.reason.startswith("second opinion failed: ")


async def test_a_slow_answer_counts_as_yes(serve: ServeFn) -> None:
    server = serve(answering({"text": "NO", "first_delay_ms": 5000}))
    opinion = SecondOpinion.from_config(config(server.url), {}, timeout_s=0.3)
    said = await judge(opinion, "make", server.url)
    assert said == Opinion("failed", "second opinion failed: no answer from fast within 0.3s")


async def test_answers_are_cached_per_normalised_command(serve: ServeFn) -> None:
    # The cache key is the command without surrounding whitespace; inside, whitespace can
    # matter (`echo "a  b"`), so `make  all` is another command.
    server = serve(answering({"text": "NO"}, {"text": "YES"}, {"text": "YES"}))
    opinion = SecondOpinion.from_config(config(server.url), {})
    first = await judge(opinion, "make all", server.url)
    again = await judge(opinion, "  make all\n", server.url)
    other = await judge(opinion, "make install", server.url)
    spaced = await judge(opinion, "make  all", server.url)
    assert first == again == Opinion("no", "second opinion: NO")
    assert other is not None and other.answer == "yes"
    assert spaced is not None and spaced.answer == "yes"
    assert [r["body"]["messages"][-1]["content"] for r in server.requests] == [
        "make all",
        "make install",
        "make  all",
    ]


async def test_failures_are_not_cached(serve: ServeFn) -> None:
    server = serve(answering({"status": 500}, {"text": "NO"}))
    opinion = SecondOpinion.from_config(config(server.url), {})
    failed = await judge(opinion, "make", server.url)
    answered = await judge(opinion, "make", server.url)
    assert failed is not None and failed.answer == "failed"
    assert answered is not None and answered.answer == "no"
    assert len(server.requests) == 2


async def test_never_asked_about_safe_or_destructive(serve: ServeFn) -> None:
    server = serve(answering({"text": "YES"}))
    opinion = SecondOpinion.from_config(config(server.url), {})
    fallback = active(server.url)
    assert await opinion.judge("ls", Verdict("safe"), fallback=fallback) is None
    destructive = Verdict("destructive", ("rm: deletes files",))
    assert await opinion.judge("rm -rf x", destructive, fallback=fallback) is None
    # NO never lowers a verdict the rules made destructive.
    assert Opinion("no", "second opinion: NO").applied_to(destructive) == destructive
    assert server.requests == []


async def test_disabled_by_config(serve: ServeFn) -> None:
    server = serve(answering({"text": "NO"}))
    opinion = SecondOpinion.from_config(config(server.url, llm_second_opinion=False), {})
    said = await judge(opinion, "make", server.url)
    assert said is not None and said.answer == "disabled" and not said.cleared
    assert "safety.llm_second_opinion = false" in said.reason
    assert said.applied_to(UNKNOWN).level == "unknown"
    assert server.requests == []


async def test_a_missing_preset_falls_back_to_the_active_model_and_says_so(
    serve: ServeFn,
) -> None:
    server = serve(answering({"text": "NO"}))
    opinion = SecondOpinion.from_config(config(None, llm_model="tiny"), {})
    said = await judge(opinion, "make", server.url)
    assert said == Opinion("no", "second opinion: NO (asked local: no preset 'tiny')")
    assert server.requests[0]["model"] == "active-model"


async def test_on_the_active_model_it_asks_on_the_conversations_prefix(serve: ServeFn) -> None:
    server = serve(
        {"rules": [{"when": {"user": "^\\[aish safety check"}, "reply": {"text": "NO"}}]}
    )
    conversation = Conversation("You are aish.")
    conversation.commit(Message("user", "how do I build?"), "Run make.")
    before = list(conversation.history)
    opinion = SecondOpinion.from_config(config(None, llm_model="tiny"), {})
    said = await opinion.judge(
        "make", UNKNOWN, fallback=active(server.url), prefix=conversation.request
    )
    assert said == Opinion("no", "second opinion: NO (asked local: no preset 'tiny')")
    [request] = server.requests
    question = IN_CONVERSATION_PROMPT.format(command="make")
    assert request["body"]["messages"] == [
        {"role": "system", "content": "You are aish."},
        {"role": "user", "content": "how do I build?"},
        {"role": "assistant", "content": "Run make."},
        {"role": "user", "content": question},
    ]
    assert SYSTEM_PROMPT in question and question.endswith("Command:\nmake")
    assert conversation.history == before  # asked on it, never committed to it


async def test_a_dedicated_preset_ignores_the_conversations_prefix(serve: ServeFn) -> None:
    server = serve(answering({"text": "NO"}))
    conversation = Conversation("You are aish.")
    opinion = SecondOpinion.from_config(config(server.url), {})
    await opinion.judge("make", UNKNOWN, fallback=active(server.url), prefix=conversation.request)
    [request] = server.requests
    assert request["model"] == "fast-model" and len(request["body"]["messages"]) == 2


async def test_a_failing_prefix_counts_as_yes(serve: ServeFn) -> None:
    server = serve(answering({"text": "NO"}))

    def broken(question: Message) -> list[Message]:
        raise RuntimeError("no conversation")

    opinion = SecondOpinion.from_config(config(None, llm_model="tiny"), {})
    said = await opinion.judge("make", UNKNOWN, fallback=active(server.url), prefix=broken)
    assert said is not None and said.answer == "failed" and "no conversation" in said.reason
    assert server.requests == []


async def test_an_unusable_preset_is_a_failure(serve: ServeFn) -> None:
    server = serve(answering({"text": "NO"}))
    broken = AishConfig.model_validate(
        {"models": {"fast": {"endpoint": f"{server.url}/v1", "model": "m", "api_key_env": "K"}}}
    )
    said = await judge(SecondOpinion.from_config(broken, {}), "make", server.url)
    assert said is not None and said.answer == "failed" and "K is not set" in said.reason
    assert server.requests == []


# ---- through the gate, in Norris mode --------------------------------------------------


class Halts:
    def __init__(self) -> None:
        self.halted: list[tuple[str, Verdict]] = []

    async def halt_action(self, action: str, verdict: Verdict) -> HaltAnswer:
        self.halted.append((action, verdict))
        return "skip"


@pytest.mark.parametrize(
    ("command", "answer", "asked", "runs"),
    [
        ("ls -la", "NO", False, True),
        ("rm -rf build", "NO", False, False),
        ("make", "NO", True, True),
        ("make", "YES", True, False),
        ("make", "Sure, go ahead", True, False),
    ],
)
async def test_norris_through_the_gate(
    serve: ServeFn, command: str, answer: str, asked: bool, runs: bool
) -> None:
    server = serve(answering({"text": answer}))
    opinion = SecondOpinion.from_config(config(server.url), {})
    halts = Halts()

    async def ask(text: str, verdict: Verdict) -> Opinion | None:
        return await opinion.judge(text, verdict, fallback=active(server.url))

    authorization = await authorize(
        ProposedCommand(command), Policy("norris"), judge=ask, halt=halts
    )
    assert len(server.requests) == (1 if asked else 0)
    assert authorization.run is runs
    assert bool(halts.halted) is not runs
    if asked and not runs:
        assert authorization.verdict.level == "destructive"
        assert authorization.verdict.reasons[-1].startswith("second opinion")
