"""The blast radius and `:undo` in the real REPL: the model proposes `rm -r build`, the confirm
prompt says what it deletes and that it is undoable, `y` runs it in the real shell, and `:undo`
brings `build/` back byte for byte — and asks first once the files changed after."""

from __future__ import annotations

from pathlib import Path

import pexpect

from ..conftest import ServeFn
from ..file_trees import disk_count, listing, make_tree
from .conftest import AishTerminal, spawn_aish


def _config(url: str) -> str:
    return f'default_model = "local"\n[models.local]\nendpoint = "{url}/v1"\nmodel = "testllm"\n'


def test_confirm_shows_the_blast_radius_and_undo_brings_build_back(
    serve: ServeFn, aish_home: Path, terminals: list[AishTerminal]
) -> None:
    work = aish_home / "work"
    make_tree(work)
    files, _size = disk_count(work / "build")
    before = listing(work)
    server = serve(
        {
            "rules": [
                {
                    "when": {"user": "clean the build"},
                    "reply": {"text": "Removing it.\nCMD: rm -r build\n"},
                }
            ],
            "default": {"text": "ok"},
        }
    )
    aish = spawn_aish(aish_home, config=_config(server.url))
    terminals.append(aish)
    aish.wait_prompt()

    aish.type_line("clean the build please")
    shown = aish.expect(r"\[d\]escribe")
    assert "[destructive]" in shown
    assert f"deletes {files:,} files" in shown and "under build/" in shown
    assert "undoable with :undo" in shown
    aish.child.send("y")
    shown = aish.wait_prompt()
    assert ":undo puts back what it changed (snapshot 1" in shown
    assert not (work / "build").exists()

    listed = aish.run(":undo list")
    assert "rm -r build" in listed and "(restored)" not in listed
    shown = aish.run(":undo")
    assert "undone: rm -r build (snapshot 1)" in shown
    assert listing(work) == before
    assert "nothing to undo" in aish.run(":undo")

    # Again, and this time the user works in build/ after the command: :undo asks first.
    aish.type_line("clean the build please")
    aish.expect(r"\[d\]escribe")
    aish.child.send("y")
    aish.wait_prompt()
    assert not (work / "build").exists()
    aish.run("mkdir build && echo mine > build/new.txt")
    aish.type_line(":undo")
    shown = aish.expect(r"restore anyway, losing those changes\? \[y/N\]")
    assert "created: build/new.txt" in shown
    aish.child.send("n")
    assert "not restored" in aish.wait_prompt()
    assert (work / "build" / "new.txt").read_text() == "mine\n"
    aish.type_line(":undo 2")
    aish.expect(r"\[y/N\]")
    aish.child.send("y")
    assert "undone: rm -r build (snapshot 2)" in aish.wait_prompt()
    assert listing(work) == before

    aish.type_line(":quit")
    aish.child.expect(pexpect.EOF, timeout=10)
