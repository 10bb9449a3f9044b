"""The REPL's executor for model-proposed commands refuses anything the gate did not stamp —
before the shell is even asked for."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from pathlib import Path

import pytest

from aish.agent import gate
from aish.config.loader import load_config
from aish.session import Session
from aish.store import Store
from aish.ui.repl.loop import Repl
from tests.support import ScriptedFrontend


@pytest.fixture
def repl(xdg_home: Path, tmp_path: Path) -> Iterator[Repl]:
    config = tmp_path / "config.toml"
    config.write_text('[models.local]\nendpoint = "http://127.0.0.1:9/v1"\nmodel = "m"\n')
    loaded = load_config(config_path=config, autodetect=False)
    store = Store.open(tmp_path / "aish.db")
    session = store.start_session(cwd=str(tmp_path), model="local")
    yield Repl(Session(loaded, model="local", store=store, info=session))
    store.close()


async def test_the_executor_refuses_unstamped_actions(repl: Repl) -> None:
    declined = await gate.authorize(gate.ProposedCommand("rm -rf /"), gate.Policy("interactive"))
    granted = await gate.authorize(
        gate.ProposedCommand("rm -rf /"),
        gate.Policy("interactive"),
        confirmer=ScriptedFrontend("yes"),
    )
    assert granted.run and not declined.run
    for forged in (copy.copy(granted), declined, "rm -rf /", gate.ProposedCommand("rm -rf /")):
        with pytest.raises(gate.Unauthorized):
            await repl.run_authorized(forged)  # type: ignore[arg-type]
    # Refused before the shell was asked for: none was ever started.
    assert not repl._commands.starting


async def test_the_executor_refuses_tool_calls(repl: Repl) -> None:
    call = gate.ProposedToolCall("time", "get_time", {}, {"readOnlyHint": True}, True)
    granted = await gate.authorize(call, gate.Policy("headless", yes_safe=True))
    assert granted.run
    with pytest.raises(gate.Unauthorized, match="not a shell command"):
        await repl.run_authorized(granted)
    assert not repl._commands.starting
