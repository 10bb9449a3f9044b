"""A diff in a reply, in a chat turn: offered, checked, authorized by the gate as a write and
applied in a real shell — or refused, and the file is left alone.

Real parts: aish-testllm over HTTP, a real git repository, `git apply --check` and the command
the gate authorized run by a real bash (the agent shell). The frontend is scripted at the UI
boundary but reviews with the real `check_diff`/`apply_command`.
"""

from __future__ import annotations

import subprocess
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from aish.agent import gate
from aish.agent.chat import ChatTurn
from aish.conversation.context import CommandRun, Conversation
from aish.llm.types import ModelTarget
from aish.ui.agent_shell import AgentShell
from tests.support import ScriptedFrontend

from ..conftest import ServeFn

DIFF = """Here is the fix:
```diff
--- a/hello.txt
+++ b/hello.txt
@@ -1,2 +1,2 @@
 hello
-wrold
+world
```
"""


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    path = tmp_path / "repo"
    path.mkdir()
    (path / "hello.txt").write_text("hello\nwrold\n")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@x", "-C", str(path)]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "start"], check=True)
    return path


@pytest.fixture
async def shell(repo: Path) -> AsyncIterator[AgentShell]:
    agent = await AgentShell.start(str(repo))
    try:
        yield agent
    finally:
        await agent.close()


def _turn(url: str, frontend: ScriptedFrontend, shell: AgentShell) -> ChatTurn:
    async def run(authorization: gate.Authorization) -> CommandRun:
        return await shell.run_authorized(authorization, 30)

    target = ModelTarget("local", f"{url}/v1", "testllm", max_retries=0)
    return ChatTurn(Conversation("s"), target, frontend, run, lambda kind, payload: None)


async def test_an_applied_diff_changes_the_file_through_the_gate(
    serve: ServeFn, repo: Path, shell: AgentShell
) -> None:
    server = serve({"default": {"text": DIFF}})
    frontend = ScriptedFrontend(reviews=("apply",))
    outcome = await _turn(server.url, frontend, shell).ask("fix the typo", cwd=str(repo))
    assert outcome.error is None
    assert (repo / "hello.txt").read_text() == "hello\nworld\n"
    assert frontend.asked == []  # [a]pply was the answer to the gate's question (a write)


async def test_a_declined_diff_leaves_the_file_alone(
    serve: ServeFn, repo: Path, shell: AgentShell
) -> None:
    server = serve({"default": {"text": DIFF}})
    frontend = ScriptedFrontend(reviews=("no",))
    await _turn(server.url, frontend, shell).ask("fix the typo", cwd=str(repo))
    assert frontend.reviews == []  # it was offered, and declined
    assert (repo / "hello.txt").read_text() == "hello\nwrold\n"


async def test_a_diff_applies_at_the_project_root_from_a_subdirectory(
    serve: ServeFn, repo: Path
) -> None:
    (repo / "sub").mkdir()
    (repo / "sub" / "hello.txt").write_text("hello\nwrold\n")  # a decoy of the same name
    server = serve({"default": {"text": DIFF}})
    agent = await AgentShell.start(str(repo / "sub"))
    try:
        await _turn(server.url, ScriptedFrontend(reviews=("apply",)), agent).ask(
            "fix it", cwd=str(repo / "sub")
        )
    finally:
        await agent.close()
    assert (repo / "hello.txt").read_text() == "hello\nworld\n"
    assert (repo / "sub" / "hello.txt").read_text() == "hello\nwrold\n"


async def test_cancelling_at_a_diff_stops_the_replys_commands_too(
    serve: ServeFn, repo: Path, shell: AgentShell
) -> None:
    server = serve({"default": {"text": DIFF + "Then check:\nCMD: cat hello.txt\n"}})
    frontend = ScriptedFrontend(reviews=("cancel",))
    outcome = await _turn(server.url, frontend, shell).ask("fix it", cwd=str(repo))
    assert outcome.cancelled and outcome.ran == []
    assert "cancelled: 1 proposed command(s) not run" in frontend.statuses()


async def test_a_diff_that_does_not_apply_is_refused_after_its_check(
    serve: ServeFn, repo: Path, shell: AgentShell
) -> None:
    (repo / "hello.txt").write_text("something else\n")
    server = serve({"default": {"text": DIFF}})
    frontend = ScriptedFrontend(reviews=("apply",))
    await _turn(server.url, frontend, shell).ask("fix the typo", cwd=str(repo))
    assert (repo / "hello.txt").read_text() == "something else\n"
    assert any(s.startswith("diff not applied: it does not apply") for s in frontend.statuses())


async def test_a_diff_outside_the_project_is_never_offered(
    serve: ServeFn, repo: Path, shell: AgentShell
) -> None:
    outside = DIFF.replace("a/hello.txt", "a/../escape.txt").replace(
        "b/hello.txt", "b/../escape.txt"
    )
    server = serve({"default": {"text": outside}})
    frontend = ScriptedFrontend(reviews=())  # a reviewer, but no review may be asked
    await _turn(server.url, frontend, shell).ask("fix it", cwd=str(repo))
    assert any(s.startswith("diff not offered: it touches") for s in frontend.statuses())
