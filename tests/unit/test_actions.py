"""`CMD:` lines as models actually write them."""

from __future__ import annotations

from aish.agent.actions import extract_commands


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
