"""The English-sentence exception on its own: the words, the score, and what blocks it."""

from __future__ import annotations

import pytest

from aish.agent.routing.english import read_as_sentence


def _words(text: str) -> list[tuple[str, bool]]:
    return [(word, False) for word in text.split()]


@pytest.mark.parametrize(
    ("command", "arguments"),
    [
        ("find", "the largest files in my home dir"),
        ("make", "it faster"),
        ("help", "me"),
        ("git", "status please"),
        ("who", "broke the build?"),
        ("ls", "shows nothing, why?"),
        ("kill", "all of them"),
    ],
)
def test_sentences(command: str, arguments: str) -> None:
    verdict = read_as_sentence(command, _words(arguments))
    assert verdict.is_sentence, verdict
    assert verdict.evidence


@pytest.mark.parametrize(
    ("command", "arguments"),
    [
        ("who", "am i"),
        ("make", "all"),
        ("make", "clean all"),
        ("cd", "my"),  # a determiner that ends the line names something
        ("ls", "a?"),  # one argument: the `?` is a glob
        ("which", "python?"),
        ("install", "numpy backup"),
        ("touch", "grass"),
        ("docker", "compose up"),
        ("man", ""),
    ],
)
def test_commands(command: str, arguments: str) -> None:
    assert not read_as_sentence(command, _words(arguments)).is_sentence


@pytest.mark.parametrize(
    "arguments",
    [
        "-la the files in my dir",
        "the files in ~/my/dir",
        "the backup.sh script for me",
        "the *.txt files for me",
        "CC=clang for the build",
        "the user@host for me",
        "all the +x files for me",
        "the ? files for me",
    ],
)
def test_shell_looking_arguments_block_the_exception(arguments: str) -> None:
    verdict = read_as_sentence("find", _words(arguments))
    assert not verdict.is_sentence
    assert verdict.blocker and "shell syntax" in verdict.blocker


def test_quoted_arguments_block_the_exception() -> None:
    verdict = read_as_sentence("grep", [("the", False), ("'all of it'", True), ("my", False)])
    assert not verdict.is_sentence


@pytest.mark.parametrize("command", ["echo", "printf", "yes", "logger", "wall"])
def test_free_text_commands_are_never_sentences(command: str) -> None:
    verdict = read_as_sentence(command, _words("please tell me all about the weather?"))
    assert not verdict.is_sentence
    assert verdict.blocker == f"`{command}` takes free text"


def test_non_ascii_words_count_as_prose() -> None:
    assert read_as_sentence("find", _words("the größte Datei in my home")).is_sentence
