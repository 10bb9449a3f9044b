"""Secrets never reach a cloud model, end to end (SPEC §11).

Secrets are planted in the environment, in a command's output, in a tool result and in typed
text; chat turns, a Norris run with a preplanner and a second opinion, a summary and a memory
summarize go to "cloud" presets (`scrub_secrets`) on a real aish-testllm. The server's request
log must hold none of the values, while a reply that uses a placeholder runs with the real value
in a real shell, and a placeholder aish never gave out halts.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from aish.agent import gate, outbound
from aish.agent.chat import ChatTurn
from aish.agent.context_budget import ContextBudget
from aish.agent.memory_summary import summarize
from aish.agent.norris import NorrisBounds, NorrisRun
from aish.agent.outbound import Outbound
from aish.agent.second_opinion import SecondOpinion
from aish.conversation.context import CommandRun, Conversation
from aish.llm.types import ModelTarget
from aish.mcp import McpServers
from aish.ui.agent_shell import AgentShell
from aish.ui.tool_runner import ToolRunner
from tests.support import ScriptedFrontend

from ..conftest import ServeFn
from .tool_loop_support import mcp_servers, notes_server

GITHUB_TOKEN = "ghp_" + "aB3dE5fG7hJ9kL1mN2pQ4rS6tU8vW0xY2zA4cF"[:36]
AWS_KEY = "AKIA" + "QX7RZ2M4TB6NW8KP"
DB_PASSWORD = "Zq8vR2pL9xKw3Tn7"
OPENAI_KEY = "sk-proj-" + "T3stK3yV4lu3sF0rScrubb1ngAbCdEfGhIjKlMnOpQrStUvWx"
# No provider's shape: only known because of the variable's name in the environment.
SHAPELESS = "Qw7eRt9yUi2oPzX"
SECRETS = (GITHUB_TOKEN, AWS_KEY, DB_PASSWORD, OPENAI_KEY, SHAPELESS)
ENVIRONMENT = {
    "GITHUB_TOKEN": GITHUB_TOKEN,
    "MY_API_KEY": SHAPELESS,
    "HOME": "/home/u",
    "TOKEN_TTL_SECONDS": "3600",
}
SYSTEM = "You are aish."


@pytest.fixture
def session(monkeypatch: pytest.MonkeyPatch) -> Outbound:
    """A fresh session vault that knows the planted environment."""
    box = Outbound(environment=ENVIRONMENT)
    monkeypatch.setattr(outbound, "SESSION", box)
    return box


def cloud(url: str, model: str = "cloud") -> ModelTarget:
    return ModelTarget(model, f"{url}/v1", model, max_retries=0, scrub_secrets=True)


def leaks(server: Any) -> list[str]:
    """The planted values found anywhere in what the server received."""
    sent = json.dumps([r.get("body") for r in server.requests], ensure_ascii=False)
    return [secret for secret in SECRETS if secret in sent]


@pytest.fixture
async def shell(tmp_path: Path) -> AsyncIterator[AgentShell]:
    agent = await AgentShell.start(str(tmp_path))
    try:
        yield agent
    finally:
        await agent.close()


async def test_a_chat_turn_sends_placeholders_and_runs_the_real_value(
    serve: ServeFn, session: Outbound, shell: AgentShell
) -> None:
    placeholder = session.scrub(GITHUB_TOKEN)
    assert placeholder.startswith("AISH_SECRET_") and GITHUB_TOKEN not in placeholder
    server = serve(
        {
            "models": ["cloud", "summ"],
            "rules": [
                {"when": {"model": "^summ$"}, "reply": {"text": "The user set up a deploy."}},
                {"when": {"user": "and now"}, "reply": {"text": "Done."}},
            ],
            "default": {"text": f'Let me check it.\nCMD: echo "token=${{X:-{placeholder}}}"'},
        }
    )
    conversation = Conversation(SYSTEM)
    conversation.note_command(
        CommandRun(
            "cat .env; ./status",
            0,
            "/w",
            "/w",
            0.1,
            f"DB_PASSWORD={DB_PASSWORD}\nDEBUG=1\nconnected with {SHAPELESS}, ttl 3600\n",
        )
    )
    frontend = ScriptedFrontend("yes")
    log: list[tuple[str, Mapping[str, Any]]] = []
    budget = ContextBudget(
        max_turns=1,
        token_budget=100_000,
        summarize_on_evict=True,
        summarizer=lambda active: cloud(server.url, "summ"),
    )

    async def run(authorization: gate.Authorization) -> CommandRun:
        result = await shell.run_authorized(authorization, 30)
        conversation.note_command(result)  # as the REPL does: the model hears of it next
        return result

    turn = ChatTurn(
        conversation,
        cloud(server.url),
        frontend,
        run,
        lambda k, p: log.append((k, p)),
        budget=budget,
    )
    outcome = await turn.ask(f"my AWS key is {AWS_KEY}, is the deploy token right?")
    # The confirm prompt showed the placeholder form; the shell ran the real value.
    assert [command for command, _ in frontend.asked] == [f'echo "token=${{X:-{placeholder}}}"']
    [ran] = outcome.ran
    assert f"token={GITHUB_TOKEN}" in ran.output
    assert GITHUB_TOKEN not in ran.command and placeholder in ran.command
    assert all(GITHUB_TOKEN not in json.dumps(payload) for kind, payload in log if kind != "user")

    # The next turn tells the output (with the real value) and evicts the first exchange into
    # a summary: neither request carries a secret.
    turn = ChatTurn(
        conversation,
        cloud(server.url),
        ScriptedFrontend(),
        run,
        lambda k, p: log.append((k, p)),
        budget=budget,
    )
    await turn.ask("and now?")
    models = [r["body"]["model"] for r in server.requests if r.get("body")]
    assert models == ["cloud", "summ", "cloud"]
    assert leaks(server) == []
    last = json.dumps(server.requests[-1]["body"])
    assert placeholder in last  # the model still gets to refer to the value


async def test_norris_with_a_preplanner_and_a_second_opinion_leaks_nothing(
    serve: ServeFn, session: Outbound, shell: AgentShell, tmp_path: Path
) -> None:
    placeholder = session.scrub(GITHUB_TOKEN)
    invented = placeholder.rsplit("_", 1)[0] + "_97"
    (tmp_path / "check.sh").write_text('#!/bin/sh\necho "checked $1"\n')
    (tmp_path / "check.sh").chmod(0o755)
    server = serve(
        {
            "models": ["planner", "exec", "safety"],
            "rules": [
                {
                    "when": {"model": "^planner$"},
                    "reply": {"text": "TASK: show the token\nTASK: check it\nTASK: finish"},
                },
                {"when": {"model": "^safety$"}, "reply": {"text": "NO"}},
                {
                    "when": {"model": "^exec$"},
                    "replies": [
                        {"text": f"CMD: echo {placeholder}"},
                        {"text": f"CMD: ./check.sh {placeholder}"},
                        {"text": f"CMD: echo {invented}"},
                        {"text": "GOAL: complete"},
                    ],
                },
            ],
        }
    )
    conversation = Conversation(SYSTEM)
    frontend = ScriptedFrontend("skip")
    opinion = SecondOpinion(lambda name: cloud(server.url, "safety"), preset="safety")
    norris = NorrisRun(
        f"deploy with the key {AWS_KEY}",
        conversation,
        cloud(server.url, "exec"),
        frontend,
        shell.run_authorized,
        lambda: shell.cwd,
        lambda kind, payload: None,
        gate.Policy("norris"),
        NorrisBounds(max_steps=8),
        second_opinion=opinion,
        planner=cloud(server.url, "planner"),
        shell_facts=shell.facts,
    )
    result = await norris.run()
    assert result.status in ("done", "tasks_complete"), result
    models = {r["body"]["model"] for r in server.requests if r.get("body")}
    assert models == {"planner", "exec", "safety"}
    assert leaks(server) == []
    # The placeholder ran with the real value, in a real shell.
    told = "\n".join(m.content for m in conversation.history if m.role == "user")
    assert GITHUB_TOKEN in told and f"checked {GITHUB_TOKEN}" in told
    # The invented one never ran: it halted, with the reason.
    [(action, verdict)] = frontend.halted
    assert action == f"echo {invented}"
    assert verdict.level == "destructive" and "unknown secret reference" in verdict.reasons[0]


async def test_a_tool_result_is_scrubbed_before_the_model_reads_it(
    serve: ServeFn, session: Outbound, tmp_path: Path
) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "keys").write_text(f"openai: {OPENAI_KEY}\n")
    server = serve(
        {
            "rules": [
                {
                    "name": "answer",
                    "when": {"user": "AISH_SECRET_"},
                    "reply": {"text": "Found it."},
                },
                {
                    "name": "call",
                    "when": {"tools": True},
                    "reply": {
                        "tool_calls": [{"name": "notes__read_note", "arguments": {"name": "keys"}}]
                    },
                    "times": 1,
                },
            ]
        }
    )
    tables = {"notes": notes_server(notes, trusted=True)}
    async with mcp_servers(tables, tmp_path / "logs") as servers:
        turn = _tool_turn(server.url, servers)
        outcome = await turn.ask("what is in my keys note?")
    assert outcome.error is None and outcome.reply.text == "Found it."
    assert leaks(server) == []
    assert "AISH_SECRET_" in json.dumps(server.requests[-1]["body"])


def _tool_turn(url: str, servers: McpServers) -> ChatTurn:
    async def no_shell(authorization: gate.Authorization) -> CommandRun:
        raise AssertionError("nothing runs in the shell here")

    return ChatTurn(
        Conversation(SYSTEM),
        cloud(url),
        ScriptedFrontend("yes"),
        no_shell,
        lambda kind, payload: None,
        tools=servers,
        run_tool=ToolRunner(servers).run_authorized,
    )


async def test_a_tool_call_runs_with_the_value_its_placeholder_stands_for(
    serve: ServeFn, session: Outbound, tmp_path: Path
) -> None:
    placeholder = session.scrub(GITHUB_TOKEN)
    notes = tmp_path / "notes"
    notes.mkdir()
    arguments = {"name": "saved", "text": f"token: {placeholder}"}
    call = {"name": "notes__write_note", "arguments": arguments}
    server = serve(
        {
            "rules": [
                {"name": "answer", "when": {"user": "wrote"}, "reply": {"text": "Saved."}},
                {
                    "name": "call",
                    "when": {"tools": True},
                    "reply": {"tool_calls": [call]},
                    "times": 1,
                },
            ]
        }
    )
    tables = {"notes": notes_server(notes, trusted=True)}
    async with mcp_servers(tables, tmp_path / "logs") as servers:
        await _tool_turn(server.url, servers).ask("save my token in a note")
    assert (notes / "saved").read_text() == f"token: {GITHUB_TOKEN}"
    assert leaks(server) == []


async def test_memory_summarize_sends_and_proposes_no_secret(
    serve: ServeFn, session: Outbound
) -> None:
    server = serve({"default": {"text": f"- fact: the deploy key is {AWS_KEY}"}})
    turns = [
        ("user", {"text": f"deploy with {AWS_KEY}"}),
        ("command", {"command": "env", "output": f"GITHUB_TOKEN={GITHUB_TOKEN}"}),
    ]
    _, candidates = await summarize(cloud(server.url), turns, lambda event: None)
    assert leaks(server) == []
    [candidate] = candidates
    assert AWS_KEY not in candidate.content and "AISH_SECRET_" in candidate.content


async def test_a_local_model_is_sent_the_text_as_it_is(serve: ServeFn, session: Outbound) -> None:
    server = serve({"default": {"text": "ok"}})
    local = ModelTarget("local", f"{server.url}/v1", "testllm", max_retries=0)
    turn = ChatTurn(
        Conversation(SYSTEM), local, ScriptedFrontend(), _never, lambda kind, payload: None
    )
    await turn.ask(f"my key is {AWS_KEY}")
    assert leaks(server) == [AWS_KEY]


async def _never(authorization: gate.Authorization) -> CommandRun:
    raise AssertionError("nothing runs here")
