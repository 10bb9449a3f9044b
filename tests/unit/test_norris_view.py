"""How a Norris run looks: each event's whole text, and the HALT question on a real prompt."""

from __future__ import annotations

import io

import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from aish.agent.events import (
    CommandFinished,
    CommandStarted,
    Halt,
    NorrisEnded,
    NorrisStarted,
    NorrisStep,
    ToolCallFinished,
    ToolCallStarted,
)
from aish.agent.gate import HaltAnswer, Verdict
from aish.ui.chat_view import ChatView
from aish.ui.render.norris_frames import NorrisEvent, cost, duration, norris_pieces, summary_line

WIDTH = 40


@pytest.fixture(autouse=True)
def narrow_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", str(WIDTH))  # what the chat view asks shutil for


def shown(*events: NorrisEvent) -> list[str]:
    """What a terminal without colour shows, line by line."""
    out = io.StringIO()
    view = ChatView(out, color=False)
    for event in events:
        view.render(event)
    return out.getvalue().split("\n")


def text(event: NorrisEvent) -> str:
    return "".join(piece for piece, _ in norris_pieces(event, width=WIDTH))


def styles(event: NorrisEvent) -> list[tuple[str, str]]:
    return norris_pieces(event, width=WIDTH)


def ended(**changes: object) -> NorrisEnded:
    fields: dict[str, object] = {
        "status": "done",
        "reason": "counted",
        "steps": 2,
        "max_steps": 16,
        "elapsed_s": 12.34,
        "tokens": 1234,
        "cost_usd": 0.0012,
        "cwd": "/tmp/p",
    }
    fields.update(changes)
    return NorrisEnded(**fields)  # type: ignore[arg-type]


def test_the_start_banner_shows_goal_bounds_executor_and_plan() -> None:
    event = NorrisStarted(
        goal="count the python files",
        bounds=("16 steps", "15m wall clock", "300s per command", "3 skips", "no cost cap"),
        executor="local",
        tasks=("list them", "count them"),
        preplanner="planner",
    )
    assert text(event).split("\n") == [
        "⚡ Norris: count the python files",
        "  bounds: 16 steps · 15m wall clock · 300s per command · 3 skips · no cost cap",
        "  executor: local",
        "  plan (via planner):",
        "    1. list them",
        "    2. count them",
        "",
    ]
    assert [style for _, style in styles(event)] == ["bold cyan", "dim", "dim", "dim"]


def test_the_start_banner_says_who_judges_unknown_steps() -> None:
    judged = NorrisStarted("g", ("16 steps",), "local", judge="second opinion: fast (m)")
    assert text(judged).split("\n") == [
        "⚡ Norris: g",
        "  bounds: 16 steps",
        "  executor: local",
        "  second opinion: fast (m)",
        "",
    ]
    line = "no independent second opinion: unknown steps halt — no preset 'fast'"
    unjudged = NorrisStarted("g", (), "local", ("a task",), "planner", line)
    assert text(unjudged).split("\n")[2:4] == [f"  {line}", "  plan (via planner):"]


def test_a_start_without_a_plan_has_no_plan_lines() -> None:
    event = NorrisStarted(goal="g", bounds=("16 steps",), executor="local")
    assert text(event) == "⚡ Norris: g\n  bounds: 16 steps\n  executor: local\n"


def test_step_lines_with_and_without_a_task() -> None:
    assert text(NorrisStep(3, 16)) == "\n[step 3/16]\n"
    assert text(NorrisStep(2, 16, task="count them")) == "\n[step 2/16: count them]\n"
    planned = NorrisStep(2, 16, task="count them", task_index=2, task_count=3)
    assert text(planned) == "\n[step 2/16: count them (task 2/3)]\n"
    assert styles(planned)[1][1] == "bold"


def test_a_command_in_its_frame() -> None:
    lines = shown(
        CommandStarted("ls *.py | wc -l", "safe"),
        CommandFinished("ls *.py | wc -l", 0, "3\n", 0.123, "/tmp/p"),
    )
    assert lines == [
        "┌ $ ls *.py | wc -l [safe]",
        "│ 3",
        "└ exit 0 · 0.12s · /tmp/p",
        "",
    ]
    assert styles(CommandStarted("ls", "safe")) == [("┌ $ ls", ""), (" [safe]\n", "dim")]


def test_a_multi_line_command_stays_inside_the_frame() -> None:
    assert text(CommandStarted("cat <<EOF\nhi\nEOF", "unknown")) == (
        "┌ $ cat <<EOF\n│   hi\n│   EOF [unknown]\n"
    )


def test_a_failing_command_without_output_and_with_a_notice() -> None:
    event = CommandFinished("false", 1, "", 61.0, "/tmp", notice="interrupted after 60s")
    assert text(event).split("\n") == [
        "│ [no output]",
        "└ exit 1 · 1m01s · /tmp",
        "  interrupted after 60s",
        "",
    ]
    assert [style for _, style in styles(event)] == ["dim", "red", "dim"]


def test_long_output_shows_its_last_twenty_lines_each_cut_to_the_width() -> None:
    output = "".join(f"line {n}\n" for n in range(1, 26)) + "x" * 60 + "\n"
    lines = text(CommandFinished("seq", 0, output, 0.5, "/tmp")).split("\n")
    assert lines[0] == "│ … 6 earlier lines"
    assert lines[1:20] == [f"│ line {n}" for n in range(7, 26)]
    assert lines[20] == "│ " + "x" * 37 + "…"
    assert len(lines[20]) == WIDTH
    assert lines[21:] == ["└ exit 0 · 0.50s · /tmp", ""]


def test_wide_characters_are_cut_by_the_columns_they_take() -> None:
    output = "界" * 30
    line = text(CommandFinished("echo", 0, output, 0.5, "/tmp")).split("\n")[0]
    assert line == "│ " + "界" * 18 + "…"  # 36 columns and the ellipsis: 38 = width - 2


def test_command_output_cannot_drive_the_terminal() -> None:
    event = CommandFinished("x", 0, "a\x1b]0;HACKED\x07\rb\n", 0.5, "/tmp")
    assert text(event).split("\n")[0] == "│ a^[]0;HACKED^G^Mb"
    assert "\x1b" not in text(CommandStarted("echo \x1b[8m", "safe"))


def test_the_halt_banner_fills_the_width_in_red() -> None:
    event = Halt(
        step=2,
        max_steps=16,
        action="rm -rf build",
        level="destructive",
        reasons=("rm deletes files", "-r recurses"),
    )
    lines = shown(event)
    assert lines == [
        "─── NORRIS HALT ─── step 2/16 ──────────",
        "reason: [destructive] rm deletes files; -r recurses",
        "action: rm -rf build",
        "",
    ]
    assert len(lines[0]) == WIDTH
    assert [style for _, style in norris_pieces(event, width=WIDTH)] == ["bold red", "red"]


def test_a_halt_with_no_reasons_and_a_multi_line_action() -> None:
    event = Halt(3, 16, "git push --force\ngit tag -d v1", "unknown", ())
    banner, reason, action, more, _ = text(event).split("\n")
    assert banner == "─── NORRIS HALT ─── step 3/16 " + "─" * 10
    assert reason == "reason: [unknown]"
    assert action == "action: git push --force"
    assert more == "        git tag -d v1"


def test_the_end_summary() -> None:
    assert text(ended()) == (
        "norris done: counted · 2/16 steps · 12.3s · 1,234 tokens · $0.0012 · agent cwd /tmp/p\n"
    )
    assert styles(ended())[0] == ("norris done: counted", "bold green")
    assert styles(ended())[1][1] == "dim"


def test_the_end_summary_in_minutes_with_unknown_cost_and_no_reason() -> None:
    event = ended(status="aborted", reason="", elapsed_s=125.2, tokens=1_234_567, cost_usd=None)
    assert summary_line(event) == (
        "norris aborted · 2/16 steps · 2m05s · 1,234,567 tokens · cost unknown · agent cwd /tmp/p"
    )
    assert styles(event)[0] == ("norris aborted", "bold red")


def test_the_end_summary_colours_by_status() -> None:
    assert styles(ended(status="tasks_complete"))[0][1] == "bold green"
    for status in ("halted", "failed", "stuck"):
        assert styles(ended(status=status))[0][1] == "bold red"
    for status in ("blocked", "stalled", "budget_exhausted"):
        assert styles(ended(status=status))[0][1] == "bold yellow"


def test_a_pending_action_follows_the_summary() -> None:
    event = ended(status="halted", reason="needs a human", pending_action="rm -rf build")
    assert text(event).split("\n")[1:] == ["  pending action: rm -rf build", ""]


@pytest.mark.parametrize(
    ("seconds", "shown_as"),
    [
        (0.0, "0.00s"),
        (0.123, "0.12s"),
        (5.25, "5.2s"),
        (59.94, "59.9s"),
        (59.96, "1m00s"),
        (125.0, "2m05s"),
        (3725.0, "1h02m05s"),
    ],
)
def test_durations(seconds: float, shown_as: str) -> None:
    assert duration(seconds) == shown_as


def test_costs() -> None:
    assert cost(None) == "cost unknown"
    assert cost(0.0012) == "$0.0012"
    assert cost(0) == "$0.0000"
    assert cost(1234.5) == "$1,234.50"


def test_a_whole_run_in_the_chat_view() -> None:
    out = io.StringIO()
    view = ChatView(out, color=False)
    view.render(NorrisStarted("count files", ("16 steps",), "local"))
    view.render(NorrisStep(1, 16))
    view.render(CommandStarted("ls", "safe"))
    view.render(CommandFinished("ls", 0, "a\nb\n", 0.01, "/tmp"))
    view.render(ended(steps=1, reason=""))
    assert out.getvalue().split("\n") == [
        "⚡ Norris: count files",
        "  bounds: 16 steps",
        "  executor: local",
        "",
        "[step 1/16]",
        "┌ $ ls [safe]",
        "│ a",
        "│ b",
        "└ exit 0 · 0.01s · /tmp",
        "norris done · 1/16 steps · 12.3s · 1,234 tokens · $0.0012 · agent cwd /tmp/p",
        "",
    ]


def test_a_frame_never_starts_mid_line() -> None:
    from aish.agent.events import AssistantDelta

    out = io.StringIO()
    view = ChatView(out, color=False)
    view.render(AssistantDelta("let me look"))
    view.render(CommandStarted("ls", "safe"))
    assert out.getvalue() == "let me look\n┌ $ ls [safe]\n"


# ---- the HALT question, on a real prompt_toolkit session ------------------------------------


async def answer_halt(keys: str) -> HaltAnswer:
    with create_pipe_input() as pipe:
        pipe.send_text(keys)
        with create_app_session(input=pipe, output=DummyOutput()):
            view = ChatView(io.StringIO(), color=False)
            return await view.halt_action("rm -rf build", Verdict("destructive", ("rm",)))


@pytest.mark.parametrize(
    ("keys", "answer"),
    [
        ("p", "proceed"),
        ("s", "skip"),
        ("a", "abort"),
        ("\x03", "abort"),
        ("\x18\x03", "abort"),
        ("\x04", "abort"),
    ],
)
async def test_halt_keys(keys: str, answer: HaltAnswer) -> None:
    assert await answer_halt(keys) == answer


async def test_a_bare_enter_is_no_answer_and_the_question_stays() -> None:
    assert await answer_halt("\r\r\rs") == "skip"
    assert await answer_halt("\rp") == "proceed"


async def test_typed_text_counts_by_its_first_letter_and_nonsense_is_cleared() -> None:
    # A paste arrives as one piece of text, not as keys.
    assert await answer_halt("\x1b[200~Proceed\x1b[201~\r") == "proceed"
    assert await answer_halt("\x1b[200~skip it\x1b[201~\r") == "skip"
    assert await answer_halt("xyz\rs") == "skip"
    assert await answer_halt("xyz\x03") == "abort"


def test_a_tool_call_in_its_frame() -> None:
    lines = shown(
        ToolCallStarted("time__get_current_time", '{"timezone": "UTC"}', "safe"),
        ToolCallFinished("time__get_current_time", '{\n  "timezone": "UTC"\n}', False, 0.31),
    )
    assert lines == [
        "┌ ⚙ time__get_current_time … [safe]",
        "│ {",
        '│   "timezone": "UTC"',
        "│ }",
        "└ ok · 0.31s",
        "",
    ]


def test_a_failed_tool_call_says_error_in_red() -> None:
    event = ToolCallFinished("x__y", "server 'x' is down", True, 2.0)
    assert styles(event) == [("│ server 'x' is down\n", ""), ("└ error · 2.0s\n", "red")]
    assert text(ToolCallFinished("x__y", "", False, 0.01)) == "│ [no output]\n└ ok · 0.01s\n"
