"""`KnownCommands.from_system`: builtins, keywords, executables on a (fake) PATH, and extras."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from aish.agent.routing import KnownCommands, route_line
from aish.agent.routing.names import BASH_BUILTINS, BASH_KEYWORDS, executables_on_path


def _executable(path: Path) -> Path:
    path.write_text("#!/bin/sh\n")
    path.chmod(0o755)
    return path


@pytest.fixture
def fake_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    bin_a, bin_b = tmp_path / "a", tmp_path / "b"
    bin_a.mkdir()
    bin_b.mkdir()
    _executable(bin_a / "mytool")
    _executable(bin_b / "other-tool")
    (bin_a / "notes.txt").write_text("not executable")
    (bin_a / "subdir").mkdir()
    os.symlink(bin_a / "gone", bin_a / "broken-link")
    os.symlink(bin_a / "mytool", bin_b / "linked")
    missing = tmp_path / "missing"
    monkeypatch.setenv("PATH", os.pathsep.join([str(bin_a), "", str(missing), str(bin_b)]))
    return tmp_path


def test_from_system_reads_executables_on_path(fake_path: Path) -> None:
    known = KnownCommands.from_system()
    assert {"mytool", "other-tool", "linked"} <= known.names
    assert not {"notes.txt", "subdir", "broken-link", "ls"} & known.names
    assert known.names >= BASH_BUILTINS | BASH_KEYWORDS


def test_from_system_adds_aliases_and_functions(fake_path: Path) -> None:
    known = KnownCommands.from_system(extra=["ll", "gs"])
    assert {"ll", "gs"} <= known.names
    assert route_line("gs", known).target == "shell"
    assert route_line("ls", known).target == "model"  # not on this fake PATH


def test_executables_on_an_explicit_path(fake_path: Path) -> None:
    assert executables_on_path(str(fake_path / "b")) == {"other-tool", "linked"}
    assert executables_on_path("") == frozenset()


def test_known_commands_is_hashable_and_immutable() -> None:
    known = KnownCommands(frozenset({"a"}))
    assert hash(known) == hash(KnownCommands(frozenset({"a"})))
    assert "cd" in known and "a" in known and "b" not in known
