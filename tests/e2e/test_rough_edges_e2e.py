"""Rough edges a new user meets in the first hour, typed into a real aish in a real PTY against
a real model server (aish-testllm over HTTP)."""

from __future__ import annotations

import re
import socket
import sys
from pathlib import Path

from ..conftest import ServeFn
from .conftest import AishTerminal, spawn_aish


def _config(url: str) -> str:
    return (
        f'default_model = "local"\n[models.local]\nendpoint = "{url}/v1"\nmodel = "testllm"\n'
        "max_retries = 0\n"
    )


def _venv_path() -> str:
    """PATH with this interpreter's bin first, so `aish` typed in aish's shell is this aish."""
    import os

    return f"{Path(sys.executable).parent}:{os.environ['PATH']}"


# ---- :save, :reset, :load, and the turn counts ------------------------------------------------


def test_save_reset_load_gives_the_conversation_back_and_counts_agree(
    serve: ServeFn, aish_home: Path, terminals: list[AishTerminal]
) -> None:
    server = serve({"default": {"text": "Noted."}})
    aish = spawn_aish(aish_home, config=_config(server.url))
    terminals.append(aish)
    aish.wait_prompt()
    assert "Noted." in aish.run("please remember the word kumquat")
    assert "Noted." in aish.run("and the word quince too")
    assert "saved as 'snap' (2 turns)" in aish.run(":save snap")
    assert "conversation cleared" in aish.run(":reset")
    assert "(nothing asked yet)" in aish.run(":history")

    resumed = aish.run(":load snap")
    assert "continuing session 'snap': 2 turns with local" in resumed
    history = aish.run(":history")
    assert "kumquat" in history and "quince" in history

    tokens = aish.run(":tokens")
    assert re.search(r"\b2 (of \d+ )?turns\b", tokens), tokens
    sessions = aish.run(":sessions")
    current = next(line for line in sessions.splitlines() if "* #" in line)
    assert re.search(r"\b2 turns\b", current), sessions

    # The snapshot is what was saved: talk more, then load it again.
    aish.run("one more thing")
    assert "'snap': 2 turns" in aish.run(":load snap")


# ---- :models without presets, `aish init` inside aish, :config reload -------------------------


def test_aish_init_inside_a_session_then_config_reload_works(
    serve: ServeFn, aish_home: Path, terminals: list[AishTerminal]
) -> None:
    server = serve({"default": {"text": "Hello from the reloaded preset."}})
    aish = spawn_aish(aish_home, extra_env={"PATH": _venv_path()})
    terminals.append(aish)
    aish.wait_prompt()
    assert "no model presets: `aish init`" in aish.run(":models")

    shown = aish.run("aish init", timeout=60)
    assert "wrote " in shown and "`:config reload` starts using it" in shown
    reloaded = aish.run(":config reload")
    assert "config reloaded" in reloaded and "model: fast" in reloaded
    assert "fast" in aish.run(":models")

    # Point the example's preset at the test server, as a user edits the file; reload again.
    config = aish_home / ".config" / "aish" / "config.toml"
    example = config.read_text()
    assert 'endpoint = "http://127.0.0.1:8080/v1"' in example
    config.write_text(example.replace("http://127.0.0.1:8080/v1", f"{server.url}/v1"))
    assert "config reloaded" in aish.run(":config reload")
    assert "Hello from the reloaded preset." in aish.run("are you there?")
    assert len(server.requests) == 1


# ---- failures are in aish.log ----------------------------------------------------------------


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_connection_refused_and_a_cut_stream_are_written_to_the_log(
    serve: ServeFn, aish_home: Path, terminals: list[AishTerminal]
) -> None:
    server = serve({"default": {"text": "word " * 200, "cut_after": 3}})
    config = _config(f"http://127.0.0.1:{_closed_port()}") + _config(server.url).replace(
        'default_model = "local"\n[models.local]', "[models.cutter]"
    )
    aish = spawn_aish(aish_home, config=config)
    terminals.append(aish)
    aish.wait_prompt()
    aish.run("hello are you there?")
    aish.run(":model cutter")
    aish.run("tell me a long story")
    aish.type_line("exit")
    aish.child.expect("exit")
    aish.child.wait()

    log = (aish_home / ".state" / "aish" / "aish.log").read_text()
    assert "aish.chat WARNING chat request to local failed" in log
    assert "aish.chat WARNING chat request to cutter failed" in log
    assert "Traceback" in log  # what lies behind the one line the terminal showed


# ---- long listings through $PAGER; :help norris ------------------------------------------------


def test_long_listings_go_through_the_pager_short_ones_do_not(
    serve: ServeFn, aish_home: Path, terminals: list[AishTerminal], tmp_path: Path
) -> None:
    record = tmp_path / "paged"
    pager = tmp_path / "pager.sh"
    pager.write_text(f'#!/bin/sh\nprintf "LESS=%s\\n" "$LESS" >> {record}\ncat >> {record}\n')
    pager.chmod(0o755)
    server = serve({"default": {"text": "ok"}})
    aish = spawn_aish(aish_home, config=_config(server.url), extra_env={"PAGER": str(pager)})
    terminals.append(aish)
    aish.wait_prompt()

    shown = aish.run(":safety rules")  # 200-odd lines on a 40-line terminal
    paged = record.read_text()
    assert paged.startswith("LESS=FRX\n")  # git's default, as the user set none
    assert "destructive  shred: overwrites files beyond recovery" in paged
    assert "shred: overwrites" not in shown  # the pager showed it, not aish

    aish.run(":models")  # one line: printed, not paged
    assert record.read_text() == paged

    norris = aish.run(":help norris")
    assert "Norris mode: the model pursues a goal on its own" in norris
    assert "HALT" in norris and "GOAL: complete" in norris
