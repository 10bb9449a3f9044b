"""The gate puts the blast radius on the verdict the confirm and HALT prompts show, and on the
authorization the executor snapshots from; the agent's real shell snapshots before an approved
step runs, so the snapshot store can put the tree back.

The frontend here is a scripted one (the UI boundary); the gate, the prediction, the shell and
the files are real.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from aish.agent import gate
from aish.agent.events import Halt
from aish.agent.shell_facts import ShellFactsSource
from aish.run.undo import SnapshotStore, UndoRecorder
from aish.safety.bash.live_shell import ShellFacts
from aish.ui.agent_shell import AgentShell
from aish.ui.render.norris_frames import norris_pieces
from tests.support import ScriptedFrontend

from ..file_trees import disk_count, listing, make_tree


@pytest.fixture
def work(tmp_path: Path) -> Path:
    root = tmp_path / "work"
    root.mkdir()
    make_tree(root)
    return root


def _facts(cwd: Path) -> Callable[[str], Awaitable[ShellFacts | None]]:
    facts = ShellFacts(cwd=str(cwd))

    async def source(command: str) -> ShellFacts | None:
        return facts

    return source


async def test_the_confirm_prompt_is_shown_what_the_command_touches(work: Path) -> None:
    files, _size = disk_count(work / "build")
    frontend = ScriptedFrontend("yes")
    granted = await gate.authorize(
        gate.ProposedCommand("rm -r build"),
        gate.Policy("interactive"),
        confirmer=frontend,
        facts=_facts(work),
    )
    [(_, verdict)] = frontend.asked
    assert verdict.level == "destructive"
    assert verdict.touches[0].startswith(f"deletes {files:,} files, ")
    assert verdict.touches[0].endswith(" under build/")
    assert verdict.touches[-1] == "undoable with :undo"
    assert granted.radius is not None and granted.radius.paths == (str(work / "build"),)


async def test_safe_and_refused_commands_get_no_prediction(work: Path) -> None:
    frontend = ScriptedFrontend("yes")
    safe = await gate.authorize(
        gate.ProposedCommand("ls build"),
        gate.Policy("interactive"),
        confirmer=frontend,
        facts=_facts(work),
    )
    assert safe.radius is None and frontend.asked[0][1].touches == ()
    refused = await gate.authorize(
        gate.ProposedCommand("rm -r build"), gate.Policy("headless"), facts=_facts(work)
    )
    assert not refused.run and refused.radius is None
    unknown_cwd = await gate.authorize(
        gate.ProposedCommand("rm -r build"),
        gate.Policy("interactive"),
        confirmer=ScriptedFrontend("yes"),
    )
    assert unknown_cwd.radius is None


async def test_over_the_limit_the_prompt_says_not_undoable(work: Path) -> None:
    frontend = ScriptedFrontend("no")
    await gate.authorize(
        gate.ProposedCommand("rm -r build"),
        gate.Policy("interactive", undo_max_bytes=1024),
        confirmer=frontend,
        facts=_facts(work),
    )
    assert frontend.asked[0][1].touches[-1].startswith("not undoable: ")
    unpredictable = ScriptedFrontend("no")
    await gate.authorize(
        gate.ProposedCommand("bash cleanup.sh"),
        gate.Policy("interactive"),
        confirmer=unpredictable,
        facts=_facts(work),
    )
    assert unpredictable.asked[0][1].touches == (
        "cannot predict: bash runs code aish cannot see",
        "not undoable: targets unknown",
    )


async def test_an_edited_command_is_predicted_again(work: Path) -> None:
    (work / "notes.txt").write_text("keep")
    edited = await gate.authorize(
        gate.ProposedCommand("rm -r build"),
        gate.Policy("interactive"),
        confirmer=ScriptedFrontend("edit", edits=("rm notes.txt",)),
        facts=_facts(work),
    )
    assert edited.radius is not None and edited.radius.paths == (str(work / "notes.txt"),)


async def test_the_halt_banner_shows_it_too(work: Path) -> None:
    frontend = ScriptedFrontend("proceed")
    await gate.authorize(
        gate.ProposedCommand("rm -r build"),
        gate.Policy("norris"),
        halt=frontend,
        facts=_facts(work),
    )
    touches = frontend.halted[0][1].touches
    shown = "".join(
        text
        for text, _style in norris_pieces(
            Halt(1, 16, "rm -r build", "destructive", ("rm: deletes files",), touches), width=80
        )
    )
    assert touches[0] in shown and "undoable with :undo" in shown


async def test_norris_step_in_the_agent_shell_is_snapshotted_and_undone(
    work: Path, tmp_path: Path
) -> None:
    before = listing(work)
    store = SnapshotStore(tmp_path / "snapshots")
    agent = await AgentShell.start(str(work))
    agent.undo = UndoRecorder(store)
    try:
        facts = ShellFactsSource(agent.session.state_report)  # the live shell, as in a run
        granted = await gate.authorize(
            gate.ProposedCommand("rm -r build"),
            gate.Policy("norris"),
            halt=ScriptedFrontend("proceed"),
            facts=facts,
        )
        run = await agent.run_authorized(granted, timeout_s=60)
    finally:
        await agent.close()
    assert run.exit_status == 0 and not (work / "build").exists()
    [snapshot] = agent.undo.taken
    assert snapshot.finished and snapshot.label == "rm -r build"
    store.restore(snapshot.id)
    assert listing(work) == before
