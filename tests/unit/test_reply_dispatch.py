"""The one reply printer: what a reply holds is decided once, whatever surface draws it."""

from __future__ import annotations

from aish.agent.events import (
    AgentEvent,
    AssistantDelta,
    AssistantReasoning,
    CommandProposed,
    NorrisStep,
    ReplyFinished,
    RequestFailed,
    Retrying,
    Status,
    ToolCallProposed,
    UsageRecorded,
)
from aish.ui.render.norris_frames import NorrisEvent
from aish.ui.render.reply import ReplyPrinter


class Recorder:
    """A surface that writes down each call."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, object]] = []

    def reply_text(self, text: str) -> None:
        self.calls.append(("text", text))

    def reasoning(self, text: str) -> None:
        self.calls.append(("reasoning", text))

    def end_reply(self) -> None:
        self.calls.append(("end", None))

    def proposed(self, command: str) -> None:
        self.calls.append(("proposed", command))

    def status(self, text: str) -> None:
        self.calls.append(("status", text))

    def failed(self, message: str) -> None:
        self.calls.append(("failed", message))

    def frame(self, event: NorrisEvent) -> None:
        self.calls.append(("frame", event))


def test_a_cut_reply_is_said_to_be_cut_only_after_text_and_not_at_the_size_limit() -> None:
    surface = Recorder()
    printer = ReplyPrinter(surface)
    printer.render(ReplyFinished(reason="length", cut=True))  # nothing shown: nothing to say
    printer.render(AssistantDelta("half an ans"))
    printer.render(ReplyFinished(reason="length", cut=True))
    printer.render(AssistantDelta("more"))
    printer.render(ReplyFinished(reason="reply_cap", cut=True))  # its own status said so
    assert surface.calls == [
        ("end", None),
        ("text", "half an ans"),
        ("end", None),
        ("status", "reply cut short"),
        ("text", "more"),
        ("end", None),
    ]


def test_retries_are_announced_from_the_frontends_threshold() -> None:
    quiet, eager = Recorder(), Recorder()
    headless = ReplyPrinter(quiet, announce_retries_from_s=2.0, retry_wait_digits=0)
    repl = ReplyPrinter(eager)
    for printer in (headless, repl):
        printer.render(Retrying(reason="HTTP 503", wait_s=0.5, attempt=1))
        printer.render(Retrying(reason="HTTP 503", wait_s=4.0, attempt=2))
    assert quiet.calls == [("status", "HTTP 503; retrying in 4s")]
    assert eager.calls == [
        ("status", "HTTP 503; retrying in 0.5s"),
        ("status", "HTTP 503; retrying in 4.0s"),
    ]


def test_reasoning_is_dropped_when_not_shown_and_each_kind_reaches_its_place() -> None:
    surface = Recorder()
    printer = ReplyPrinter(surface, show_reasoning=False)
    step = NorrisStep(step=1, max_steps=5)
    events: list[AgentEvent] = [
        AssistantReasoning("hmm"),
        CommandProposed("ls"),
        RequestFailed(kind="http", message="no server at x"),
        Status("hello"),
        ToolCallProposed(name="t", arguments="{}", call_id="1"),
        step,
    ]
    for event in events:
        printer.render(event)
    assert surface.calls == [
        ("proposed", "ls"),
        ("failed", "no server at x"),
        ("status", "hello"),
        ("frame", step),
    ]


def test_usage_is_noted_before_json_takes_every_event() -> None:
    surface = Recorder()
    seen: list[str] = []
    printer = ReplyPrinter(surface, as_json=lambda event: seen.append(type(event).__name__))
    printer.on_usage = lambda usage: seen.append("ledger")
    usage = UsageRecorded(
        preset="m",
        prompt_tokens=1,
        completion_tokens=2,
        cached_tokens=0,
        cost_usd=None,
        estimated=False,
    )
    printer.render(usage)
    printer.render(AssistantDelta("x"))
    assert seen == ["ledger", "UsageRecorded", "AssistantDelta"]
    assert surface.calls == []
