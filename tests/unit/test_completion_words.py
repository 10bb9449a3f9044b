"""How a line is cut for completion: the current command, COMP_WORDS split at COMP_WORDBREAKS,
the word under the cursor, readline's word and the command word."""

from __future__ import annotations

import pytest

from aish.completion_words import completion_line


@pytest.mark.parametrize(
    ("text", "words", "cword", "word", "command"),
    [
        ("git checkout ma", ("git", "checkout", "ma"), 2, "ma", "git"),
        ("git  ", ("git", ""), 1, "", "git"),
        ("ls --color=au", ("ls", "--color", "=", "au"), 3, "au", "ls"),
        ("ls --color=", ("ls", "--color", "="), 2, "", "ls"),
        ("ls a:=b", ("ls", "a", ":=", "b"), 3, "b", "ls"),
        ("echo a; git ch", ("git", "ch"), 1, "ch", "git"),
        ("make && git ch", ("git", "ch"), 1, "ch", "git"),
        ("cat x | git ch", ("git", "ch"), 1, "ch", "git"),
        ("echo $(git ch", ("git", "ch"), 1, "ch", "git"),
        ("FOO=1 BAR=2 git ch", ("git", "ch"), 1, "ch", "git"),
        ("git checkout 'ma", ("git", "checkout", "'ma"), 2, "ma", "git"),
        ('y "a b', ("y", '"a b'), 1, "a b", "y"),
        ("echo 'a;b' c", ("echo", "'a;b'", "c"), 2, "c", "echo"),
        ("ls my\\ fi", ("ls", "my\\ fi"), 1, "my\\ fi", "ls"),
        ("ls 2>&1 fo", ("ls", "2", ">&", "1", "fo"), 4, "fo", "ls"),
        ("echo $HO", ("echo", "$HO"), 1, "$HO", "echo"),
    ],
)
def test_words_at_the_end_of_the_line(
    text: str, words: tuple[str, ...], cword: int, word: str, command: str
) -> None:
    cut = completion_line(text, len(text))
    assert (cut.words, cut.cword, cut.word, cut.command) == (words, cword, word, command)
    assert cut.line.endswith(cut.words[-1]) and cut.point == len(cut.line)
    assert not cut.in_command_position


def test_the_cursor_inside_the_line_and_the_rest_of_the_command() -> None:
    cut = completion_line("git co main; ls", 6)
    assert (cut.line, cut.point, cut.words, cut.cword) == (
        "git co main",
        6,
        ("git", "co", "main"),
        1,
    )
    assert (cut.word, cut.previous) == ("co", "git")


@pytest.mark.parametrize("text", ["", "gi", "  gi", "echo x; gi", "FOO=1 gi", "a | g"])
def test_command_position(text: str) -> None:
    cut = completion_line(text, len(text))
    assert cut.in_command_position and cut.command == ""


def test_a_quote_left_open_is_where_readlines_word_starts() -> None:
    cut = completion_line('cat "my fi', 10)
    assert (cut.word, cut.quote) == ("my fi", '"')
    cut = completion_line("cat 'done' ne", 13)
    assert (cut.word, cut.quote) == ("ne", "")
