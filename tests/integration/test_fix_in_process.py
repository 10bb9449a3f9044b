"""`??` and its key, in-process (the REPL's terminal seam, a real bash on a PTY, a real
aish-testllm): the fix of the failed command goes into the line editor and runs only on Enter."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

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
from tests.integration.test_repl_in_process import Screen

_DEADLINE_S = 30.0

FAILING = "sh -c 'echo broken-$((40+2)) >&2; exit 3'"
FIX_SCENARIO: dict[str, Any] = {
    "models": ["big", "small"],
    "rules": [
        {
            "name": "fix",
            "when": {"user": r"failed with exit status 3"},
            "reply": {"text": "The quoting was wrong.\nCMD: echo fixed-$((20+1))\n"},
        }
    ],
    "default": {"text": "ok"},
}


@pytest.fixture
def keys() -> Iterator[PipeInput]:
    with create_pipe_input() as pipe:
        yield pipe


def repl_with_fast(url: str, home: Path, screen: Path, extra: str = "") -> tuple[Repl, Store]:
    """A session on `local` (model `big`) with a `fast` preset (model `small`)."""
    config = home / "config.toml"
    config.write_text(
        f'default_model = "local"\n[models.local]\nendpoint = "{url}/v1"\nmodel = "big"\n'
        f'[models.fast]\nendpoint = "{url}/v1"\nmodel = "small"\n{extra}'
    )
    loaded = load_config(config_path=config, autodetect=False)
    store = Store.open(home / "aish.db")
    info = store.start_session(cwd=str(home), model="local")
    nothing_typed, _ = os.pipe()
    terminal = TerminalIO.into(screen.open("wb"), stdin_fd=nothing_typed)
    return Repl(Session(loaded, model="local", store=store, info=info), terminal), store


async def _until_exit(running: asyncio.Task[int], keys: PipeInput) -> None:
    keys.send_text("exit 0\r")
    assert await asyncio.wait_for(running, _DEADLINE_S) == 0


async def test_the_fix_goes_into_the_editor_and_runs_only_on_enter(
    serve: ServeFn, xdg_home: Path, tmp_path: Path, keys: PipeInput
) -> None:
    server = serve(FIX_SCENARIO)
    screen = Screen(tmp_path / "screen")
    repl, store = repl_with_fast(server.url, tmp_path, screen.path)
    with create_app_session(input=keys, output=DummyOutput()):
        running = asyncio.create_task(repl.run())
        try:
            keys.send_text("echo fine\r")
            at = await screen.shows("fine")
            keys.send_text(f"{FAILING}\r")
            at = await screen.shows("broken-42", after=at)
            keys.send_text("??\r")
            at = await screen.shows("in the line editor", after=at)
            # The proposal is shown with the gate's verdict, and has not run.
            shown = screen.text()
            assert "echo fixed-$((20+1))" in shown and "[safe]" in shown
            assert "fixed-21" not in shown
            assert [run.command for run in repl.conversation.pending] == []
            keys.send_text("\r")  # Enter runs what the editor holds: the proposal
            at = await screen.shows("fixed-21", after=at)
            await _until_exit(running, keys)
        finally:
            running.cancel()
            store.close()
    [request] = server.requests
    body = request["body"]
    assert body["model"] == "small"  # the `fast` preset answers `fix`
    sent = str(body["messages"])
    assert "broken-42" in sent and "exit status 3" in sent and FAILING in sent
    # It ran as the user's own line, after the fix exchange joined the conversation.
    [run] = repl.conversation.pending
    assert run.command == "echo fixed-$((20+1))" and run.source == "user"


async def test_the_fix_request_keeps_the_chats_prefix(
    serve: ServeFn, xdg_home: Path, tmp_path: Path, keys: PipeInput
) -> None:
    """Routed to `big` for a question and `small` for the fix: the system prompt is the same
    bytes, the earlier exchange is the request's prefix, the new context is in the newest
    user message."""
    server = serve(FIX_SCENARIO)
    screen = Screen(tmp_path / "screen")
    repl, store = repl_with_fast(server.url, tmp_path, screen.path)
    with create_app_session(input=keys, output=DummyOutput()):
        running = asyncio.create_task(repl.run())
        try:
            keys.send_text("how are you today\r")
            at = await screen.shows("ok")
            keys.send_text(f"{FAILING}\r")
            at = await screen.shows("broken-42", after=at)
            keys.send_text("??\r")
            at = await screen.shows("in the line editor", after=at)
            keys.send_text("\x03")  # Ctrl-C drops the proposal
            await _until_exit(running, keys)
        finally:
            running.cancel()
            store.close()
    chat, fix = (request["body"]["messages"] for request in server.requests)
    assert fix[0] == chat[0] and fix[0]["role"] == "system"
    assert fix[: len(chat)] == chat  # the whole chat request is the fix request's prefix
    assert "broken-42" in fix[-1]["content"] and "broken-42" not in str(fix[:-1])
    assert "fixed-21" not in screen.text()
    assert repl.conversation.pending == []


async def test_the_fix_key_on_an_empty_line_and_no_failure(
    serve: ServeFn, xdg_home: Path, tmp_path: Path, keys: PipeInput
) -> None:
    server = serve(FIX_SCENARIO)
    screen = Screen(tmp_path / "screen")
    repl, store = repl_with_fast(server.url, tmp_path, screen.path)
    with create_app_session(input=keys, output=DummyOutput()):
        running = asyncio.create_task(repl.run())
        try:
            keys.send_text("??\r")
            at = await screen.shows("no command failed since your last question")
            keys.send_text(f"{FAILING}\r")
            at = await screen.shows("broken-42", after=at)
            keys.send_text("\x1bf")  # Esc f on the empty line
            at = await screen.shows("in the line editor", after=at)
            keys.send_text("\r")
            at = await screen.shows("fixed-21", after=at)
            # The failure was asked about: the next `??` has nothing to fix.
            keys.send_text("??\r")
            await screen.shows("no command failed since your last question", after=at)
            await _until_exit(running, keys)
        finally:
            running.cancel()
            store.close()
    assert len(server.requests) == 1
    # The key was not typed: it is not in the history; `??` typed is.
    history = (xdg_home / "state" / "aish" / "history").read_text()
    assert history.count("+??") == 2


async def test_a_failing_fix_preset_falls_back_to_the_session_model(
    serve: ServeFn, xdg_home: Path, tmp_path: Path, keys: PipeInput
) -> None:
    """`routing.classes.fix` names a preset whose key is missing: said, and asked of `local`."""
    server = serve(FIX_SCENARIO)
    screen = Screen(tmp_path / "screen")
    extra = (
        '[models.cloud]\nendpoint = "https://example.invalid/v1"\nmodel = "c"\n'
        'api_key_env = "AISH_TEST_NO_SUCH_KEY"\n[routing]\nclasses = { fix = "cloud" }\n'
    )
    repl, store = repl_with_fast(server.url, tmp_path, screen.path, extra)
    with create_app_session(input=keys, output=DummyOutput()):
        running = asyncio.create_task(repl.run())
        try:
            keys.send_text(f"{FAILING}\r")
            at = await screen.shows("broken-42")
            keys.send_text("??\r")
            at = await screen.shows("in the line editor", after=at)
            keys.send_text("\x03")
            await _until_exit(running, keys)
        finally:
            running.cancel()
            store.close()
    assert "fix not asked of cloud" in screen.text()
    [request] = server.requests
    assert request["body"]["model"] == "big"


async def test_keys_typed_while_the_fix_is_asked_never_run_the_proposal(
    serve: ServeFn, xdg_home: Path, tmp_path: Path, keys: PipeInput
) -> None:
    """An Enter typed ahead (the user moved on while the model thought) is no answer to a line
    they have not seen: the proposal waits in the editor, and what they typed comes after."""
    rule = FIX_SCENARIO["rules"][0]
    slow = {**FIX_SCENARIO, "rules": [{**rule, "reply": {**rule["reply"], "delay_ms": 1500}}]}
    server = serve(slow)
    screen = Screen(tmp_path / "screen")
    repl, store = repl_with_fast(server.url, tmp_path, screen.path)
    with create_app_session(input=keys, output=DummyOutput()):
        running = asyncio.create_task(repl.run())
        try:
            keys.send_text(f"{FAILING}\r")
            at = await screen.shows("broken-42")
            keys.send_text("??\r")
            await screen.shows("waiting for", after=at)
            keys.send_text("echo typed-$((3*3))\r")  # while the request is in flight
            at = await screen.shows("in the line editor", after=at)
            await asyncio.sleep(1.0)  # time enough for a typed-ahead Enter to act
            assert "fixed-21" not in screen.text()
            keys.send_text("\x03")  # Ctrl-C drops the proposal; the typed line comes next
            at = await screen.shows("typed-9", after=at)
            await _until_exit(running, keys)
        finally:
            running.cancel()
            store.close()
    assert "fixed-21" not in screen.text()
    assert [run.command for run in repl.conversation.pending] == ["echo typed-$((3*3))"]
