"""The permission policy in the real REPL, a real PTY, a real bash and aish-testllm: a denied
`CMD:` line is refused with no question (chat and Norris), an ask rule asks about a command
that would otherwise run unasked."""

from __future__ import annotations

from pathlib import Path

import pexpect

from ..conftest import ServeFn
from .conftest import AishTerminal, spawn_aish


def _config(url: str) -> str:
    return (
        f'default_model = "local"\n[models.local]\nendpoint = "{url}/v1"\nmodel = "testllm"\n'
        '[safety]\nconfirm_cmd = false\ndeny = ["rm"]\nask = ["ls"]\n'
        '[norris]\nsandbox = "off"\n'
    )


def test_chat_refuses_a_denied_command_and_asks_about_an_ask_rule(
    serve: ServeFn, aish_home: Path, terminals: list[AishTerminal], tmp_path: Path
) -> None:
    victim, proposed = tmp_path / "victim", tmp_path / "proposed"
    victim.mkdir()
    server = serve(
        {
            "rules": [
                {
                    "when": {"user": "clean up"},
                    "reply": {
                        "text": f"CMD: ls /\nCMD: cd /tmp && sudo rm -rf {victim}\n"
                        f"CMD: touch {proposed}\n"
                    },
                }
            ],
            "default": {"text": "ok"},
        }
    )
    aish = spawn_aish(aish_home, config=_config(server.url))
    terminals.append(aish)
    aish.wait_prompt()

    aish.type_line("clean up please")
    # `ls /` is safe and confirm_cmd is off, but the user's ask rule makes it ask.
    aish.expect(r"asks first by your rule safety\.ask `ls`")
    aish.expect(r"\[d\]escribe")
    aish.child.send("y")
    # The denied line is never offered: no prompt, a status naming the rule.
    aish.expect(r"not run: cd /tmp && sudo rm -rf \S+ \(denied by your rule safety\.deny `rm`")
    aish.expect(r"\[unknown\] touch")
    aish.expect(r"\[d\]escribe")
    aish.child.send("n")
    aish.wait_prompt()
    assert victim.is_dir() and not proposed.exists()
    aish.type_line("exit")
    aish.child.expect(pexpect.EOF, timeout=10)


def test_norris_tells_the_model_a_step_was_denied(
    serve: ServeFn, aish_home: Path, terminals: list[AishTerminal]
) -> None:
    work = aish_home / "work"
    (work / "build").mkdir(parents=True, exist_ok=True)
    server = serve(
        {
            "rules": [
                {
                    "when": {},
                    "replies": [
                        {"text": "CMD: rm -rf build"},
                        {"text": "GOAL: blocked removing files is denied"},
                    ],
                }
            ]
        }
    )
    aish = spawn_aish(aish_home, config=_config(server.url))
    terminals.append(aish)
    aish.wait_prompt()
    aish.type_line(":norris tidy the project")
    aish.expect(r"action denied by the user's policy, not run: rm -rf build")
    aish.expect("blocked")
    aish.wait_prompt()
    assert (work / "build").is_dir()
    history = aish.run(":history")
    assert "[aish] action denied by the user's policy, not run: rm -rf build" in history
    steps = [r for r in server.requests if r["path"].endswith("/chat/completions")]
    assert len(steps) == 2  # the denied step and the re-plan: no judge was asked about it
    aish.type_line(":quit")
    aish.child.expect(pexpect.EOF, timeout=10)


def test_always_allows_the_shown_prefix_for_this_session_only(
    serve: ServeFn, aish_home: Path, terminals: list[AishTerminal], tmp_path: Path
) -> None:
    first, second, third = tmp_path / "one", tmp_path / "two", tmp_path / "three"
    server = serve(
        {
            "rules": [
                {"when": {"user": "first"}, "reply": {"text": f"CMD: touch {first}\n"}},
                {"when": {"user": "second"}, "reply": {"text": f"CMD: touch {second}\n"}},
                {"when": {"user": "third"}, "reply": {"text": f"CMD: touch {third}\n"}},
            ],
            "default": {"text": "ok"},
        }
    )
    config = (
        f'default_model = "local"\n[models.local]\nendpoint = "{server.url}/v1"\n'
        'model = "testllm"\n'
    )
    aish = spawn_aish(aish_home, config=config)
    terminals.append(aish)
    aish.wait_prompt()
    aish.type_line("first please")
    # What [a]lways would store is shown before it is chosen.
    aish.expect(r"\[a\]lways: allow `touch` for this session")
    aish.child.send("a")
    aish.wait_prompt()
    assert first.exists()
    aish.type_line("second please")
    aish.wait_prompt()
    assert second.exists()  # no question this time
    aish.type_line("exit")
    aish.child.expect(pexpect.EOF, timeout=10)

    # A new session has forgotten it: the question is back.
    again = spawn_aish(aish_home, config=config)
    terminals.append(again)
    again.wait_prompt()
    again.type_line("third please")
    again.expect(r"\[a\]lways: allow `touch` for this session")
    again.child.send("n")
    again.wait_prompt()
    assert not third.exists()
    again.type_line("exit")
    again.child.expect(pexpect.EOF, timeout=10)


def test_project_always_writes_the_shown_rule_after_a_second_yes_and_it_lasts(
    serve: ServeFn, aish_home: Path, terminals: list[AishTerminal], tmp_path: Path
) -> None:
    first, second = tmp_path / "one", tmp_path / "two"
    work = aish_home / "work"
    (work / ".git").mkdir(parents=True)  # a project: the rule goes to its root
    server = serve(
        {
            "rules": [
                {"when": {"user": "first"}, "reply": {"text": f"CMD: touch {first}\n"}},
                {"when": {"user": "second"}, "reply": {"text": f"CMD: touch {second}\n"}},
            ],
            "default": {"text": "ok"},
        }
    )
    config = (
        f'default_model = "local"\n[models.local]\nendpoint = "{server.url}/v1"\n'
        'model = "testllm"\n'
    )
    aish = spawn_aish(aish_home, config=config)
    terminals.append(aish)
    aish.wait_prompt()
    aish.type_line("first please")
    aish.expect(r"\[p\]roject: always here")
    aish.child.send("p")
    # The rule and its file are shown; nothing is written before the second yes.
    shown = aish.expect(r"Write it\? \[y/N\]")
    assert f"always in this project: create {work / '.aish.toml'}:" in shown
    assert 'command = "touch"' in shown and 'decision = "allow"' in shown
    assert not (work / ".aish.toml").exists()
    aish.child.send("y")
    said = aish.wait_prompt()
    assert first.exists()
    assert "trusted as it is now (your own rule)" in said
    assert 'command = "touch"' in (work / ".aish.toml").read_text()
    aish.type_line("exit")
    aish.child.expect(pexpect.EOF, timeout=10)

    # A new session in the project: the rule applies, no question.
    again = spawn_aish(aish_home, config=config)
    terminals.append(again)
    again.wait_prompt()
    again.type_line("second please")
    again.wait_prompt()
    assert second.exists()
    again.type_line("exit")
    again.child.expect(pexpect.EOF, timeout=10)
