"""Ghost text in-process (the REPL's terminal seam, a real bash on a PTY, a real aish-testllm on
127.0.0.1): from the history, this directory's lines first, taken with → / End / Ctrl-F; from a
local model when the history has none, cancelled by the next key; never from a cloud preset
unless the user opted in."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.input.base import PipeInput
from prompt_toolkit.output import DummyOutput

from aish.ui.repl.history import open_line_history
from aish.ui.repl.loop import Repl
from aish.ui.repl.suggest.model import ModelSuggest
from tests.conftest import ServeFn
from tests.integration.test_fix_in_process import repl_with_fast
from tests.integration.test_repl_in_process import Screen

_DEADLINE_S = 30.0
RIGHT, END, CTRL_F = "\x1b[C", "\x1b[F", "\x06"


@pytest.fixture
def keys() -> Iterator[PipeInput]:
    with create_pipe_input() as pipe:
        yield pipe


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The directory the user's shell starts in."""
    path = tmp_path / "project"
    path.mkdir()
    monkeypatch.chdir(path)
    return path


def typed_before(xdg_home: Path, lines: list[tuple[str, str]]) -> None:
    """History lines (line, directory typed in), oldest first, as an earlier session left."""
    where = [""]
    history = open_line_history(xdg_home / "state" / "aish" / "history", print, lambda: where[0])
    for line, where[0] in lines:
        history.store_string(line)


async def ghost(repl: Repl) -> str:
    """The ghost text once it is shown (after the keys typed so far)."""
    deadline = time.monotonic() + _DEADLINE_S
    while time.monotonic() < deadline:
        prompt = repl._prompt
        suggestion = prompt.default_buffer.suggestion if prompt is not None else None
        if suggestion is not None and suggestion.text:
            return suggestion.text
        await asyncio.sleep(0.02)
    raise AssertionError("no ghost text appeared")


async def _until_exit(running: asyncio.Task[int], keys: PipeInput) -> None:
    keys.send_text("exit 0\r")
    assert await asyncio.wait_for(running, _DEADLINE_S) == 0


@pytest.mark.parametrize("accept", [RIGHT, END, CTRL_F], ids=["right", "end", "ctrl-f"])
async def test_history_ghost_text_prefers_this_directory_and_is_taken_with_a_key(
    serve: ServeFn,
    xdg_home: Path,
    tmp_path: Path,
    project: Path,
    keys: PipeInput,
    accept: str,
) -> None:
    server = serve({"default": {"text": "ok"}})
    typed_before(
        xdg_home,
        [("echo ghost-here-$((1+1))", str(project)), ("echo ghost-elsewhere", "/somewhere")],
    )
    screen = Screen(tmp_path / "screen")
    repl, store = repl_with_fast(server.url, tmp_path, screen.path)
    with create_app_session(input=keys, output=DummyOutput()):
        running = asyncio.create_task(repl.run())
        try:
            await screen.shows("")  # started
            keys.send_text("echo gho")
            assert await ghost(repl) == "st-here-$((1+1))"  # not the newer line from elsewhere
            keys.send_text(accept + "\r")
            await screen.shows("ghost-here-2")
            await _until_exit(running, keys)
        finally:
            running.cancel()
            store.close()
    assert server.requests == []  # history ghost text asks no model
    # The line run is in the history with this directory.
    history = (xdg_home / "state" / "aish" / "history").read_text()
    assert f'cwd="{project}"\n+echo ghost-here-$((1+1))\n' in history.split("ghost-elsewhere")[1]


async def test_enter_runs_what_was_typed_not_the_ghost_text(
    serve: ServeFn, xdg_home: Path, tmp_path: Path, project: Path, keys: PipeInput
) -> None:
    server = serve({"default": {"text": "ok"}})
    typed_before(xdg_home, [("echo typed-$((2+2))-and-more", str(project))])
    screen = Screen(tmp_path / "screen")
    repl, store = repl_with_fast(server.url, tmp_path, screen.path)
    with create_app_session(input=keys, output=DummyOutput()):
        running = asyncio.create_task(repl.run())
        try:
            keys.send_text("echo typed-$((2+2))")
            assert await ghost(repl) == "-and-more"
            keys.send_text("\r")
            at = await screen.shows("typed-4")
            keys.send_text("echo done\r")
            await screen.shows("done", after=at)
            await _until_exit(running, keys)
        finally:
            running.cancel()
            store.close()
    assert "typed-4-and-more" not in screen.text()


def _model_config(extra: str = "") -> str:
    return f'[ui]\nsuggest = "model"\n{extra}'


async def test_a_local_model_suggests_when_the_history_has_nothing(
    serve: ServeFn, xdg_home: Path, tmp_path: Path, project: Path, keys: PipeInput
) -> None:
    scenario: dict[str, Any] = {
        "models": ["big", "small"],
        "rules": [
            {
                "name": "slow",
                "when": {"user": r"complete this line:\nprintf slo$"},
                "reply": {"text": "printf slow", "first_delay_ms": 20000},
            },
            {
                "name": "complete",
                "when": {"user": r"complete this line:\necho sugg"},
                "reply": {"text": "echo suggested-$((3*3))"},
            },
        ],
        "default": {"text": "nothing"},
    }
    server = serve(scenario)
    screen = Screen(tmp_path / "screen")
    repl, store = repl_with_fast(server.url, tmp_path, screen.path, _model_config())
    with create_app_session(input=keys, output=DummyOutput()):
        running = asyncio.create_task(repl.run())
        try:
            keys.send_text("echo sugg")
            assert await ghost(repl) == "ested-$((3*3))"
            keys.send_text(RIGHT + "\r")
            await screen.shows("suggested-9")
            # A request in flight is cancelled by the next key (the slow reply never comes).
            keys.send_text("printf slo")
            prompt = repl._prompt
            assert prompt is not None
            suggester = prompt.auto_suggest
            assert isinstance(suggester, ModelSuggest)
            deadline = time.monotonic() + _DEADLINE_S
            while suggester.asked < 2 and time.monotonic() < deadline:
                await asyncio.sleep(0.02)
            keys.send_text("w")
            while suggester.cancelled < 1 and time.monotonic() < deadline:
                await asyncio.sleep(0.02)
            assert suggester.cancelled == 1
            keys.send_text("\x15")  # Ctrl-U: the line goes
            await _until_exit(running, keys)
        finally:
            running.cancel()
            store.close()
    asked = [request["body"] for request in server.requests]
    assert {body["model"] for body in asked} == {"small"}  # the local `fast` preset
    # Never on the conversation: the suggestion requests are small ones of their own.
    assert all(len(body["messages"]) == 2 for body in asked)


async def test_a_cloud_preset_does_not_suggest_unless_opted_in(
    serve: ServeFn, xdg_home: Path, tmp_path: Path, project: Path, keys: PipeInput
) -> None:
    server = serve({"default": {"text": "ok"}})
    screen = Screen(tmp_path / "screen")
    cloud = (
        'suggest_model = "cloud"\n[models.cloud]\nendpoint = "https://example.invalid/v1"\n'
        'model = "c"\n'
    )
    repl, store = repl_with_fast(server.url, tmp_path, screen.path, _model_config(cloud))
    with create_app_session(input=keys, output=DummyOutput()):
        running = asyncio.create_task(repl.run())
        try:
            await screen.shows("no model suggestions: cloud is not on this machine")
            await _until_exit(running, keys)
        finally:
            running.cancel()
            store.close()
    prompt = repl._prompt
    assert prompt is not None and not isinstance(prompt.auto_suggest, ModelSuggest)
