"""Routing with evidence beyond the command word (issue 18, item 4): files in the shell's cwd,
operands that cannot fit the command, replies to the model, markdown backticks, and valid bash
that tree-sitter-bash misreads, judged by `bash -n` itself."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from aish.agent.routing import Route, paths_under, route_line
from aish.agent.routing.paths import SCAN_LIMIT
from aish.agent.routing.repair import stand_in

from .test_routing_fixture import CORPUS_KNOWN


def _route(line: str, cwd: Path | None = None) -> Route:
    if cwd is None:
        return route_line(line, CORPUS_KNOWN)
    return route_line(line, CORPUS_KNOWN, paths_under(str(cwd)))


@pytest.mark.parametrize("line", ["mv a b", "cp a b", "diff a b", "cp a b the"])
def test_words_naming_files_in_the_cwd_are_evidence_of_a_command(line: str, tmp_path: Path) -> None:
    assert _route(line).target == "model"  # no evidence: `a` reads as an article
    for name in ("a", "b"):
        (tmp_path / name).touch()
    route = _route(line, tmp_path)
    assert route.target == "shell", route
    assert "`a`, `b` name files here" in route.reason


def test_a_file_does_not_turn_a_long_sentence_into_a_command(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    line = "find all the broken links in the docs and fix them"
    assert _route(line, tmp_path).target == "model"


def test_a_glob_that_matches_a_file_is_a_glob_not_a_question(tmp_path: Path) -> None:
    assert _route("free memory?", tmp_path).target == "model"
    assert _route("ls memory?", tmp_path).target == "shell"
    (tmp_path / "memory1").touch()
    assert paths_under(str(tmp_path))("memory?")
    assert not paths_under(str(tmp_path))("nothing?")


def test_the_glob_scan_is_bounded(tmp_path: Path) -> None:
    for n in range(SCAN_LIMIT + 5):
        (tmp_path / f"f{n:05d}").touch()
    (tmp_path / "zz").touch()
    names_path = paths_under(str(tmp_path))
    assert names_path("f0000?")  # an early match is found
    assert names_path("zz")  # a plain name is a stat, never a scan


def test_the_path_test_survives_odd_words(tmp_path: Path) -> None:
    names_path = paths_under(str(tmp_path / "gone"))
    assert not names_path("a") and not names_path("a?") and not names_path("x\0y")


@pytest.mark.parametrize(
    ("line", "why"),
    [
        ("exit nano", "`exit` takes a number, not `nano`"),
        ("enable mouse support", "`enable` takes builtin names, not `mouse`"),
        ("install numpy", "`install` takes a source and a destination"),
        ("install dependencies", "`install` takes a source and a destination"),
        ("free memory?", "`free` takes no operands"),
        ("kill all processes", "`kill` takes job specs or process ids, not `all`"),
        ("sleep on it", "`sleep` takes a duration, not `on`"),
        ("test account characteristics", "`test` needs an operator"),
        ("set background color", "`set` takes options"),
        ("help me", "`help` takes a builtin's name, not `me`"),
        ("time to go home", "`to` after `time` is not a command"),
        ("yes please", "`please` after the reply word `yes`"),
        ("which one is faster?", "a trailing `?`"),
        ("read and display the profile", "`and` right after the command word"),
    ],
)
def test_lines_that_start_with_a_command_word_but_read_as_english(line: str, why: str) -> None:
    route = _route(line)
    assert (route.target, route.text) == ("model", line), route
    assert "reads as English" in route.reason and why in route.reason


@pytest.mark.parametrize(
    "line",
    [
        "exit",
        "exit 1",
        "enable -n echo",
        "enable echo",
        "install -m 755 build/app /usr/local/bin",
        "free -h",
        "kill %1",
        "kill 4242 4343",
        "sleep 5m",
        "sleep infinity",
        "help cd",
        "help r",  # a prefix lists read, readarray, readonly, return
        "time make build",
        "sudo systemctl restart nginx",
        "yes",
        "yes n",
        "cd build",
        "date +%s",
        "chmod 755 run",
        "diff old new",
        "git checkout staging",
        "make install",
        "set -e",
    ],
)
def test_commands_whose_operands_fit_stay_in_the_shell(line: str) -> None:
    assert _route(line).target == "shell", _route(line)


def test_replies_go_to_the_model_even_when_the_reply_word_is_a_command() -> None:
    known = type(CORPUS_KNOWN)(CORPUS_KNOWN.names | {"sure", "ok"})
    for line in ("sure go ahead", "ok do it", "yes please", "yes, thanks"):
        assert route_line(line, known).target == "model", line
    assert route_line("ok status", known).target == "shell"


@pytest.mark.parametrize(
    "line",
    [
        "convert all the `.doc` files here to PDF",
        "split a file above the first line matching a `regex`",
        "set the `PATH` variable so it includes my bin dir",
    ],
)
def test_backticks_inside_an_english_sentence_are_quoting(line: str) -> None:
    known = type(CORPUS_KNOWN)(CORPUS_KNOWN.names | {"convert"})
    route = route_line(line, known)
    assert (route.target, route.text) == ("model", line), route
    assert "backticks quote words" in route.reason


@pytest.mark.parametrize(
    "line",
    [
        "kill `pidof nginx`",
        "cd `dirname $0`",
        "ls -l `which python3`",
        "echo the time is `date`",
        "vim `git diff --name-only`",
        "cat `ls`",
    ],
)
def test_backticks_in_a_command_are_command_substitution(line: str) -> None:
    assert _route(line).target == "shell", _route(line)


# Valid bash (per `bash -n`) that tree-sitter-bash cannot parse as written.
MISREAD_BY_TREE_SITTER = [
    "exec 3<>file",
    "exec 3<> /dev/tcp/example.com/80",
    "exec {fd}<>file",
    "cat <>file",
    "lsof -c /^..o.$/i -a -d cwd",
    "echo $% $, $.",
    "case x in a) echo a;;& b) echo b;& c) echo c;; esac",
    "ls ?(a|b)",
    "ls -d @(src|tests)",
    "ls *.@(c|h)",
    "[ a \\< b ] && echo less",
]


@pytest.mark.parametrize("line", MISREAD_BY_TREE_SITTER)
def test_valid_bash_that_tree_sitter_misreads_goes_to_the_shell(line: str) -> None:
    accepted = subprocess.run(["bash", "-O", "extglob", "-n", "-c", line], check=False)
    assert accepted.returncode == 0, "the oracle, bash, must accept the line"
    assert stand_in(line) is not None
    route = _route(line)
    assert (route.target, route.text) == ("shell", line), route


@pytest.mark.parametrize(
    "line", ["what's up", "it's broken again", "don't do that", "why $5 a month?", "ok?"]
)
def test_the_stand_in_does_not_rescue_what_bash_rejects(line: str) -> None:
    rejected = subprocess.run(["bash", "-n", "-c", line], check=False, capture_output=True)
    if rejected.returncode != 0:
        assert _route(line).target == "model"
