"""Norris in its sandbox, in the real REPL typed at like a person: the run's steps act on the
overlay, the change set is shown at the end with its diff, one key keeps it, `:norris review`
shows it again, picking applies only the chosen file, discarding drops the rest — and the real
tree is checked after each answer."""

from __future__ import annotations

from pathlib import Path

import pexpect

from ..conftest import ServeFn
from ..sandbox_trees import require_sandbox, tree_state
from .conftest import AishTerminal, spawn_aish
from .test_norris_e2e import config_for

REVIEW = r"\[a\]pply all / \[p\]ick files / \[d\]iscard / \[k\]eep for later"


def _steps(*texts: str) -> dict[str, object]:
    return {"rules": [{"when": {}, "replies": [{"text": t} for t in texts]}]}


def test_end_of_run_review_keep_then_pick_then_discard(
    serve: ServeFn, aish_home: Path, terminals: list[AishTerminal]
) -> None:
    require_sandbox()
    work = aish_home / "work"
    (work / "notes.txt").write_text("first\n")
    server = serve(
        _steps(
            "CMD: echo second >> notes.txt",
            "CMD: mkdir -p out && echo made >> out/new.txt",
            "CMD: touch /etc/aish-e2e-outside",
            "GOAL: complete",
        )
    )
    aish = spawn_aish(aish_home, config=config_for(server.url))
    terminals.append(aish)
    aish.wait_prompt()
    before = tree_state(work)

    aish.type_line(":norris write the notes")
    aish.expect("sandboxed: changes to ~/work stay in a copy-on-write overlay")
    aish.expect("in the sandbox unknown steps run unasked; destructive ones halt")
    aish.expect("writes outside the tree are refused: /etc/aish-e2e-outside")
    aish.expect("norris done")
    aish.expect(r"sandbox changes in .*work: 2 created, 1 modified")
    aish.expect(r"1 ~ notes.txt  \(13 B\)")
    aish.expect(r"2 \+ out/")
    aish.expect(r"3 \+ out/new.txt  \(5 B\)")
    aish.expect(r"\+second")
    aish.expect(REVIEW)
    aish.child.send("k")
    aish.expect("sandbox kept: :norris review shows it again")
    aish.wait_prompt()
    assert tree_state(work) == before  # nothing reached the real tree

    aish.type_line(":norris review")
    aish.expect(REVIEW)
    aish.child.send("p")
    aish.expect("Apply which?")
    aish.type_line("1")
    aish.expect("applied 1 change")
    aish.expect(r"still pending: 2 created \(:norris review\)")
    aish.wait_prompt()
    assert (work / "notes.txt").read_text() == "first\nsecond\n"
    assert not (work / "out").exists()

    aish.type_line(":norris review")
    aish.expect(r"sandbox changes in .*work: 2 created\r\n")
    aish.expect(REVIEW)
    aish.child.send("d")
    aish.expect("sandbox discarded: nothing was applied")
    aish.wait_prompt()
    assert not (work / "out").exists()
    assert "no sandbox to review" in aish.run(":norris review")
    assert not Path("/etc/aish-e2e-outside").exists()
    aish.type_line(":quit")
    aish.child.expect(pexpect.EOF, timeout=10)


def test_apply_all_at_the_end_of_the_run(
    serve: ServeFn, aish_home: Path, terminals: list[AishTerminal]
) -> None:
    require_sandbox()
    work = aish_home / "work"
    (work / "old").mkdir()
    (work / "old" / "a.txt").write_text("a\n")
    (work / "run.sh").write_text("echo run\n")
    server = serve(_steps("CMD: chmod +x run.sh && echo log >> build.log", "GOAL: complete"))
    aish = spawn_aish(aish_home, config=config_for(server.url))
    terminals.append(aish)
    aish.wait_prompt()

    aish.type_line(":norris build it")
    aish.expect(r"m run.sh  \(0644 → 0755\)")
    aish.expect(REVIEW)
    aish.child.send("a")
    aish.expect("applied 2 change")
    aish.wait_prompt()
    assert (work / "build.log").read_text() == "log\n"
    assert (work / "run.sh").stat().st_mode & 0o777 == 0o755
    assert (work / "old" / "a.txt").read_text() == "a\n"
    aish.type_line(":quit")
    aish.child.expect(pexpect.EOF, timeout=10)
