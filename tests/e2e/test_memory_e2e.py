"""Memory as a person uses it: remember, list, forget, clear; restart aish and it is still
there, and the next question carries the `[background]` block to the model."""

from __future__ import annotations

from pathlib import Path

import pexpect

from ..conftest import ServeFn
from .conftest import AishTerminal, spawn_aish


def _config(url: str) -> str:
    return f'default_model = "local"\n[models.local]\nendpoint = "{url}/v1"\nmodel = "testllm"\n'


def _last_user(server: object) -> str:
    requests = [r for r in server.requests if r["path"].endswith("/chat/completions")]  # type: ignore[attr-defined]
    users = [m for m in requests[-1]["body"]["messages"] if m["role"] == "user"]
    return str(users[-1]["content"])


def test_remember_list_forget_and_a_restart(
    serve: ServeFn, aish_home: Path, terminals: list[AishTerminal]
) -> None:
    server = serve({"rules": [], "default": {"text": "noted"}})
    aish = spawn_aish(aish_home, config=_config(server.url))
    terminals.append(aish)
    aish.wait_prompt()

    assert "remembered #1 (fact)" in aish.run(":remember the build uses make")
    assert "remembered #2 (pref)" in aish.run(":memory add pref short answers")
    assert "remembered #3 (context)" in aish.run(":memory add context project zeta")
    shown = aish.run(":memory list")
    assert "fact     the build uses make" in shown and "pref     short answers" in shown
    assert "forgot #3" in aish.run(":memory forget 3")
    assert "#3 was already forgotten" in aish.run(":memory forget 3")
    assert "no memory item #99" in aish.run(":memory forget 99")
    assert "not an item id: x" in aish.run(":memory forget x")
    aish.type_line(":memory clear")
    aish.expect(r"forget all 2 remembered items\? \[y/N\]")
    aish.child.send("\r")  # Enter: the default, no
    assert "nothing forgotten" in aish.wait_prompt()
    aish.type_line("exit")
    aish.child.expect(pexpect.EOF, timeout=10)  # gone before the second aish opens the store

    again = spawn_aish(aish_home)
    terminals.append(again)
    again.wait_prompt()
    shown = again.run(":memory list")
    assert "the build uses make" in shown and "short answers" in shown
    assert "project zeta" not in shown
    assert "noted" in again.run("?what builds this", timeout=30)
    told = _last_user(server)
    assert told.startswith(
        '[background]\n- (fact) "the build uses make"\n'
        '- (pref) "short answers"\n[end of background]'
    )
    assert "noted" in again.run("?and again", timeout=30)
    assert "[background]" not in _last_user(server)
    shown = again.run(":memory inject")
    assert "(told with your next message)" in shown
    again.run("?once more", timeout=30)
    assert _last_user(server).startswith("[background]")


def test_summarize_asks_one_key_per_candidate_and_edit_prefills_the_line(
    serve: ServeFn, aish_home: Path, terminals: list[AishTerminal]
) -> None:
    server = serve(
        {
            "rules": [
                {
                    "when": {"user": "Extract facts"},
                    "reply": {"text": "- fact: uses make\n- pref: short answers\n- context: zeta"},
                }
            ],
            "default": {"text": "noted"},
        }
    )
    aish = spawn_aish(aish_home, config=_config(server.url))
    terminals.append(aish)
    aish.wait_prompt()
    aish.run("?we build with make", timeout=30)
    aish.type_line(":memory summarize")
    aish.expect(r"candidate \(fact\): uses make")
    aish.expect(r"keep\? \[y/N/edit\]")
    aish.child.send("y")
    aish.expect(r"candidate \(pref\): short answers")
    aish.expect(r"keep\? \[y/N/edit\]")
    aish.child.send("n")
    aish.expect(r"candidate \(context\): zeta")
    aish.expect(r"keep\? \[y/N/edit\]")
    aish.child.send("e")
    aish.expect("edit> zeta")
    aish.child.send(" project\r")
    assert "memory: added 2 candidates" in aish.wait_prompt()
    shown = aish.run(":memory list")
    assert "fact     uses make" in shown and "context  zeta project" in shown
    assert "short answers" not in shown
    aish.type_line(":memory clear")
    aish.expect(r"forget all 2 remembered items\? \[y/N\]")
    aish.child.send("y")
    assert "forgot 2 items" in aish.wait_prompt()
    assert "nothing remembered" in aish.run(":memory list")
