"""What is said about a project file: the escaping of its text, the one-line notice when the
shell's directory changes project, and which commands may change directory part-way."""

from __future__ import annotations

from pathlib import Path

import pytest

from aish.agent.project import may_change_directory
from aish.config.project_scope import ProjectState
from aish.ui.project_review import change_lines, foreign, project_notice, short_path

HOME = Path("/home/u")
A = ProjectState(HOME / "A" / ".aish.toml", "a" * 64, trusted=True, recorded=True)


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("\x1b[2A\x1b[2Kok", "^[[2A^[[2Kok"),
        ("a\nb\tc\rd", "a^Jb^Ic^Md"),
        ("\x9b1A", "\\x9b1A"),
        ("safe\u202e\u200bevil", "safe<U+202E><U+200B>evil"),
        ("\u2066x\u2069\ufeff", "<U+2066>x<U+2069><U+FEFF>"),
        ("plain ünïcode ✓", "plain ünïcode ✓"),
    ],
)
def test_foreign_text_shows_every_control_and_format_character(text: str, shown: str) -> None:
    assert foreign(text) == shown


def test_paths_under_home_are_short() -> None:
    assert short_path(HOME / "B" / ".aish.toml", HOME) == "~/B/.aish.toml"
    assert short_path(Path("/srv/B/.aish.toml"), HOME) == "/srv/B/.aish.toml"
    assert short_path(Path("/srv/B/.aish.toml"), None) == "/srv/B/.aish.toml"


@pytest.mark.parametrize(
    ("state", "notice"),
    [
        (A, "project config: ~/A/.aish.toml (trusted)"),
        (
            ProjectState(HOME / "B" / ".aish.toml", "b" * 64),
            "project config: ~/B/.aish.toml (not trusted: :trust to review)",
        ),
        (
            ProjectState(HOME / "A" / ".aish.toml", "c" * 64, recorded=True),
            "project config: ~/A/.aish.toml (changed since you trusted it: :trust to review)",
        ),
        (
            ProjectState(HOME / "A" / ".aish.toml"),
            "project config: ~/A/.aish.toml (cannot be read: ignored)",
        ),
        (ProjectState(), "project config: none here (~/A/.aish.toml no longer applies)"),
        (
            ProjectState(HOME / "\x1b[2KB" / ".aish.toml", "b" * 64),
            "project config: ~/^[[2KB/.aish.toml (not trusted: :trust to review)",
        ),
    ],
)
def test_the_notice_names_the_active_file(state: ProjectState, notice: str) -> None:
    assert project_notice(state, A, HOME) == notice


def test_leaving_an_untrusted_file_for_none_says_only_none() -> None:
    untrusted = ProjectState(HOME / "B" / ".aish.toml", "b" * 64)
    assert project_notice(ProjectState(), untrusted, HOME) == "project config: none here"


def test_a_change_says_the_notice_then_only_new_warnings_escaped() -> None:
    b = ProjectState(HOME / "B" / ".aish.toml", "b" * 64, trusted=True, recorded=True)
    warnings = [
        "config.toml:3: key x: unknown key",  # the user file's, said at start already
        f'{b.path}:2: key "\x1b[2K": unknown key',  # B's own, new
        f"project config {b.path} is not trusted: :trust to review it",  # the notice says it
    ]
    said = {"config.toml:3: key x: unknown key"}
    assert change_lines(b, A, warnings, said, HOME) == [
        "project config: ~/B/.aish.toml (trusted)",
        f'{b.path}:2: key "^[[2K": unknown key',
    ]


@pytest.mark.parametrize(
    "command",
    [
        "cd ../B && make test",
        "cd ../B; make test",
        "(cd ../B && make test)",
        "pushd ../B && make test",
        "bash -c 'cd ../B; make test'",
        "builtin cd ../B && make test",
        "make -C ../B test",
        "env --chdir=../B make test",
        "git -C ../B status",
        "tar --directory=../B -xf x.tar",
    ],
)
def test_commands_that_may_run_elsewhere(command: str) -> None:
    assert may_change_directory(command)


@pytest.mark.parametrize(
    "command",
    ["make test", "ls abcd", "echo cdrom", "cat ./cd/file", "grep -c x f", "make cd-image"],
)
def test_commands_that_stay_put(command: str) -> None:
    assert not may_change_directory(command)
