"""Enter continues unfinished shell syntax, except where the input is not shell syntax at all."""

from __future__ import annotations

import pytest

from aish.agent.routing import KnownCommands, needs_another_line

KNOWN = KnownCommands(frozenset({"ls", "cat", "grep", "git", "find", "echo", "make"}))


@pytest.mark.parametrize(
    "text",
    [
        "what's wrong",
        "don't do that",
        "it's broken",
        "why doesn't this work",
        "why doesn't this work?",
        "what's the users' problem",
        "find the file that's biggest",  # a command word, but a sentence by the router's rule
        "?echo 'unclosed",
        ":ask what's up",
        ":help 'x",
        "ls -la",
        "for i in 1 2; do echo $i; done",
        "",
    ],
)
def test_enter_ends_the_input(text: str) -> None:
    assert needs_another_line(text, KNOWN) is None


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("for i in 1 2 3", "construct"),
        ("cat <<EOF", "heredoc"),
        ("echo one \\", "backslash"),
        ('echo "unclosed', "quote"),
        ("echo 'unclosed", "quote"),
        ("ls |", "operator"),
        ("echo don't", "quote"),  # free text for echo: bash waits, so does aish
        ("grep -r don't .", "quote"),  # a flag and a path: shell syntax
        ("git commit -m don't", "quote"),
        ("!cat <<EOF", "heredoc"),
        ("what's\nwrong", "quote"),  # a second line began: it is shell syntax now
    ],
)
def test_enter_asks_for_another_line(text: str, kind: str) -> None:
    found = needs_another_line(text, KNOWN)
    assert found is not None and found.kind == kind
