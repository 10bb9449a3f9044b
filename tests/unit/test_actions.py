"""`CMD:` lines as models actually write them."""

from __future__ import annotations

from aish.agent.actions import GoalLine, extract_commands, extract_goal


def test_plain_and_decorated_cmd_lines() -> None:
    text = "\n".join(
        [
            "Try this:",
            "CMD: ls -la",
            "- CMD: `du -sh *`",
            "2. CMD: git status",
            "```",
            "CMD: echo 'a `b` c'",
            "```",
            "  CMD:   grep -r TODO .  ",
            "not a CMD: line",
            "CMD:",
        ]
    )
    assert extract_commands(text) == [
        "ls -la",
        "du -sh *",
        "git status",
        "echo 'a `b` c'",
        "grep -r TODO .",
    ]


def test_repeated_line_counts_once_and_order_is_kept() -> None:
    assert extract_commands("CMD: a\nCMD: a\nCMD: b\nCMD: a") == ["a", "b", "a"]


def test_control_characters_never_make_a_command() -> None:
    text = "CMD: echo A\rCMD: touch /tmp/x\nCMD: echo \x1b[8m; rm -rf ~\nCMD: ls\r\n"
    # \r inside a line is not a line break; escapes could hide what runs: neither is proposed.
    assert extract_commands(text) == ["ls"]


def test_goal_lines_as_models_write_them() -> None:
    assert extract_goal("GOAL: complete") == GoalLine("complete", "")
    assert extract_goal("Done.\nGOAL: complete — 12 files found.") == GoalLine(
        "complete", "12 files found."
    )
    assert extract_goal("GOAL: complete\n\nThere are 3 files.\nAll old.") == GoalLine(
        "complete", "There are 3 files. All old."
    )
    assert extract_goal("**GOAL:** blocked – no network") == GoalLine("blocked", "no network")
    assert extract_goal("- GOAL: blocked\nneed sudo\nand more") == GoalLine("blocked", "need sudo")
    assert extract_goal("`GOAL: complete`") == GoalLine("complete", "")
    assert extract_goal("GOAL: Done.") == GoalLine("complete", "")
    assert extract_goal("1. GOAL: COMPLETE") == GoalLine("complete", "")


def test_text_that_only_mentions_a_goal_is_no_goal_line() -> None:
    for text in (
        "the GOAL: complete line comes later",
        "GOAL: completely different",
        "Goal: complete",  # the marker is upper-case, like CMD:
        "GOAL: find the files",
        "CMD: echo 'GOAL: complete'",
        "GOAL: Complete the TODOs in foo.py",  # a restated goal, not a report
        "GOAL: achieved? not yet, continuing",
        "",
    ):
        assert extract_goal(text) is None, text


def test_the_first_goal_line_counts_and_controls_are_removed() -> None:
    text = "GOAL: blocked no \x1b[31mcolour\nGOAL: complete"
    assert extract_goal(text) == GoalLine("blocked", "no  [31mcolour")
    long = extract_goal("GOAL: complete: " + "x" * 500)
    assert long is not None and len(long.detail) == 300 and long.detail.endswith("…")


def test_a_summary_on_the_next_lines_stops_at_the_paragraph_and_skips_actions() -> None:
    text = "GOAL: complete\nCMD: ls\nAll 3 files\nare counted.\n\nAnything else?"
    assert extract_goal(text) == GoalLine("complete", "All 3 files are counted.")
    assert extract_goal("GOAL: complete (3 files)") == GoalLine("complete", "(3 files)")
