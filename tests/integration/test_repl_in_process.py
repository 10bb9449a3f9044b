"""REPL flows run in-process through the terminal seam (`aish.ui.terminal_io`): keys from a
prompt_toolkit pipe input, everything aish writes into one file, the user's shell a real bash on
a real PTY, the model a real aish-testllm on 127.0.0.1."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.input.base import PipeInput
from prompt_toolkit.output import DummyOutput

from aish.config.loader import load_config
from aish.session import Session
from aish.store import Store
from aish.ui.repl.loop import Repl
from aish.ui.terminal_io import TerminalIO
from tests.conftest import ServeFn

# Generous: a deadline against a hang, not a speed check.
_DEADLINE_S = 30.0


class Screen:
    """What aish wrote, read back from its file."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def text(self) -> str:
        return self.path.read_bytes().decode("utf-8", "replace")

    async def shows(self, wanted: str, *, after: int = 0) -> int:
        """Wait until `wanted` appears after offset `after`; its end offset."""
        deadline = time.monotonic() + _DEADLINE_S
        while time.monotonic() < deadline:
            found = self.text().find(wanted, after)
            if found >= 0:
                return found + len(wanted)
            await asyncio.sleep(0.05)
        raise AssertionError(f"{wanted!r} never appeared; aish wrote:\n{self.text()[after:]}")


@pytest.fixture
def keys() -> Iterator[PipeInput]:
    with create_pipe_input() as pipe:
        yield pipe


def repl_for(url: str, home: Path, screen: Path, stdin_fd: int) -> tuple[Repl, Store]:
    config = home / "config.toml"
    config.write_text(f'[models.local]\nendpoint = "{url}/v1"\nmodel = "m"\n')
    loaded = load_config(config_path=config, autodetect=False)
    store = Store.open(home / "aish.db")
    info = store.start_session(cwd=str(home), model="local")
    terminal = TerminalIO.into(screen.open("wb"), stdin_fd=stdin_fd)
    return Repl(Session(loaded, model="local", store=store, info=info), terminal), store


async def test_a_typed_command_a_question_and_an_approved_proposal_in_process(
    serve: ServeFn, xdg_home: Path, tmp_path: Path, keys: PipeInput
) -> None:
    server = serve(
        {
            "rules": [
                {
                    "name": "propose",
                    "when": {"user": "what should I run"},
                    "reply": {"text": "Try this:\nCMD: echo model-$((6*7))\n"},
                }
            ],
            "default": {"text": "ok"},
        }
    )
    nothing_typed, _ = os.pipe()  # what a running command could read: nothing
    screen = Screen(tmp_path / "screen")
    repl, store = repl_for(server.url, tmp_path, screen.path, nothing_typed)
    with create_app_session(input=keys, output=DummyOutput()):
        running = asyncio.create_task(repl.run())
        try:
            keys.send_text("echo typed-$((2+3))\r")
            at = await screen.shows("typed-5")
            keys.send_text("what should I run?\r")
            at = await screen.shows("echo model-$((6*7))", after=at)
            keys.send_text("y")  # the confirm prompt's yes
            at = await screen.shows("model-42", after=at)
            keys.send_text("exit\r")
            assert await asyncio.wait_for(running, _DEADLINE_S) == 0
        finally:
            running.cancel()
            store.close()
    # The model saw the command the user typed, and the question, in one request.
    [request] = server.requests
    sent = str(request["body"]["messages"])
    assert "typed-5" in sent and "what should I run?" in sent
    # The approved proposal ran in the user's shell and was recorded for the next turn.
    [run] = repl.conversation.pending
    assert run.command == "echo model-$((6*7))" and run.exit_status == 0
