"""`safety.bash.syntax`: what a line of bash is made of, and whether bash would accept it."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aish.safety.bash.syntax import BashLine, SimpleCommand, Word, parse_bash


def _first(line: str) -> SimpleCommand:
    parsed = parse_bash(line)
    assert parsed.ok, parsed.error
    return parsed.commands[0]


def _names(parsed: BashLine) -> list[str | None]:
    return [c.name.value if c.name else None for c in parsed.commands]


def test_importing_does_not_load_tree_sitter() -> None:
    code = (
        "import sys, aish.safety.bash.syntax as b; "
        "assert 'tree_sitter' not in sys.modules; b.parse_bash('ls'); "
        "assert 'tree_sitter' in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_simple_command_words() -> None:
    command = _first("ls -la /tmp")
    assert command.name == Word("ls", "ls", False)
    assert [a.value for a in command.arguments] == ["-la", "/tmp"]
    assert command.assignments == command.redirections == ()
    assert not command.redirection_first and not command.in_substitution


def test_command_word_comes_after_assignments_and_redirections() -> None:
    command = _first("FOO=1 BAR=2 2>/dev/null ./run.sh --fast > out.log")
    assert command.name is not None and command.name.value == "./run.sh"
    assert command.assignments == ("FOO=1", "BAR=2")
    assert command.redirections == ("2>/dev/null", "> out.log")
    assert command.redirection_first
    assert [a.value for a in command.arguments] == ["--fast"]


@pytest.mark.parametrize(
    ("written", "value", "quoted"),
    [
        ("\\ls", "ls", True),
        ('"ls"', "ls", True),
        ("'ls -la'", "ls -la", True),
        ("l\"s\"'x'", "lsx", True),
        ("$'a\\tb'", "a\tb", True),
        ('"a\\"b\\$c\\d"', 'a"b$c\\d', True),
        ("~/bin/x", "~/bin/x", False),
        ("*.txt", "*.txt", False),
        ("$EDITOR", None, False),
        ('"$HOME/x"', None, True),
        ("$(which python3)", None, False),
        ("`which ls`", None, False),
    ],
)
def test_word_values(written: str, value: str | None, quoted: bool) -> None:
    command = _first(f"{written} arg")
    assert command.name == Word(written, value, quoted)


@pytest.mark.parametrize(
    ("line", "kind", "token"),
    [
        ("", "empty", ""),
        ("# just a note", "comment", ""),
        ("ls | wc -l", "command", "ls"),
        ("cd build && make", "command", "cd"),
        ("x=1", "assignment", ""),
        ("a=1 b=(2 3)", "assignment", ""),
        ("> out.log", "redirection", ""),
        ("FOO=1 > out.log", "redirection", ""),
        ("for f in *; do echo $f; done", "compound", "for"),
        ("for ((i=0; i<3; i++)); do :; done", "compound", "for"),
        ("while true; do :; done", "compound", "while"),
        ("until false; do :; done", "compound", "until"),
        ("select x in a; do :; done", "compound", "select"),
        ("if true; then :; fi", "compound", "if"),
        ("case x in x) :;; esac", "compound", "case"),
        ("function f { :; }", "compound", "function"),
        ("f() { :; }", "compound", "function"),
        ("(cd /tmp && ls)", "compound", "("),
        ("{ ls; } > out", "compound", "{"),
        ("(( n++ ))", "compound", "(("),
        ("[ -f x ] && cat x", "compound", "["),
        ("[[ -f x ]]", "compound", "[["),
        ("! grep -q x f", "compound", "!"),
        ("export A=1", "command", "export"),
        ("unset A", "command", "unset"),
    ],
)
def test_lead(line: str, kind: str, token: str) -> None:
    parsed = parse_bash(line)
    assert parsed.ok, parsed.error
    assert (parsed.lead.kind, parsed.lead.token) == (kind, token)


def test_commands_are_listed_in_source_order_including_nested_ones() -> None:
    parsed = parse_bash('x=$(date) && for f in $(ls); do rm "$f"; done | tee <(wc -l) log')
    assert _names(parsed) == [None, "date", "ls", "rm", "tee", "wc"]
    assert [c.in_substitution for c in parsed.commands] == [False, True, True, False, False, True]


def test_shape_flags() -> None:
    plain = parse_bash("git commit -m 'fix the bug'")
    assert plain.ok and plain.statement_count == 1
    assert not (plain.has_operators or plain.has_redirections or plain.has_assignments)
    assert not (plain.has_expansions or plain.has_comment)
    busy = parse_bash("A=1 ls $HOME > out; echo done # note")
    assert busy.statement_count == 2
    assert busy.has_operators and busy.has_redirections and busy.has_assignments
    assert busy.has_expansions and busy.has_comment
    assert parse_bash("ls | wc").has_operators
    assert parse_bash("sleep 1 &").has_operators
    assert parse_bash("cat <<< 'x'").has_redirections
    assert parse_bash("echo {1..3}").has_expansions


def test_declaration_commands_keep_their_assignments_as_arguments() -> None:
    command = _first('export EDITOR=vim PATH="$HOME/bin:$PATH"')
    assert command.name is not None and command.name.value == "export"
    assert [a.value for a in command.arguments] == ["EDITOR=vim", None]


def test_one_line_heredoc_is_accepted_as_bash_does() -> None:
    parsed = parse_bash("cat <<EOF")
    assert parsed.ok and parsed.has_redirections
    assert _names(parsed) == ["cat"]


@pytest.mark.parametrize(
    "line",
    [
        "it's broken",
        'echo "unterminated',
        "ls )",
        "if true; then",
        "{ ls",
        "do it",
        "done",
        "then what?",
        "fi",
        "esac",
        "in the box",
        "} x",
        "]]",
        "! case",
        "coproc",
        "time done",
        "ls && then",
        "case closed",
        "select the best option",
        "what (is) this",
    ],
)
def test_what_bash_rejects_is_not_ok(line: str) -> None:
    parsed = parse_bash(line)
    assert not parsed.ok
    assert parsed.error and parsed.error.startswith("syntax error")


@pytest.mark.parametrize(
    "line",
    [
        "echo done",
        "echo then fi esac",
        "x=1 done",  # after an assignment, `done` is an ordinary word
        "x=1 2>&1",
        "2>/dev/null done",
        "'done'",
        "\\done",
        "time ls",
        "coproc cat",
        "ls ?",
        "sudo !!",
    ],
)
def test_reserved_words_outside_command_position_are_fine(line: str) -> None:
    assert parse_bash(line).ok


_BASH = shutil.which("bash")


@pytest.mark.skipif(_BASH is None, reason="bash is not installed")
@pytest.mark.parametrize(
    "line",
    [
        "ls -la | grep foo",
        "for f in *.txt; do echo $f; done",
        "case $1 in start) echo s;; esac",
        "function greet { echo hi; }",
        "{ echo a; echo b; } > out.txt",
        "x=$(date +%s)",
        "(( count++ ))",
        "cat <<< 'hi'",
        "[[ -n $X ]] && echo y",
        "it's broken again",
        "do it",
        "done",
        "then what?",
        "if it fails, retry",
        "for each file in src, add a header",
        "select the best option",
        "case closed",
        "what (is) this",
        "echo a)",
        "} x",
        "true, but why?",
        "who am i",
    ],
)
def test_agrees_with_bash_n(line: str, tmp_path: Path) -> None:
    assert _BASH is not None
    script = tmp_path / "line.sh"
    script.write_text(line + "\n")
    result = subprocess.run([_BASH, "-n", str(script)], capture_output=True, text=True)
    bash_ok = result.returncode == 0 and not result.stderr
    assert parse_bash(line).ok == bash_ok, result.stderr


def test_assignment_with_redirection_and_no_command_is_accepted() -> None:
    parsed = parse_bash("FOO=1 > out.log")
    assert parsed.ok and parsed.lead.kind == "redirection"
    command = parsed.commands[0]
    assert (command.name, command.arguments) == (None, ())
    assert command.assignments == ("FOO=1",) and command.redirections == ("> out.log",)


_SHELLISH = st.lists(
    st.sampled_from(
        [
            "ls",
            "echo",
            "the",
            "if",
            "then",
            "fi",
            "do",
            "done",
            "for",
            "in",
            "case",
            "esac",
            "{",
            "}",
            "(",
            ")",
            "((",
            "))",
            "[[",
            "]]",
            "|",
            "||",
            "&&",
            ";",
            "&",
            ">",
            "<<",
            "<<<",
            "2>&1",
            "'",
            '"',
            "'a b'",
            '"x $y"',
            "$x",
            "${x",
            "$(",
            "`",
            "x=",
            "!",
            "?",
            "*",
            "#",
            "\\",
            "\n",
            "function",
            "coproc",
            "time",
            "select",
            "-l",
            "é",
            "\x00",
        ]
    ),
    max_size=12,
).map(" ".join)


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(), _SHELLISH))
def test_never_raises_on_arbitrary_text(text: str) -> None:
    parsed = parse_bash(text)
    assert parsed.source == text
    assert parsed.ok == (parsed.error is None)
    assert parsed.lead.kind in (
        "empty",
        "comment",
        "command",
        "assignment",
        "redirection",
        "compound",
    )


def test_survives_surrogates_nul_bytes_and_deep_nesting() -> None:
    for text in ["\ud800 ls", "ls\x00 -l", "(" * 3000 + ")" * 3000, "$(" * 500, "a" * 100_000]:
        parse_bash(text)


def test_brace_before_a_four_byte_character_does_not_crash_the_process() -> None:
    # tree-sitter/tree-sitter-bash#337: a segfault, so it runs in a child process.
    code = (
        "from aish.safety.bash.syntax import parse_bash\n"
        "for cp in (0x31860, 0x95E79, 0xE0001, 0xF0000, 0x10FFFF):\n"
        "    for _ in range(5000):\n"
        "        parse_bash('{' + chr(cp) + 'FX')\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=120)
    assert result.returncode == 0, result.stderr.decode(errors="replace")[-2000:]


def test_non_ascii_text_is_kept_exactly() -> None:
    parsed = parse_bash("echo café 日本語 \U0001f600 'ñandú'")
    assert parsed.ok
    assert [a.value for a in parsed.commands[0].arguments] == [
        "café",
        "日本語",
        "\U0001f600",
        "ñandú",
    ]
    assert not parse_bash("é=1").has_assignments  # not an identifier, so not an assignment
