"""The Norris preplanner against a real model server (aish-testllm over HTTP on 127.0.0.1)."""

from __future__ import annotations

import asyncio
import socket
from typing import Any

import pytest

from aish.agent.events import AgentEvent, Status, UsageRecorded
from aish.agent.norris import DEFAULT_PREPLAN_SYSTEM, Plan, preplan
from aish.llm.types import ModelTarget

from ..conftest import ServeFn

GOAL = "find files larger than 10MB in /var/log and report sizes"
THREE = "TASK: find /var/log -size +10M\nTASK: stat each file found\nTASK: report the sizes\n"
SINGLE_MODEL = "; running single-model"


def replying(**reply: Any) -> dict[str, Any]:
    return {"rules": [], "default": reply}


def cloud(url: str, **options: Any) -> ModelTarget:
    return ModelTarget(name="cloud", endpoint=f"{url}/v1", model="testllm", **options)


class Events:
    def __init__(self) -> None:
        self.seen: list[AgentEvent] = []

    def __call__(self, event: AgentEvent) -> None:
        self.seen.append(event)

    def of(self, kind: type[Any]) -> list[Any]:
        return [event for event in self.seen if isinstance(event, kind)]


async def test_a_plan_with_its_usage(serve: ServeFn) -> None:
    server = serve(replying(text=THREE))
    events = Events()
    plan = await preplan(GOAL, cloud(server.url), tasks_max=16, on_event=events)
    assert plan == Plan(
        ("find /var/log -size +10M", "stat each file found", "report the sizes"),
        "cloud",
        "preplanned 3 tasks via cloud",
    )
    [request] = server.requests
    assert request["body"]["messages"] == [
        {"role": "system", "content": DEFAULT_PREPLAN_SYSTEM.replace("{tasks_max}", "16")},
        {"role": "user", "content": GOAL},
    ]
    assert "Output at most 16 tasks." in request["body"]["messages"][0]["content"]
    [usage] = events.seen  # nothing else: no truncation status
    assert isinstance(usage, UsageRecorded)
    assert (usage.preset, usage.category, usage.estimated) == ("cloud", "norris-preplan", False)
    assert usage.prompt_tokens > 0 and usage.completion_tokens > 0


async def test_one_task_is_singular(serve: ServeFn) -> None:
    server = serve(replying(text="TASK: df -h"))
    plan = await preplan(GOAL, cloud(server.url), tasks_max=16)  # no on_event: fine too
    assert (plan.tasks, plan.status) == (("df -h",), "preplanned 1 task via cloud")


async def test_the_anthropic_api_works_the_same(serve: ServeFn) -> None:
    server = serve(replying(text=THREE))
    events = Events()
    target = cloud(server.url, api="anthropic")
    plan = await preplan(GOAL, target, tasks_max=16, on_event=events)
    assert plan.status == "preplanned 3 tasks via cloud"
    [request] = server.requests
    assert request["api"] == "anthropic"
    assert request["body"]["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": GOAL}]}
    ]
    assert "at most 16 tasks" in str(request["body"]["system"])
    assert [usage.category for usage in events.of(UsageRecorded)] == ["norris-preplan"]


async def test_more_than_tasks_max_keeps_the_first(serve: ServeFn) -> None:
    server = serve(replying(text="".join(f"TASK: step {k}\n" for k in range(1, 8))))
    events = Events()
    plan = await preplan(GOAL, cloud(server.url), tasks_max=3, on_event=events)
    assert plan.tasks == ("step 1", "step 2", "step 3")
    assert plan.truncated_from == 7
    assert plan.status == "preplanned 3 tasks via cloud"
    assert events.of(Status) == [
        Status("preplan gave 7 tasks; keeping the first 3 (norris.tasks_max)")
    ]
    assert "at most 3 tasks" in server.requests[0]["body"]["messages"][0]["content"]


async def test_noisy_markdown(serve: ServeFn) -> None:
    text = (
        "<think>The user wants big logs. TASK: maybe rm them?</think>\n"
        "Sure! Here is the plan:\n\n## Tasks\n\n```text\n"
        "1. **TASK:** find /var/log -size +10M\n"
        "2. **TASK:** stat each file found\n```\n"
        "- `TASK: report the sizes`\n\nLet me know if you need more help."
    )
    server = serve(replying(text=text))
    plan = await preplan(GOAL, cloud(server.url), tasks_max=16)
    assert plan.tasks == ("find /var/log -size +10M", "stat each file found", "report the sizes")


async def test_reasoning_sent_apart_is_not_the_plan(serve: ServeFn) -> None:
    server = serve(replying(reasoning="TASK: rm -rf /var/log", text="TASK: du -sh /var/log"))
    plan = await preplan(GOAL, cloud(server.url), tasks_max=16)
    assert plan.tasks == ("du -sh /var/log",)


async def test_a_reply_cut_by_the_token_limit_loses_its_last_line(serve: ServeFn) -> None:
    server = serve(
        replying(text="TASK: find the files\nTASK: report the si", finish_reason="length")
    )
    plan = await preplan(GOAL, cloud(server.url), tasks_max=16)
    assert plan.tasks == ("find the files",)


@pytest.mark.parametrize("text", ["I would start by listing /var/log.", "TASKS:\n", ""])
async def test_no_task_lines(serve: ServeFn, text: str) -> None:
    server = serve(replying(text=text))
    events = Events()
    plan = await preplan(GOAL, cloud(server.url), tasks_max=16, on_event=events)
    assert plan == Plan((), "cloud", "preplan produced no TASK lines; running single-model")
    # The call was made and cost something even though it gave no plan.
    assert [usage.category for usage in events.of(UsageRecorded)] == ["norris-preplan"]


@pytest.mark.parametrize(
    ("system", "sent"),
    [
        ("Split the goal into at most {tasks_max} TASK: lines.", "at most 4 TASK: lines."),
        ("Split the goal into TASK: lines.", "Split the goal into TASK: lines."),
        (
            'Reply like {"x": 1}; {0} and {} stay; max {tasks_max}, {tasks_max}!',
            'Reply like {"x": 1}; {0} and {} stay; max 4, 4!',
        ),
    ],
)
async def test_a_users_preplan_system(serve: ServeFn, system: str, sent: str) -> None:
    server = serve(replying(text=THREE))
    plan = await preplan(GOAL, cloud(server.url), tasks_max=4, system=system)
    assert len(plan.tasks) == 3
    sent_system = server.requests[0]["body"]["messages"][0]
    assert sent_system["role"] == "system" and sent_system["content"].endswith(sent)
    assert "{tasks_max}" not in sent_system["content"]


async def test_an_unreachable_preplanner_fails_quietly() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    target = ModelTarget(
        name="cloud",
        endpoint=f"http://127.0.0.1:{port}/v1",
        model="testllm",
        max_retries=0,
        connect_timeout_s=1.0,
    )
    events = Events()
    plan = await asyncio.wait_for(preplan(GOAL, target, tasks_max=16, on_event=events), 10)
    assert plan.tasks == () and plan.preset == "cloud"
    assert plan.status.startswith("preplan failed: ") and plan.status.endswith(SINGLE_MODEL)
    assert "refused" in plan.status and "\n" not in plan.status
    assert events.seen == []


async def test_an_http_error_fails_after_one_request(serve: ServeFn) -> None:
    server = serve(replying(status=500))
    events = Events()
    plan = await preplan(GOAL, cloud(server.url, max_retries=0), tasks_max=16, on_event=events)
    assert plan.tasks == () and plan.truncated_from is None
    assert plan.status.startswith("preplan failed: cloud: HTTP 500 from ")
    assert plan.status.endswith(SINGLE_MODEL)
    assert len(server.requests) == 1  # never retried, and never asked another model
    assert events.seen == []


async def test_a_broken_stream_fails(serve: ServeFn) -> None:
    server = serve(replying(text=THREE, chunk_size=8, cut_after=2))
    plan = await preplan(GOAL, cloud(server.url, max_retries=0), tasks_max=16)
    assert plan.tasks == () and plan.status.startswith("preplan failed: ")


async def test_cancellation_propagates(serve: ServeFn) -> None:
    server = serve(replying(text=THREE, stall_after=0, stall_s=60))
    call = asyncio.create_task(preplan(GOAL, cloud(server.url), tasks_max=16))
    while not server.requests:
        await asyncio.sleep(0.01)
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
