"""The second opinion against a real model server (aish-testllm over HTTP on 127.0.0.1)."""

from __future__ import annotations

import shutil
from typing import Any

import pytest

from aish.agent.events import AgentEvent, UsageRecorded
from aish.agent.gate import Policy, ProposedCommand, authorize
from aish.agent.second_opinion import SYSTEM_PROMPT, Opinion, SecondOpinion
from aish.config.schema import AishConfig
from aish.config.validation import validate_config
from aish.llm.types import ModelTarget
from aish.safety.bash.live_shell import ShellFacts
from aish.safety.classifier import classify
from aish.safety.verdict import Verdict
from aish.session import preset_resolver
from tests.support import ScriptedFrontend

from ..conftest import ServeFn

UNKNOWN = Verdict("unknown", ("frob is not known to be read-only",))
ASKED = {"system": "^Detect destructive shell commands"}


def answering(*replies: dict[str, Any]) -> dict[str, Any]:
    """A scenario whose safety questions get `replies` in turn (the last one repeats)."""
    return {"rules": [{"name": "safety", "when": ASKED, "replies": list(replies)}]}


def config(url: str | None, **safety: Any) -> AishConfig:
    models = {"fast": {"endpoint": f"{url}/v1", "model": "fast-model"}} if url else {}
    return validate_config({"models": models, "safety": safety})


def opinion_of(settings: AishConfig, **options: Any) -> SecondOpinion:
    """The second opinion `settings` configure, its presets resolved with no key variables."""
    return SecondOpinion.from_config(settings, preset_resolver(settings, {}), **options)


def active(url: str) -> ModelTarget:
    """The model that proposed the command: another model on the judge's server."""
    return ModelTarget(name="local", endpoint=f"{url}/v1", model="active-model")


class Events:
    def __init__(self) -> None:
        self.seen: list[AgentEvent] = []

    def __call__(self, event: AgentEvent) -> None:
        self.seen.append(event)


async def judge(
    opinion: SecondOpinion, command: str, url: str, events: Events | None = None
) -> Opinion | None:
    return await opinion.judge(
        command, classify(command), proposers=(active(url),), on_event=events
    )


async def test_yes_makes_the_command_destructive(serve: ServeFn) -> None:
    server = serve(answering({"text": "YES"}))
    events = Events()
    opinion = opinion_of(config(server.url))
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
    said = await judge(opinion_of(config(server.url)), "frob", server.url)
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
    said = await judge(opinion_of(config(server.url)), "make", server.url)
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
    said = await judge(opinion_of(config(server.url)), "make", server.url)
    assert said is not None and said.answer == "failed"
    assert said.reason.startswith("second opinion failed: ") and mentions in said.reason
    assert said.applied_to(UNKNOWN).level == "destructive"
    assert len(server.requests) == 1  # one short call: no retries


async def test_a_dead_server_counts_as_yes(serve: ServeFn) -> None:
    server = serve(answering({"text": "NO"}))
    url = server.url
    server.close()
    said = await judge(opinion_of(config(url)), "make", url)
    assert said is not None and said.answer == "failed"
    assert said.reason.startswith("second opinion failed: ")


async def test_a_slow_answer_counts_as_yes(serve: ServeFn) -> None:
    server = serve(answering({"text": "NO", "first_delay_ms": 5000}))
    opinion = opinion_of(config(server.url), timeout_s=0.3)
    said = await judge(opinion, "make", server.url)
    assert said == Opinion("failed", "second opinion failed: no answer from fast within 0.3s")


async def test_answers_are_cached_per_normalised_command(serve: ServeFn) -> None:
    # The cache key is the command without surrounding whitespace; inside, whitespace can
    # matter (`echo "a  b"`), so `make  all` is another command.
    server = serve(answering({"text": "NO"}, {"text": "YES"}, {"text": "YES"}))
    opinion = opinion_of(config(server.url))
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
    opinion = opinion_of(config(server.url))
    failed = await judge(opinion, "make", server.url)
    answered = await judge(opinion, "make", server.url)
    assert failed is not None and failed.answer == "failed"
    assert answered is not None and answered.answer == "no"
    assert len(server.requests) == 2


async def test_never_asked_about_safe_or_destructive(serve: ServeFn) -> None:
    server = serve(answering({"text": "YES"}))
    opinion = opinion_of(config(server.url))
    proposers = (active(server.url),)
    assert await opinion.judge("ls", Verdict("safe"), proposers=proposers) is None
    destructive = Verdict("destructive", ("rm: deletes files",))
    assert await opinion.judge("rm -rf x", destructive, proposers=proposers) is None
    # NO never lowers a verdict the rules made destructive.
    assert Opinion("no", "second opinion: NO").applied_to(destructive) == destructive
    assert server.requests == []


async def test_disabled_by_config(serve: ServeFn) -> None:
    server = serve(answering({"text": "NO"}))
    opinion = opinion_of(config(server.url, llm_second_opinion=False))
    said = await judge(opinion, "make", server.url)
    assert said is not None and said.answer == "disabled" and not said.cleared
    assert "safety.llm_second_opinion = false" in said.reason
    assert said.applied_to(UNKNOWN).level == "unknown"
    assert server.requests == []


# ---- no self-approval: the proposer is never the judge ---------------------------------------


def preset(url: str, model: str) -> dict[str, Any]:
    return {"endpoint": f"{url}/v1", "model": model, "max_retries": 0}


async def test_a_missing_preset_means_no_judge_and_the_proposer_is_not_asked(
    serve: ServeFn,
) -> None:
    # The proposer would say NO to anything: it must not be the one asked.
    proposer = serve(answering({"text": "NO"}))
    opinion = opinion_of(config(None, llm_model="tiny"))
    said = await judge(opinion, "make", proposer.url)
    assert said == Opinion(
        "unavailable", "no independent judge configured: no preset 'tiny' for safety.llm_model"
    )
    assert not said.cleared
    assert said.applied_to(UNKNOWN) == Verdict("unknown", (*UNKNOWN.reasons, said.reason))
    assert proposer.requests == []


async def test_the_judge_is_asked_on_its_own_server_never_the_proposers(serve: ServeFn) -> None:
    proposer = serve(answering({"text": "NO"}))
    judge_server = serve(answering({"text": "YES"}))
    settings = {"models": {"judge": preset(judge_server.url, "judge-model")}}
    opinion = opinion_of(validate_config({**settings, "safety": {"llm_model": "judge"}}))
    executor = ModelTarget("local", f"{proposer.url}/v1", "testllm")
    said = await opinion.judge("make", UNKNOWN, proposers=(executor,))
    assert said == Opinion("yes", "second opinion: YES")
    assert proposer.requests == []
    [asked] = judge_server.requests
    assert asked["model"] == "judge-model"


@pytest.mark.parametrize(
    "judge_endpoint",
    ["{url}/v1", "{url}", "{url}/v1/", "{localhost}/v1", "{localhost_upper}/V1"],
)
async def test_a_judge_preset_that_is_the_proposer_under_another_name_is_not_asked(
    serve: ServeFn, judge_endpoint: str
) -> None:
    proposer = serve(answering({"text": "NO"}))
    localhost = proposer.url.replace("127.0.0.1", "localhost")
    endpoint = judge_endpoint.format(
        url=proposer.url, localhost=localhost, localhost_upper=localhost.upper()
    )
    settings = {
        "models": {
            "local": preset(proposer.url, "testllm"),
            "judge": {"endpoint": endpoint, "model": "TestLLM", "max_retries": 0},
        },
        "safety": {"llm_model": "judge"},
    }
    loaded = validate_config(settings)
    opinion = opinion_of(loaded)
    from aish.session import resolve_target

    executor = resolve_target(loaded, "local", {})
    said = await opinion.judge("make", UNKNOWN, proposers=(executor,))
    assert said is not None and said.answer == "unavailable" and not said.cleared
    assert said.reason == (
        "no independent judge configured: safety.llm_model 'judge' is the same model as local "
        "(TestLLM), which proposes the actions"
    )
    assert said.applied_to(UNKNOWN).level == "unknown"
    assert proposer.requests == []


async def test_any_proposer_rules_the_judge_out(serve: ServeFn) -> None:
    # Norris passes its executor, its preplanner and a fallback that answered: the judge
    # preset being any of them is self-approval.
    judge_server = serve(answering({"text": "NO"}))
    settings = {
        "models": {"judge": preset(judge_server.url, "j")},
        "safety": {"llm_model": "judge"},
    }
    opinion = opinion_of(validate_config(settings))
    executor = ModelTarget("exec", f"{judge_server.url}/v1", "e")
    planner = ModelTarget("plan", f"{judge_server.url}/v1", "j")
    said = await opinion.judge("make", UNKNOWN, proposers=(executor, planner))
    assert said is not None and said.answer == "unavailable" and "as plan (j)" in said.reason
    assert judge_server.requests == []
    cleared = await opinion.judge("make", UNKNOWN, proposers=(executor,))
    assert cleared == Opinion("no", "second opinion: NO")
    assert len(judge_server.requests) == 1


async def test_a_cached_answer_is_no_answer_once_the_judge_proposes(serve: ServeFn) -> None:
    judge_server = serve(answering({"text": "NO"}))
    opinion = opinion_of(config(judge_server.url))
    other = active(judge_server.url)
    judge_itself = ModelTarget("routed", f"{judge_server.url}/v1", "fast-model")
    first = await opinion.judge("make", UNKNOWN, proposers=(other,))
    assert first is not None and first.cleared
    again = await opinion.judge("make", UNKNOWN, proposers=(judge_itself,))
    assert again is not None and again.answer == "unavailable"
    assert len(judge_server.requests) == 1


def test_the_choice_says_which_judge_or_why_none() -> None:
    settings = {"models": {"fast": {"endpoint": "http://h:1/v1", "model": "m"}}}
    loaded = validate_config(settings)
    opinion = opinion_of(loaded)
    other = ModelTarget("big", "http://h:1/v1", "big-model")
    same = ModelTarget("local", "http://H:1/", "m")
    assert opinion.choose((other,)).announcement == "second opinion: fast (m)"
    assert opinion.choose((other,)).target is not None
    assert opinion.choose((other, same)).announcement == (
        "no independent second opinion: unknown steps halt — safety.llm_model 'fast' is the "
        "same model as local (m), which proposes the actions"
    )
    missing = opinion_of(validate_config({}))
    assert missing.choose((other,)).announcement == (
        "no independent second opinion: unknown steps halt — no preset 'fast' for safety.llm_model"
    )
    disabled = validate_config({**settings, "safety": {"llm_second_opinion": False}})
    assert opinion_of(disabled).choose((other,)).announcement == (
        "no independent second opinion: unknown steps halt — safety.llm_second_opinion = false"
    )
    keyless = {"models": {"fast": {"endpoint": "http://h:1/v1", "model": "m", "api_key_env": "K"}}}
    choice = opinion_of(validate_config(keyless)).choose((other,))
    assert choice.target is None and "K is not set" in choice.announcement


async def test_an_unusable_preset_is_a_failure(serve: ServeFn) -> None:
    server = serve(answering({"text": "NO"}))
    broken = validate_config(
        {"models": {"fast": {"endpoint": f"{server.url}/v1", "model": "m", "api_key_env": "K"}}}
    )
    said = await judge(opinion_of(broken), "make", server.url)
    assert said is not None and said.answer == "failed" and "K is not set" in said.reason
    assert server.requests == []


# ---- through the gate, in Norris mode --------------------------------------------------


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
    opinion = opinion_of(config(server.url))
    halts = ScriptedFrontend("skip")

    async def ask(text: str, verdict: Verdict) -> Opinion | None:
        return await opinion.judge(text, verdict, proposers=(active(server.url),))

    async def plain_shell(command: str) -> ShellFacts:
        return ShellFacts(locate=shutil.which)  # no alias, function or hashed name

    authorization = await authorize(
        ProposedCommand(command), Policy("norris"), judge=ask, halt=halts, facts=plain_shell
    )
    assert len(server.requests) == (1 if asked else 0)
    assert authorization.run is runs
    assert bool(halts.halted) is not runs
    if asked and not runs:
        assert authorization.verdict.level == "destructive"
        assert authorization.verdict.reasons[-1].startswith("second opinion")
