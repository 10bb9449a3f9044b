"""A chat turn against a real model server: its `CMD:` lines through the gate, the second
opinion (never the chat's own model), and the reply's progress (the waiting notice, the log).

The frontend is scripted (it is the UI boundary); the runner stands in for the user's shell but
redeems each authorization exactly as the REPL's executor does.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from aish.agent import gate
from aish.agent.chat import ChatTurn
from aish.agent.events import AssistantDelta, Status, UsageRecorded
from aish.agent.gate import Authorization
from aish.agent.second_opinion import SecondOpinion
from aish.config.validation import validate_config
from aish.conversation.context import CommandRun, Conversation
from aish.conversation.system_prompt import PromptFacts, render_system_prompt
from aish.llm.types import ModelTarget
from aish.safety.classifier import classify
from aish.session import preset_resolver
from aish_testllm.prefix import serialise_prompt
from tests.support import ScriptedFrontend

from ..conftest import ServeFn


class Shell:
    """The executor's side: redeem, then "run" and tell the conversation."""

    def __init__(self, conversation: Conversation) -> None:
        self.conversation = conversation
        self.ran: list[tuple[str, str]] = []
        # Exit statuses by command (0 otherwise): 130 is what bash reports after Ctrl-C.
        self.exit_statuses: dict[str, int] = {}

    async def __call__(self, authorization: Authorization) -> CommandRun:
        approved = gate.redeem(authorization)
        self.ran.append((approved.command, approved.source))
        status = self.exit_statuses.get(approved.command, 0)
        run = CommandRun(approved.command, status, "/w", "/w", 0.01, "done", approved.source)
        self.conversation.note_command(run)
        return run


def turn(
    url: str,
    frontend: ScriptedFrontend,
    *,
    confirm_cmd: bool = True,
    log: list[Any] | None = None,
    policy: gate.Policy | None = None,
    second_opinion: SecondOpinion | None = None,
    system_prompt: str = "You are aish.",
) -> tuple[ChatTurn, Shell]:
    conversation = Conversation(system_prompt)
    shell = Shell(conversation)
    target = ModelTarget(name="local", endpoint=f"{url}/v1", model="testllm")

    def record(kind: str, payload: Mapping[str, Any]) -> None:
        if log is not None:
            log.append((kind, dict(payload)))

    chat = ChatTurn(
        conversation,
        target,
        frontend,
        shell,
        record,
        policy=policy or gate.Policy("interactive", confirm_cmd=confirm_cmd),
        second_opinion=second_opinion,
    )
    return chat, shell


PROPOSALS = "Try these:\nCMD: ls -la\nCMD: touch notes.txt\nCMD: rm -rf build\n"


async def test_every_command_asks_with_its_verdict(serve: ServeFn) -> None:
    server = serve({"default": {"text": PROPOSALS}})
    frontend = ScriptedFrontend("yes", "no", "yes")
    log: list[Any] = []
    chat, shell = turn(server.url, frontend, log=log)
    outcome = await chat.ask("tidy up")
    assert [command for command, _ in frontend.asked] == [
        "ls -la",
        "touch notes.txt",
        "rm -rf build",
    ]
    assert [verdict for _, verdict in frontend.asked] == [
        classify("ls -la"),
        classify("touch notes.txt"),
        classify("rm -rf build"),
    ]
    assert shell.ran == [("ls -la", "model"), ("rm -rf build", "model")]
    assert [run.command for run in outcome.ran] == ["ls -la", "rm -rf build"]
    assert "not run: touch notes.txt" in frontend.statuses()
    decisions = [payload for kind, payload in log if kind == "decision"]
    assert decisions[1] == {
        "command": "touch notes.txt",
        "level": classify("touch notes.txt").level,
        "reasons": list(classify("touch notes.txt").reasons),
        "decision": "ask",
        "answer": "no",
        "ran": None,
    }
    assert len(server.requests) == 1  # interactive: no second opinion, whatever the verdicts


async def test_without_confirm_cmd_only_safe_commands_run_unasked(serve: ServeFn) -> None:
    server = serve({"default": {"text": PROPOSALS}})
    frontend = ScriptedFrontend("no", "yes")
    chat, shell = turn(server.url, frontend, confirm_cmd=False)
    await chat.ask("tidy up")
    assert [command for command, _ in frontend.asked] == ["touch notes.txt", "rm -rf build"]
    assert frontend.asked[1][1].level == "destructive"
    assert shell.ran == [("ls -la", "model"), ("rm -rf build", "model")]
    assert "[safe] runs without asking (safety.confirm_cmd = false)" in frontend.statuses()


async def test_ctrl_c_on_a_command_run_unasked_stops_the_rest(serve: ServeFn) -> None:
    server = serve({"default": {"text": "CMD: sleep 30\nCMD: ls\nCMD: touch notes.txt\n"}})
    frontend = ScriptedFrontend()
    chat, shell = turn(server.url, frontend, confirm_cmd=False)
    shell.exit_statuses["sleep 30"] = 130
    await chat.ask("wait a bit")
    # The user's Ctrl-C was their only say in `sleep 30`: nothing else of the reply runs.
    assert shell.ran == [("sleep 30", "model")] and frontend.asked == []
    assert frontend.statuses()[-1] == "interrupted: 2 proposed command(s) not run"


async def test_ctrl_c_on_a_command_the_user_approved_leaves_the_rest_to_them(
    serve: ServeFn,
) -> None:
    server = serve({"default": {"text": "CMD: sleep 30\nCMD: touch notes.txt\n"}})
    frontend = ScriptedFrontend("yes", "no")
    chat, shell = turn(server.url, frontend)
    shell.exit_statuses["sleep 30"] = 130
    await chat.ask("wait a bit")
    # Each of the rest still asks: the user decides again.
    assert [command for command, _ in frontend.asked] == ["sleep 30", "touch notes.txt"]
    assert shell.ran == [("sleep 30", "model")]
    assert not any(text.startswith("interrupted") for text in frontend.statuses())


async def test_edit_runs_the_users_command_and_describe_asks_again(serve: ServeFn) -> None:
    server = serve(
        {
            "rules": [
                {"when": {"user": "Explain briefly"}, "reply": {"text": "It creates a file."}},
            ],
            "default": {"text": "CMD: touch notes.txt\nCMD: rm -rf build\n"},
        }
    )
    frontend = ScriptedFrontend("describe", "edit", "cancel", edits=("touch other.txt",))
    chat, shell = turn(server.url, frontend)
    await chat.ask("make a file")
    assert [description for _, description in frontend.described] == ["It creates a file."]
    assert shell.ran == [("touch other.txt", "user")]  # the edit is the user's own command
    assert "cancelled: 1 proposed command(s) not run" in frontend.statuses()
    # The describe request is its own: it never joined the conversation.
    assert [m.role for m in chat.conversation.history] == ["user", "assistant"]


def sent(request: dict[str, Any]) -> str:
    return serialise_prompt([], None, request["body"]["messages"])


PLAN = "Here is the plan, step by step: configure, compile, link and check the result. " * 80


async def test_without_another_judge_the_chats_model_is_never_asked(serve: ServeFn) -> None:
    # No `fast` preset. The chat's model clears anything it is asked about, in any form; it
    # proposed `make`, so it must not judge it, on its prefix or in a conversation of its own.
    server = serve(
        {
            "rules": [
                {"name": "safety", "when": {"user": "aish safety check"}, "reply": {"text": "NO"}},
                {
                    "name": "judged",
                    "when": {"system": "^Detect destructive"},
                    "reply": {"text": "NO"},
                },
                {"name": "plan", "when": {"user": "how do I build"}, "reply": {"text": PLAN}},
                {"name": "build", "when": {"user": "build it"}, "reply": {"text": "CMD: make\n"}},
            ],
            "default": {"text": "Built."},
        }
    )
    frontend = ScriptedFrontend()
    settings = validate_config({})
    opinion = SecondOpinion.from_config(settings, preset_resolver(settings, {}))
    system = render_system_prompt(PromptFacts(os_name="Linux", shell="bash"))
    log: list[Any] = []
    chat, shell = turn(
        server.url,
        frontend,
        policy=gate.Policy("norris"),
        second_opinion=opinion,
        system_prompt=system,
        log=log,
    )
    await chat.ask("how do I build this?")
    await chat.ask("build it")
    await chat.ask("and now?")

    # `make` is unknown and nobody independent could clear it: not run.
    assert shell.ran == [] and "not run: make" in frontend.statuses()
    assert [r["rule"] for r in server.requests] == ["plan", "build", "default"]
    [decision] = [payload for kind, payload in log if kind == "decision"]
    assert decision["level"] == "unknown" and decision["ran"] is None
    assert decision["reasons"][-1] == (
        "no independent judge configured: no preset 'fast' for safety.llm_model"
    )
    # The chat's prefix is untouched: each request extends the one before.
    _, chat_request, next_request = server.requests
    assert next_request["prefix_reuse"]["chars"] >= len(sent(chat_request)) - 2
    usage = [e for e in frontend.events if isinstance(e, UsageRecorded)]
    assert [u.category for u in usage] == ["chat", "chat", "chat"]


async def test_a_dedicated_safety_model_gets_its_own_short_request(serve: ServeFn) -> None:
    server = serve(
        {
            "rules": [
                {
                    "name": "safety",
                    "when": {"system": "^Detect destructive"},
                    "reply": {"text": "NO"},
                },
                {"name": "plan", "when": {"user": "build it"}, "reply": {"text": "CMD: make\n"}},
            ],
        }
    )
    config = validate_config(
        {"models": {"fast": {"endpoint": f"{server.url}/v1", "model": "fast"}}}
    )
    chat, shell = turn(
        server.url,
        ScriptedFrontend(),
        policy=gate.Policy("norris"),
        second_opinion=SecondOpinion.from_config(config, preset_resolver(config, {})),
    )
    await chat.ask("build it")
    assert shell.ran == [("make", "model")]
    _, safety = server.requests
    assert safety["model"] == "fast" and len(safety["body"]["messages"]) == 2
    assert safety["body"]["messages"][1]["content"] == "make"


async def test_the_runner_refuses_what_the_gate_did_not_issue(tmp_path: Path) -> None:
    shell = Shell(Conversation("s"))
    granted = await gate.authorize(
        gate.ProposedCommand("ls"), gate.Policy("interactive", confirm_cmd=False)
    )
    assert granted.run
    import copy

    with pytest.raises(gate.Unauthorized):
        await shell(copy.copy(granted))
    await shell(granted)
    with pytest.raises(gate.Unauthorized):
        await shell(granted)  # spent
    assert shell.ran == [("ls", "model")]


# ---- the reply as it streams ---------------------------------------------------------------


async def test_a_model_slow_to_start_says_what_aish_waits_for(serve: ServeFn) -> None:
    serve_slowly = {"text": "Here.\nCMD: ls\n", "first_delay_ms": 1500}
    server = serve({"default": serve_slowly})

    # A person thinking: longer than the waiting threshold.
    frontend = ScriptedFrontend("no", think_s=0.8)
    chat, _ = turn(server.url, frontend)
    await chat.ask("list")
    texts = [e.text if isinstance(e, Status) else type(e).__name__ for e in frontend.events]
    first_text = texts.index("AssistantDelta")
    assert "waiting for local…" in texts[:first_text]
    # Said once, before the reply; never again once it streams or while the user decides.
    assert texts.count("waiting for local…") == 1


async def test_a_long_reply_is_logged_while_it_streams(serve: ServeFn) -> None:
    text = "".join(f"line {n} of a long answer\n" for n in range(60))
    server = serve({"default": {"text": text, "chunk_size": 40, "delay_ms": 60}})
    frontend = ScriptedFrontend()
    log: list[tuple[str, dict[str, Any], int, float]] = []
    chat, _ = turn(server.url, frontend)

    def record(kind: str, payload: Mapping[str, Any]) -> None:
        shown = sum(isinstance(e, AssistantDelta) for e in frontend.events)
        log.append((kind, dict(payload), shown, time.monotonic()))

    chat.log = record
    await chat.ask("tell me everything")
    kinds = [kind for kind, *_ in log]
    assert kinds[0] == "user" and kinds[-1] == "assistant" and "assistant_delta" in kinds
    deltas = [entry for entry in log if entry[0] == "assistant_delta"]
    total = sum(isinstance(e, AssistantDelta) for e in frontend.events)
    # Logged before the reply ended, never more often than once a second …
    assert all(shown < total for _, _, shown, _ in deltas)
    assert all(b[3] - a[3] >= 0.99 for a, b in itertools.pairwise(deltas))
    # … and what was logged is what had been shown: a crash mid-reply would keep it.
    logged = "".join(payload["text"] for _, payload, _, _ in deltas)
    assert logged and text.startswith(logged)
    crashed = [(kind, payload) for kind, payload, _, _ in log if kind != "assistant"]
    replayed = Conversation.replay("You are aish.", crashed)
    assert replayed.history[-1].content == logged + "\n[reply cut short]"
