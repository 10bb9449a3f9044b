"""Routing of a line (SPEC §1): each rule, and the tricky lines a held-out corpus may hold."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aish.agent.routing import KnownCommands, Route, route_line

from .test_routing_fixture import CORPUS_KNOWN


def _route(line: str) -> Route:
    return route_line(line, CORPUS_KNOWN)


def _check(line: str, target: str, text: str | None = None) -> None:
    route = _route(line)
    assert (route.target, route.text) == (target, line.strip() if text is None else text), route
    assert route.reason and "\n" not in route.reason


@pytest.mark.parametrize("line", ["", "   ", "\t\n"])
def test_blank_line_goes_to_the_shell_with_empty_text(line: str) -> None:
    _check(line, "shell", "")


@pytest.mark.parametrize(
    ("line", "target", "text"),
    [
        (":help", "meta", ":help"),
        (":route check ls -la", "meta", ":route check ls -la"),
        ("  :model deep  ", "meta", ":model deep"),
        (":nonsense", "meta", ":nonsense"),
        (":ask why is the sky blue?", "model", "why is the sky blue?"),
        (":ask    ls -la", "model", "ls -la"),
        (":ask\twhy?", "model", "why?"),
        (":ask", "meta", ":ask"),  # nothing to ask: the meta command explains its usage
        (": > out.log", "shell", ": > out.log"),  # the `:` builtin, not a meta command
        (":", "shell", ":"),
    ],
)
def test_meta_commands_and_ask(line: str, target: str, text: str) -> None:
    _check(line, target, text)


@pytest.mark.parametrize(
    ("line", "target", "text"),
    [
        ("!make it faster", "shell", "make it faster"),
        ("! why", "shell", "why"),
        ("!gti status", "shell", "gti status"),
        ("!!", "shell", "!!"),  # history expansion, passed unchanged
        ("^three^four", "shell", "^three^four"),  # quick substitution, as bash reads it
        ("^typo", "shell", "^typo"),  # `old` removed from the last command
        ("?ls -la", "model", "ls -la"),
        ("? how do I exit vim", "model", "how do I exit vim"),
        ("?", "model", ""),
    ],
)
def test_forcing_prefixes(line: str, target: str, text: str) -> None:
    _check(line, target, text)


@pytest.mark.parametrize(
    "line",
    [
        "ls",
        "git status",
        "git pusj",
        "who am i",
        "man tar",
        "cd",
        "cd my",  # a directory called `my`, not a sentence
        "make all",
        "make clean all",
        "kubectl get all",
        "docker compose up",
        "touch grass",
        "ll",
        "which python?",
        "time make build",
        "coproc cat",
    ],
)
def test_known_command_words_go_to_the_shell(line: str) -> None:
    _check(line, "shell")


@pytest.mark.parametrize(
    "line",
    [
        "for f in *.txt; do echo $f; done",
        "for ((i = 0; i < 3; i++)); do echo $i; done",
        "while read -r line; do echo $line; done < list.txt",
        "until false; do sleep 1; done",
        "select x in a b; do echo $x; done",
        "if [ -f .env ]; then echo yes; fi",
        "case $1 in start) echo s;; esac",
        "function greet { echo hi; }",
        "greet() { echo hi; }",
        "[[ -n $VIRTUAL_ENV ]] && echo active",
        "[ -d build ] || mkdir build",
        "(( count++ ))",
        "(cd /tmp && ls)",
        "{ echo a; echo b; } > out.txt",
    ],
)
def test_keyword_constructs_go_to_the_shell(line: str) -> None:
    _check(line, "shell")


@pytest.mark.parametrize(
    "line",
    [
        "VAR=1 cmd",  # an assignment prefix makes it a command, whatever `cmd` is
        "FOO=1 BAR=2 unknowntool --flag",
        "x=$(date +%s)",
        "arr=(a b c)",
        "> file",
        ">> out.log",
        "2>/dev/null unknowntool",
        "< input.txt wc -l",
    ],
)
def test_assignment_and_redirection_leads_go_to_the_shell(line: str) -> None:
    _check(line, "shell")


@pytest.mark.parametrize(
    "line",
    [
        "./run.sh",
        "./does-not-exist --help",  # a path to a missing program: still a command
        "/usr/bin/env python3 x.py",
        "/opt/nothing/bin/tool",
        "~/bin/deploy staging",
        "../scripts/build.sh --release",
        "bin/tool the thing",  # a relative path, even with English after it
        "$EDITOR notes.md",
        "${PAGER:-less} README",
        "$(which python3) --version",
        "\\ls -l",
        '"ls" -l',
        "l's' -l",
    ],
)
def test_paths_expansions_and_quoted_names_go_to_the_shell(line: str) -> None:
    _check(line, "shell")


@pytest.mark.parametrize(
    "line",
    [
        "ls ?",  # a one-character glob, not a question
        "ls a?",
        "ls -la ~/x?",
        "ls *.txt",
        "cat <<< 'the end'",
        'cat <<< "what is this?"',
        "cat <<EOF",
        'git commit -m "fix the bug"',
        "git commit -m 'why did the build fail?'",
        "grep -r the .",
        'grep "all of the" notes.txt',
        "echo the end is near",
        "echo is not working",
        "printf vs echo: which is better?",
        "yes hello",  # free text for `yes`; only a reply word with chat words is a reply
        "ls | unknowntool",  # a pipe into an unknown command: the first word decides
        "ls | grep the",
        "find . -name '*.py' -newer the-file",
        "kill %1",
        "sudo !!",
        "echo café ñandú 日本語",
        "ls # list the files for me",
    ],
)
def test_command_lines_with_english_looking_parts_stay_in_the_shell(line: str) -> None:
    _check(line, "shell")


@pytest.mark.parametrize(
    "line",
    [
        "find the largest files in my home dir",
        "make it faster",
        "kill the process on port 8080",
        "help me fix this error",
        "sort these by size",
        "cat the nginx logs",
        "who broke the build?",
        "ls shows nothing, why?",
        "git says detached HEAD, what does that mean?",
        "time to deploy?",
        "cd into the repo",
        "git status please",
        "find all files larger than 1GB",
        "install numpy",  # `install` copies a source to a destination
        "top 10 largest directories",  # `top` takes no operands
        "yes please",
    ],
)
def test_english_sentences_starting_with_a_command_go_to_the_model(line: str) -> None:
    route = _route(line)
    assert (route.target, route.text) == ("model", line), route
    assert "English" in route.reason


@pytest.mark.parametrize(
    "line",
    [
        "why did that fail?",
        "how do I undo my last git commit",
        "gti status",
        "pyhton3 app.py",
        "htop",
        "tree -L 2",
        "rg TODO src",
        "where is the nginx config",
        "open the door",
        '"quoted words"',
        "'ls -la'",
        "cd..",
        "..",
        "quit",
        "true, but why?",
        "wait, what?",
        "¿cómo borro una rama remota en git?",
        "wie finde ich große Dateien?",
        "explain this: tar -xzvf a.tgz",
        "unknowntool | grep x",
    ],
)
def test_unknown_command_words_go_to_the_model(line: str) -> None:
    route = _route(line)
    assert (route.target, route.text) == ("model", line), route


@pytest.mark.parametrize(
    "line",
    [
        "it's broken again",
        "what's up",
        'echo "unterminated',
        "ls 'unbalanced",
        "do it",
        "done",
        "then what?",
        "if it fails, retry with verbose",
        "for each file in src, add a license header",
        "case closed",
        "select the best option",
        "while you're at it, bump the version",
        "ls )",
    ],
)
def test_lines_bash_cannot_parse_go_to_the_model(line: str) -> None:
    route = _route(line)
    assert (route.target, route.text) == ("model", line), route
    assert "cannot parse" in route.reason


def test_routes_whole_multi_line_input_by_its_first_command() -> None:
    _check("for f in *; do\n  echo $f\ndone", "shell")


def test_very_long_lines_route_like_short_ones() -> None:
    files = " ".join(f"file{i}.txt" for i in range(5000))
    _check(f"ls -l {files}", "shell")
    words = " ".join(["please"] * 5000)
    assert _route(f"what {words}").target == "model"
    assert _route(f"find the {words}").target == "model"


def test_builtins_and_keywords_are_known_even_with_an_empty_command_set() -> None:
    empty = KnownCommands(frozenset())
    assert route_line("cd /tmp", empty).target == "shell"
    assert route_line("time sleep 1", empty).target == "shell"
    assert route_line("ls", empty).target == "model"


def test_aliases_and_functions_come_from_the_command_set() -> None:
    known = KnownCommands(frozenset({"gs", "deploy"}))
    assert route_line("gs", known).target == "shell"
    assert route_line("deploy staging", known).target == "shell"
    assert route_line("deploy the app to staging", known).target == "model"


def test_reason_names_the_rule() -> None:
    assert "builtin" in _route("cd ..").reason
    assert "keyword `for`" in _route("for x in a; do :; done").reason
    assert "subshell" in _route("(cd /tmp && ls)").reason
    assert "builtin `[`" in _route("[ -f x ] && cat x").reason
    assert "expansion" in _route("$EDITOR x").reason
    assert "English (the, in, my)" in _route("find the largest files in my home dir").reason
    assert "cannot parse" in _route("it's").reason
    assert "path" in _route("./run.sh").reason
    assert "assignment" in _route("X=1 ls").reason
    assert "redirection" in _route("> out.log").reason
    assert "`gti`" in _route("gti status").reason


def test_routing_is_deterministic() -> None:
    lines = ["make it faster", "ls -la", "why?", ":help", "x=1", "it's"]
    first = [_route(line) for line in lines]
    assert [_route(line) for line in lines] == first


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_any_text_gets_a_route(line: str) -> None:
    route = _route(line)
    assert route.target in ("shell", "model", "meta")
    assert route.reason
    if route.target == "model" and not line.lstrip().startswith(("?", ":ask")):
        assert route.text == line.strip()


@settings(max_examples=200, deadline=None)
@given(st.text(min_size=1).filter(lambda s: s.strip() == s and not s.startswith("!")))
def test_bang_always_forces_the_shell_and_question_mark_the_model(rest: str) -> None:
    assert _route("!" + rest) == Route("shell", rest, "the `!` prefix forces the shell")
    assert _route("?" + rest) == Route("model", rest, "the `?` prefix forces the model")
