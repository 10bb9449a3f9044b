"""`[d]escribe` at the confirm prompt, against a real model server and against none: the
local documentation of the command's options goes into the model's question (its newest
user message, the prefix untouched); with no model to ask, it is the description."""

from __future__ import annotations

import shutil
import socket
import subprocess

import pytest

from aish.agent import gate
from aish.agent.chat import ChatTurn
from aish.conversation.context import CommandRun, Conversation
from aish.llm.types import ModelTarget
from tests.support import ScriptedFrontend

from ..conftest import ServeFn

TAR = "tar -xzf a.tgz -C /tmp"


@pytest.fixture(autouse=True)
def _tar_man_page() -> None:
    man = shutil.which("man")
    if not man or subprocess.run([man, "-w", "tar"], capture_output=True).returncode:
        pytest.skip("no man page for tar (make test installs man-db and manpages)")


async def _never_runs(authorization: gate.Authorization) -> CommandRun:
    raise AssertionError("nothing is approved in these tests")


def _chat(url: str, frontend: ScriptedFrontend) -> ChatTurn:
    conversation = Conversation("You are aish.")
    target = ModelTarget(name="local", endpoint=f"{url}/v1", model="testllm")
    return ChatTurn(conversation, target, frontend, _never_runs, lambda kind, payload: None)


async def test_describe_asks_the_model_with_the_man_pages_lines(serve: ServeFn) -> None:
    server = serve(
        {
            "rules": [
                {
                    "name": "describe",
                    "when": {"user": "Explain briefly"},
                    "reply": {"text": "It unpacks a.tgz into /tmp."},
                },
            ],
            "default": {"text": f"Unpack it:\nCMD: {TAR}\n"},
        }
    )
    frontend = ScriptedFrontend("describe", "no")
    chat = _chat(server.url, frontend)
    await chat.ask("unpack a.tgz into /tmp")
    assert frontend.described == [(TAR, "It unpacks a.tgz into /tmp.")]
    ask, describe = server.requests
    assert describe["rule"] == "describe"
    messages = describe["body"]["messages"]
    # The conversation's prefix as the chat sent it, then one new user message.
    assert messages[: len(ask["body"]["messages"])] == ask["body"]["messages"]
    assert messages[0]["content"] == "You are aish."
    question = messages[-1]
    assert question["role"] == "user"
    assert question["content"].startswith("Explain briefly")
    assert TAR in question["content"]
    for line in (
        "tar (from man tar): tar - an archiving utility",
        "  -x: -x, --extract, --get — Extract files from an archive.",
        "  -z: -z, --gzip, --gunzip, --ungzip — Filter the archive through gzip(1).",
        "  -f a.tgz: -f, --file=ARCHIVE — Use archive file or device ARCHIVE.",
        "  -C /tmp: -C, --directory=DIR — Change to DIR before performing any operations.",
    ):
        assert line in question["content"]


def _dead_endpoint() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"  # closed: nothing listens there


async def test_with_no_model_reachable_describe_shows_the_offline_explanation() -> None:
    frontend = ScriptedFrontend("describe", "no")
    chat = _chat(_dead_endpoint(), frontend)
    authorization = await gate.authorize(
        gate.ProposedCommand(TAR),
        gate.Policy("interactive"),
        confirmer=frontend,
        describe=chat.describe,
    )
    assert authorization.outcome == "no"
    ((command, description),) = frontend.described
    assert command == TAR
    first, *lines = description.splitlines()
    assert first.startswith("(no model to describe it: ")
    assert first.endswith("; from the local documentation)")
    assert "  verdict: unknown (nothing was run)" in lines
    assert "tar - an archiving utility  (man tar)" in lines
    for option in ("-x ", "-z ", "-f a.tgz ", "-C /tmp "):
        assert any(line.startswith(f"  {option}") for line in lines), option
