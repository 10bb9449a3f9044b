"""The REPL's door keeps its connection to a model server from one question to the next (no
new TCP and TLS handshake per question); any other door gives each request a connection of
its own, closed with it. Real HTTP to aish_testllm: the server logs each request's client
port, so one connection is one port."""

from __future__ import annotations

import asyncio

from aish.agent.outbound import Outbound
from aish.agent.streaming import stream_reply
from aish.llm.types import Message, ModelTarget, Reply
from tests.conftest import ServeFn
from tests.support.frontend import ScriptedFrontend


def _target(url: str) -> ModelTarget:
    return ModelTarget("local", f"{url}/v1", "testllm")


async def _ask(target: ModelTarget, door: Outbound, question: str) -> Reply:
    reply = Reply()
    error = await stream_reply(target, [Message("user", question)], ScriptedFrontend(), reply,
                               outbound=door)  # fmt: skip
    assert error is None
    return reply


def test_a_kept_door_asks_every_question_on_one_connection(serve: ServeFn) -> None:
    server = serve({"rules": [], "default": {"text": "ok"}})
    target = _target(server.url)
    door = Outbound(environment={}, keep_connections=True)

    async def session() -> None:
        for question in ("one", "two", "three"):
            assert (await _ask(target, door, question)).text == "ok"
        client = door.client(target)
        assert client is not None and not client.is_closed
        await door.aclose()
        assert client.is_closed

    asyncio.run(session())
    ports = {request["connection"] for request in server.requests}
    assert len(server.requests) == 3 and len(ports) == 1


def test_another_door_gives_each_request_its_own_connection(serve: ServeFn) -> None:
    server = serve({"rules": [], "default": {"text": "ok"}})
    target = _target(server.url)
    door = Outbound(environment={})

    async def session() -> None:
        for question in ("one", "two"):
            await _ask(target, door, question)
        assert door.client(target) is None

    asyncio.run(session())
    assert len({request["connection"] for request in server.requests}) == 2


def test_a_kept_door_used_from_a_new_event_loop_connects_afresh(serve: ServeFn) -> None:
    """A client belongs to its loop: the second `asyncio.run` must not reuse the first's."""
    server = serve({"rules": [], "default": {"text": "ok"}})
    target = _target(server.url)
    door = Outbound(environment={}, keep_connections=True)
    asyncio.run(_ask(target, door, "one"))
    asyncio.run(_ask(target, door, "two"))  # the first loop is closed: a new client
    assert len({request["connection"] for request in server.requests}) == 2
