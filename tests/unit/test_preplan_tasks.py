"""Reading a preplanner's reply: `TASK:` lines, whatever decoration the model adds."""

from __future__ import annotations

import pytest

from aish.agent.norris import DEFAULT_PREPLAN_SYSTEM
from aish.agent.norris.preplanner import extract_tasks, system_prompt


def test_a_clean_list() -> None:
    text = "TASK: find big files in /var/log\nTASK: report their sizes\n"
    assert extract_tasks(text) == ["find big files in /var/log", "report their sizes"]


def test_crlf_line_ends() -> None:
    assert extract_tasks("TASK: one\r\nTASK: two\r\n") == ["one", "two"]


@pytest.mark.parametrize(
    "line",
    [
        "  TASK: list files",
        "\tTASK: list files",
        "- TASK: list files",
        "* TASK: list files",
        "+ TASK: list files",
        "• TASK: list files",
        "1. TASK: list files",
        "12) TASK: list files",
        "(3) TASK: list files",
        "Step 4: TASK: list files",
        "step 4. TASK: list files",
        "- [ ] TASK: list files",
        "> TASK: list files",
        "## TASK: list files",
        "**TASK:** list files",
        "**TASK**: list files",
        "**TASK: list files**",
        "*TASK: list files*",
        "`TASK: list files`",
        "```TASK: list files```",
        "TASK: **list files**",
        "TASK: `list files`",
        "1. **TASK:** list files",
        "  - **TASK: list files**  ",
        "TASK:list files",
        "Task: list files",
        "task: list files",
    ],
)
def test_decoration_is_removed(line: str) -> None:
    assert extract_tasks(line) == ["list files"]


def test_the_task_text_itself_is_kept() -> None:
    text = "\n".join(
        [
            "TASK: delete /tmp/cache/*",  # a glob's star is not emphasis
            "**TASK: list /var/log/*.gz**",
            "TASK: run `make` then `make test`",  # inner backticks are not a wrapper
            "TASK: rename a_b_ to c",
        ]
    )
    assert extract_tasks(text) == [
        "delete /tmp/cache/*",
        "list /var/log/*.gz",
        "run `make` then `make test`",
        "rename a_b_ to c",
    ]


def test_code_fences_are_ignored_but_their_tasks_count() -> None:
    text = "```\nTASK: one\n```\n```text\nTASK: two\n```"
    assert extract_tasks(text) == ["one", "two"]


def test_prose_around_the_tasks_is_ignored() -> None:
    text = (
        "Here are the tasks:\n\nTASKS:\n1. TASK: find the files\n"
        "This step matters because the disk is full.\n2. TASK: report sizes\n\n"
        "Let me know if you need anything else. My task: be helpful.\n"
        "MULTITASK: nothing\nSubtask: nothing"
    )
    assert extract_tasks(text) == ["find the files", "report sizes"]


def test_thinking_does_not_count() -> None:
    text = (
        "<think>Maybe TASK: rm -rf / first?\nNo.</think>\nTASK: list files\n"
        "<thinking>\nTASK: drafted\n</thinking>\nTASK: count them"
    )
    assert extract_tasks(text) == ["list files", "count them"]


def test_thinking_without_its_opening_tag() -> None:
    # Some chat templates put `<think>` in the prompt; only the closing tag arrives.
    assert extract_tasks("TASK: drafted\n</think>\nTASK: real") == ["real"]


def test_thinking_cut_off_before_it_closed() -> None:
    assert extract_tasks("TASK: real\n<think>TASK: still thinking") == ["real"]


def test_tasks_with_control_characters_are_dropped() -> None:
    text = (
        "TASK: ok one\nTASK: red \x1b[31mtext\nTASK: over\rwrite\nTASK: bell\x07\n"
        "TASK: del\x7f\nTASK: c1 \x9b2J\nTASK: tab\tis fine"
    )
    assert extract_tasks(text) == ["ok one", "tab\tis fine"]


def test_empty_tasks_are_dropped() -> None:
    assert extract_tasks("TASK:\nTASK:   \n**TASK:**\n- TASK: ``\nTASK: real") == ["real"]


def test_only_consecutive_duplicates_are_dropped() -> None:
    text = "TASK: ls\nTASK: ls\n- TASK: ls\nTASK: pwd\nTASK: ls"
    assert extract_tasks(text) == ["ls", "pwd", "ls"]


@pytest.mark.parametrize("text", ["", "\n\n", "No tasks needed.", "TASKS:", "1. find files"])
def test_no_task_lines(text: str) -> None:
    assert extract_tasks(text) == []


def test_the_default_prompt_gets_tasks_max() -> None:
    prompt = system_prompt(None, 7)
    assert "at most 7 tasks" in prompt and "{" not in prompt
    assert prompt == DEFAULT_PREPLAN_SYSTEM.replace("{tasks_max}", "7")


@pytest.mark.parametrize(
    ("system", "sent"),
    [
        ("Plan in {tasks_max} steps or fewer.", "Plan in 5 steps or fewer."),
        ("Plan briefly.", "Plan briefly."),
        ('JSON like {"a": {0}} and {tasks_max} {oops', 'JSON like {"a": {0}} and 5 {oops'),
        ("   ", DEFAULT_PREPLAN_SYSTEM.replace("{tasks_max}", "5")),
    ],
)
def test_a_users_prompt_is_only_substituted_literally(system: str, sent: str) -> None:
    assert system_prompt(system, 5) == sent
