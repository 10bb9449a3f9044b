"""The typed lines' history file is private like bash's: real files under a real umask (the
e2e test `test_history_e2e` types into a real aish)."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from prompt_toolkit.history import FileHistory, InMemoryHistory

from aish.ui.repl.history import open_line_history, placed_lines
from aish.ui.repl.suggest.history import from_history


@pytest.fixture(autouse=True)
def usual_umask() -> Iterator[None]:
    old = os.umask(0o022)  # what made the file 0644 before
    yield
    os.umask(old)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_new_history_file_is_created_0600(tmp_path: Path) -> None:
    said: list[str] = []
    path = tmp_path / "state" / "history"
    history = open_line_history(path, said.append)
    assert isinstance(history, FileHistory)
    assert _mode(path) == 0o600 and said == []
    history.store_string("export TOKEN=abc")
    assert _mode(path) == 0o600 and "+export TOKEN=abc" in path.read_text()


@pytest.mark.parametrize("mode", [0o644, 0o664, 0o606, 0o640])
def test_an_existing_file_open_to_others_is_narrowed_with_one_line(
    tmp_path: Path, mode: int
) -> None:
    path = tmp_path / "history"
    path.write_text("\n# old\n+ls\n")
    path.chmod(mode)
    said: list[str] = []
    history = open_line_history(path, said.append)
    assert _mode(path) == mode & 0o700
    assert said == [
        f"history file {path} was open to others (mode {mode:04o}): "
        f"now {mode & 0o700:04o}, as bash keeps its history"
    ]
    assert list(history.load_history_strings()) == ["ls"]  # nothing lost
    assert open_line_history(path, said.append) is not None and len(said) == 1  # said once


def test_a_private_file_is_left_as_it_is(tmp_path: Path) -> None:
    path = tmp_path / "history"
    path.write_text("")
    path.chmod(0o400 | 0o200)
    said: list[str] = []
    open_line_history(path, said.append)
    assert _mode(path) == 0o600 and said == []


def test_a_file_deleted_while_aish_runs_comes_back_0600(tmp_path: Path) -> None:
    path = tmp_path / "history"
    history = open_line_history(path, [].append)
    path.unlink()
    history.store_string("echo again")
    assert _mode(path) == 0o600


def test_a_directory_in_its_place_costs_one_line(tmp_path: Path) -> None:
    path = tmp_path / "history"
    path.mkdir()
    said: list[str] = []
    assert isinstance(open_line_history(path, said.append), InMemoryHistory)
    assert said == [f"history file {path} unusable (Is a directory): kept in memory only"]


def test_a_multi_line_entry_comes_back_as_one_entry(tmp_path: Path) -> None:
    path = tmp_path / "history"
    entries = [
        "for i in 1 2 3\ndo\n  echo $i\ndone",
        "cat <<-'EOF'\n\t+ a body line that looks like the file's own markers\n# too\n\tEOF",
        "echo one",
        'echo "a\n\nb"',  # an empty line inside the entry
    ]
    writer = open_line_history(path, lambda _text: None)
    for entry in entries:
        writer.store_string(entry)
    reader = open_line_history(path, lambda _text: None)
    # prompt_toolkit's file history yields the newest entry first.
    assert list(reader.load_history_strings()) == entries[::-1]


def test_each_line_keeps_the_directory_it_was_typed_in(tmp_path: Path) -> None:
    path = tmp_path / "history"
    where = ["/srv/one"]
    writer = open_line_history(path, lambda _text: None, lambda: where[0])
    writer.store_string("make test")
    where[0] = '/srv/a "quoted"\ndir'  # any directory name, a newline included
    writer.store_string("make deploy\nmake clean")
    reader = open_line_history(path, lambda _text: None)
    assert list(reader.load_history_strings()) == ["make deploy\nmake clean", "make test"]
    assert list(placed_lines(reader)) == [
        ("make deploy\nmake clean", '/srv/a "quoted"\ndir'),
        ("make test", "/srv/one"),
    ]
    # prompt_toolkit's own reader (and so an older aish) reads the same entries.
    assert list(FileHistory(str(path)).load_history_strings()) == list(
        reader.load_history_strings()
    )


def test_a_file_of_an_older_aish_has_no_directories(tmp_path: Path) -> None:
    path = tmp_path / "history"
    old = FileHistory(str(path))
    old.store_string("echo old")
    reader = open_line_history(path, lambda _text: None, lambda: "/here")
    assert list(reader.load_history_strings()) == ["echo old"]
    reader.store_string("echo new")
    assert list(placed_lines(reader)) == [("echo new", "/here"), ("echo old", None)]


def test_ghost_text_prefers_a_line_typed_here(tmp_path: Path) -> None:
    where = [""]
    history = open_line_history(tmp_path / "history", lambda _text: None, lambda: where[0])
    for line, where[0] in [
        ("make test", "/p/a"),
        ("make deploy", "/p/b"),
        ("echo x\nmake lint", "/p/c"),
    ]:
        history.store_string(line)
    assert from_history(history, "make ", "/p/a") == "test"
    assert from_history(history, "make ", "/p/b") == "deploy"
    # Nothing typed here: the newest line anywhere (each line of a multi-line entry counts).
    assert from_history(history, "make ", "/elsewhere") == "lint"
    assert from_history(history, "  ", "/p/a") is None
    assert from_history(history, "make test", "/p/a") is None  # nothing to add
    assert from_history(history, "for i\nmake d", "/p/a") == "eploy"  # the line being typed
