"""What a `CMD&:` line may be, and the line that starts it: the command is one quoted word for
`eval`, so nothing in it can reach the wrapper around it."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from aish.agent.actions import CommandLine, extract_command_lines, extract_commands
from aish.agent.proposals import Proposal
from aish.run.jobs.wrapping import JobFiles, background_line, cannot_background


@pytest.mark.parametrize(
    ("command", "why"),
    [
        ("echo 'unclosed", "not a finished line"),
        ('echo "unclosed', "not a finished line"),
        ("ls \\", "not a finished line"),
        ("for f in *; do echo $f", "not a finished line"),
        ("make &&", "not a finished line"),
        ("cat <<EOF", "here-document"),
        ("cat <<-EOF > out", "here-document"),
        ("true ) ; rm -rf x ; ( true", "cannot parse"),
        ("sleep 5 &", "already ends in `&`"),
        ("sleep 5 & # later", "already ends in `&`"),
        ("echo !!", "history expansion"),
        ("   ", "no command"),
    ],
)
def test_what_cannot_be_wrapped_is_refused_with_the_reason(command: str, why: str) -> None:
    refusal = cannot_background(command)
    assert refusal is not None and why in refusal


@pytest.mark.parametrize(
    "command",
    [
        "make -j4 # build it all",
        "sleep 1 && echo done",
        "a & b",
        "(sleep 1 &)",
        "echo 'it'\"'\"'s' \"$HOME\" `date` $(pwd)",
        "exit 3",
        "cat <<< 'here string'",
        "[ ! -f x ] && echo none",
        "echo '!!'",
    ],
)
def test_finished_lines_can_run_in_the_background(command: str) -> None:
    assert cannot_background(command) is None


def test_the_command_is_one_quoted_word_for_eval(tmp_path: Path) -> None:
    files = JobFiles(tmp_path / "1")
    command = "echo ') ; touch pwned ; ('\"'\"' # x"
    line = background_line(command, files)
    words = shlex.split(line.split("builtin eval ", 1)[1])
    assert words[0] == command
    assert line.endswith("builtin disown 2>/dev/null || builtin :")


def test_cmd_and_lines_are_extracted_in_order_with_cmd_lines() -> None:
    text = "First:\nCMD: ls\n- `CMD&: make -j4`\nCMD&:sleep 3\nCMD&: sleep 3\nCMD: pwd"
    assert extract_command_lines(text) == [
        CommandLine("ls"),
        CommandLine("make -j4", background=True),
        CommandLine("sleep 3", background=True),
        CommandLine("pwd"),
    ]
    assert extract_commands(text) == ["ls", "pwd"]


def test_a_background_proposal_is_refused_before_the_gate_when_it_cannot_be_wrapped() -> None:
    refused = Proposal.command("cat <<EOF", background=True)
    assert refused.action is None and "here-document" in refused.error
    started = Proposal.command("make", background=True)
    assert started.action is not None and started.background
    assert started.key != Proposal.command("make").key
