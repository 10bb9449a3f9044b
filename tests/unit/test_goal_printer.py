"""`aish goal`'s printer: which stream gets what, in text and in JSON."""

from __future__ import annotations

import asyncio
import io
import json
from typing import get_args

from aish.agent.events import (
    AgentEvent,
    AssistantDelta,
    AssistantReasoning,
    CommandFinished,
    CommandStarted,
    Halt,
    NorrisEnded,
    NorrisStarted,
    NorrisStep,
    ReplyFinished,
    RequestFailed,
    Status,
    UsageRecorded,
)
from aish.safety.verdict import Verdict
from aish.ui.goal_printer import JSON_EVENTS, GoalPrinter, json_name


def printer(**options: bool) -> tuple[GoalPrinter, io.StringIO, io.StringIO]:
    out, err = io.StringIO(), io.StringIO()
    return GoalPrinter(out, err, width=60, **options), out, err


RUN: list[AgentEvent] = [
    NorrisStarted("tidy up", ("2 steps",), "local"),
    NorrisStep(1, 2),
    AssistantDelta("Look first.\nCMD: l"),
    AssistantDelta("s\n"),
    UsageRecorded("local", 10, 2, 0, None, False, "norris"),
    ReplyFinished("stop", cut=False),
    CommandStarted("ls", "safe"),
    CommandFinished("ls", 0, "x\n", 0.01, "/w"),
    Status("waiting for local…"),
    NorrisStep(2, 2),
    AssistantDelta("CMD: rm -rf x"),
    ReplyFinished("stop", cut=False),
    Halt(2, 2, "rm -rf x", "destructive", ("rm: deletes files",)),
    NorrisEnded("halted", "[destructive] rm: deletes files", 2, 2, 0.5, 12, None, "/w", "rm -rf x"),
]


def test_every_agent_event_has_a_json_name() -> None:
    assert set(get_args(AgentEvent)) == set(JSON_EVENTS)
    assert len(set(JSON_EVENTS.values())) == len(JSON_EVENTS)


def test_an_event_added_later_gets_its_class_name() -> None:
    class ToolResultArrived:
        pass

    assert json_name(ToolResultArrived()) == "tool_result_arrived"  # type: ignore[arg-type]


def test_text_puts_the_run_on_stdout_and_notices_and_the_halt_on_stderr() -> None:
    shown, out, err = printer(yes_safe=True)
    for event in RUN:
        shown.render(event)
    shown.close()
    assert out.getvalue() == (
        "⚡ Norris: tidy up\n"
        "  bounds: 2 steps\n"
        "  executor: local\n"
        "\n[step 1/2]\n"
        "Look first.\nCMD: ls\n"
        "┌ $ ls [safe]\n│ x\n└ exit 0 · 0.01s · /w\n"
        "\n[step 2/2]\n"
        "CMD: rm -rf x\n"
        + "─── NORRIS HALT ─── step 2/2 "
        + "─" * 31
        + "\nreason: [destructive] rm: deletes files\naction: rm -rf x\n"
        "norris halted: [destructive] rm: deletes files · 2/2 steps · 0.50s · 12 tokens · "
        "cost unknown · agent cwd /w\n"
        "  pending action: rm -rf x\n"
    )
    assert err.getvalue() == (
        "[aish] waiting for local…\n"
        "aish: HALT at step 2/2: rm -rf x\n"
        "  reason: [destructive] rm: deletes files\n"
        "  not run: nothing that may change or delete something runs unattended\n"
    )


def test_without_yes_safe_the_halt_says_so() -> None:
    shown, _, err = printer()
    shown.render(Halt(1, 16, "ls", "safe", ()))
    shown.render(NorrisEnded("halted", "[safe]", 1, 16, 0.1, 5, None, "/w", "ls"))
    assert err.getvalue() == (
        "aish: HALT at step 1/16: ls\n"
        "  reason: [safe] read-only\n"
        "  not run: without --yes-safe nothing runs unattended\n"
    )


def test_json_is_one_event_a_line_ending_with_norris_end() -> None:
    shown, out, err = printer(json_mode=True, yes_safe=True)
    for event in RUN:
        shown.render(event)
    shown.note("never in the stream")
    shown.close()
    events = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [e["type"] for e in events] == [
        "norris_start",
        "norris_step",
        "text",
        "text",
        "usage",
        "finish",
        "command_start",
        "command_end",
        "status",
        "norris_step",
        "text",
        "finish",
        "halt",
        "norris_end",
    ]
    assert events[2] == {"type": "text", "text": "Look first.\nCMD: l"}
    assert events[-1]["pending_action"] == "rm -rf x"
    assert events[0]["bounds"] == ["2 steps"]
    # stdout stays JSON; the halt is still said where a person reads.
    assert err.getvalue().startswith("aish: HALT at step 2/2: rm -rf x\n")


def test_a_failed_request_is_one_line_on_stderr_in_both_forms() -> None:
    for json_mode in (False, True):
        shown, out, err = printer(json_mode=json_mode)
        shown.render(RequestFailed("ConnectError", "cannot reach local at http://x"))
        assert err.getvalue() == "aish: cannot reach local at http://x\n"
        assert ("error" in out.getvalue()) is json_mode


def test_model_text_cannot_drive_a_terminal_or_a_pipe_unless_raw() -> None:
    on_terminal, out, _ = printer(terminal=True)
    on_terminal.render(AssistantDelta("a\x1b]0;title\x07b\n"))
    assert out.getvalue() == "a^[]0;title^Gb\n"
    piped, out, _ = printer()
    piped.render(AssistantDelta("a\x1b]52;c;aGk="))
    piped.render(AssistantDelta("\x07b\x1bc\n"))
    assert out.getvalue() == "ab\n"
    raw, out, _ = printer(raw=True)
    raw.render(AssistantDelta("a\x1bb\n"))
    assert out.getvalue() == "a\x1bb\n"


def test_reasoning_on_a_terminal_stderr_is_escaped_when_stdout_is_piped() -> None:
    shown, _, err = printer(err_terminal=True)
    shown.render(AssistantReasoning("hm \x1b]2;title\x07"))
    shown.close()
    assert err.getvalue() == "hm ^[]2;title^G\n"


def test_colour_only_when_asked() -> None:
    coloured, out, _ = printer(color=True)
    coloured.render(NorrisStep(1, 2))
    assert "\x1b[" in out.getvalue()
    plain, out, _ = printer()
    plain.render(NorrisStep(1, 2))
    assert out.getvalue() == "\n[step 1/2]\n"


def test_nobody_answers_a_halt() -> None:
    shown, _, _ = printer()
    verdict = Verdict("destructive", ("rm: deletes files",))
    assert asyncio.run(shown.halt_action("rm -rf x", verdict)) == "abort"
