"""The prompt layout: stable system prompt, append-only history, dynamic context last."""

from __future__ import annotations

import json

from aish.conversation.context import CommandRun, Conversation


def _run(command: str, status: int = 0, output: str = "") -> CommandRun:
    return CommandRun(command, status, "/tmp", "/tmp", 0.01, output)


def _serialised(messages: list[object]) -> str:
    return json.dumps([m.__dict__ for m in messages], default=str)  # type: ignore[attr-defined]


def test_pending_commands_ride_in_the_newest_user_message_only() -> None:
    conversation = Conversation("SYSTEM")
    conversation.note_command(
        _run("ls /nonexistent", 2, "ls: cannot access '/nonexistent': No such file")
    )
    newest = conversation.user_message("why did that fail?", cwd="/tmp")
    request = conversation.request(newest)
    assert [m.role for m in request] == ["system", "user"]
    assert request[0].content == "SYSTEM"
    text = request[-1].content
    assert text.index("$ ls /nonexistent") < text.index("why did that fail?")
    assert "exit status 2" in text and "No such file" in text and "cwd: /tmp" in text


def test_history_is_append_only_and_byte_stable() -> None:
    conversation = Conversation("SYSTEM")
    first = conversation.user_message("one", cwd="/a")
    before = _serialised(conversation.request(first))
    conversation.commit(first, "reply one")
    conversation.note_command(_run("pwd", output="/b"))
    newest = conversation.user_message("two", cwd="/b")
    second = conversation.request(newest)
    # Everything sent before (minus the closing bracket) is a prefix of the next request.
    assert _serialised(second).startswith(before[:-1])
    assert len(conversation.pending) == 1  # until the exchange happens
    conversation.commit(newest, "reply two")
    assert conversation.pending == []


def test_cut_reply_is_kept_and_marked() -> None:
    conversation = Conversation("S")
    newest = conversation.user_message("q")
    conversation.commit(newest, "partial", cut=True)
    assert conversation.history[-1].content == "partial\n[reply cut short]"


def test_model_sees_history_and_pending_context() -> None:
    conversation = Conversation("S")
    conversation.note_command(_run("true"))
    seen = conversation.as_seen_by_model(cwd="/x")
    assert [m.role for m in seen] == ["system", "user"]
    assert "$ true" in seen[-1].content and "[no output]" in seen[-1].content


def test_replay_rebuilds_the_exact_history_and_pending_context() -> None:
    from aish.conversation.context import run_payload

    live = Conversation("S")
    live.note_command(_run("ls", 0, "a b"))
    turns: list[tuple[str, dict[str, object]]] = [("command", run_payload(live.pending[0]))]
    first = live.user_message("what is here?", cwd="/tmp")
    turns.append(("user", {"text": "what is here?", "message": first.content}))
    live.commit(first, "two files")
    turns.append(("assistant", {"text": "two files", "cut": False}))
    live.note_command(_run("false", 1))
    turns.append(("command", run_payload(live.pending[0])))
    replayed = Conversation.replay("S", turns)
    assert replayed.history == live.history
    assert replayed.pending == live.pending
    assert Conversation.replay("S", [*turns, ("reset", {})]).history == []


def test_cwd_is_said_only_when_it_is_news() -> None:
    conversation = Conversation("S")
    first = conversation.user_message("a", cwd="/x")
    assert "cwd: /x" in first.content
    conversation.commit(first, "r", cwd="/x")
    assert conversation.user_message("b", cwd="/x").content == "b"
    assert "cwd: /y" in conversation.user_message("c", cwd="/y").content


def test_replay_keeps_a_reply_that_was_cut_by_a_crash() -> None:
    turns: list[tuple[str, dict[str, object]]] = [
        ("user", {"text": "q", "message": "q"}),
        ("assistant_delta", {"text": "first half, "}),
        ("assistant_delta", {"text": "second half"}),
    ]
    replayed = Conversation.replay("S", turns)
    assert replayed.history[-1].content == "first half, second half\n[reply cut short]"
    finished = Conversation.replay("S", [*turns, ("assistant", {"text": "whole", "cut": False})])
    assert finished.history[-1].content == "whole"


def test_the_model_is_told_who_let_its_command_run() -> None:
    from dataclasses import replace

    conversation = Conversation("SYSTEM")
    asked = replace(_run("rm x"), source="model")
    unattended = replace(_run("ls"), source="model", asked=False)
    conversation.note_command(asked)
    conversation.note_command(unattended)
    conversation.note_command(_run("pwd"))
    text = conversation.user_message("next?").content
    assert "$ rm x (proposed by you, approved by the user)" in text
    assert "$ ls (proposed by you, run by aish's safety gate without asking)" in text
    assert "$ pwd\n" in text
