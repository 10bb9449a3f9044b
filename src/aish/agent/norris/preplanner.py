"""The Norris preplanner: one call that turns a goal into a short list of tasks (SPEC §6).

When `norris.preplanner` names a preset, Norris asks that model once, at launch, for
`TASK: <imperative>` lines, and the executor model then works through them one by one. A
capable (often paid) model plans once; a cheap local one does the many steps.

The call never falls back to another model: a different planner would silently change the
plan. Any failure — and a reply without TASK lines — yields an empty `Plan` whose status says
why, and Norris runs single-model as before. Nothing here raises except cancellation.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from aish.agent.events import AgentEvent, Status, UsageRecorded
from aish.llm.types import Message, ModelTarget

if TYPE_CHECKING:
    from aish.agent.outbound import Outbound
    from aish.llm.model_client import ModelClient

__all__ = ["DEFAULT_PREPLAN_SYSTEM", "Plan", "extract_tasks", "preplan"]

# `{tasks_max}` is substituted literally (not with str.format), so a user's own prompt in
# `norris.preplan_system` may contain any other braces.
DEFAULT_PREPLAN_SYSTEM = (
    "You are a task decomposer. Given the user's goal, decompose it into a sequence of "
    "single-step imperative tasks. Output one task per line, exactly in this shape:\n"
    "TASK: <imperative sentence, at most 80 characters>\n"
    "Output at most {tasks_max} tasks. No prose, no numbering, no commentary outside the "
    "TASK: lines."
)

_log = logging.getLogger("aish.norris")


@dataclass(frozen=True)
class Plan:
    """What the preplanner produced. No tasks means no plan: Norris runs single-model."""

    tasks: tuple[str, ...]
    preset: str
    status: str  # one line for the user; the frontend adds the `[aish] ` prefix
    truncated_from: int | None = None  # the model's task count, when it exceeded tasks_max


async def preplan(
    goal: str,
    target: ModelTarget,
    *,
    tasks_max: int,
    system: str | None = None,
    on_event: Callable[[AgentEvent], None] | None = None,
    client: ModelClient | None = None,
    outbound: Outbound | None = None,
) -> Plan:
    """Ask `target` once for at most `tasks_max` tasks towards `goal`.

    `system` is `norris.preplan_system` (None or blank: the default prompt). `on_event`
    receives the call's `UsageRecorded` (category `norris-preplan`) and a `Status` when the
    list was cut to `tasks_max`. Never raises, except `asyncio.CancelledError`.
    """
    from aish.agent.outbound import REQUEST_FAILURES, door  # the broker stays out of start-up

    messages = [Message("system", system_prompt(system, tasks_max)), Message("user", goal)]
    try:
        reply = await door(outbound).chat(target, messages, client=client)
    # CancelledError is a BaseException, so it passes through: the user interrupted the launch.
    except REQUEST_FAILURES as error:
        _log.warning("preplan via %s failed", target.name, exc_info=True)
        return _failed(target, str(error))
    except Exception as error:  # a bug must cost the plan, not the Norris run
        _log.exception("preplan via %s failed", target.name)
        return _failed(target, f"{type(error).__name__}: {error}")
    if reply.usage is not None and on_event is not None:
        on_event(UsageRecorded.of(target, reply.usage, "norris-preplan"))
    text = reply.text
    if reply.finish is not None and reply.finish.reason == "length":
        # Cut off by the token limit: the last line may be half a task, which the executor
        # would take for a whole one.
        text = text[: text.rfind("\n") + 1]
    tasks = extract_tasks(text)
    if not tasks:
        return Plan((), target.name, "preplan produced no TASK lines; running single-model")
    truncated_from = None
    if len(tasks) > tasks_max:
        truncated_from = len(tasks)
        tasks = tasks[:tasks_max]
        if on_event is not None:
            on_event(
                Status(
                    f"preplan gave {truncated_from} tasks; keeping the first {tasks_max} "
                    "(norris.tasks_max)"
                )
            )
    count = f"{len(tasks)} task{'s' if len(tasks) != 1 else ''}"
    return Plan(tuple(tasks), target.name, f"preplanned {count} via {target.name}", truncated_from)


def system_prompt(system: str | None, tasks_max: int) -> str:
    """The system prompt sent: the user's or the default, with `{tasks_max}` filled in."""
    text = system if system is not None and system.strip() else DEFAULT_PREPLAN_SYSTEM
    return text.replace("{tasks_max}", str(tasks_max))


def _failed(target: ModelTarget, why: str) -> Plan:
    # A status is one line, whatever the error's text carried.
    why = " ".join(why.split())
    return Plan((), target.name, f"preplan failed: {why}; running single-model")


# ---- reading the reply ----------------------------------------------------------------------

# Reasoning models may think inline; a TASK line drafted while thinking is not the plan.
_THINKING = re.compile(r"<(think|thinking)>.*?</\1>", re.DOTALL | re.IGNORECASE)
_THINK_CLOSE = re.compile(r"</think(?:ing)?>", re.IGNORECASE)
_THINK_OPEN = re.compile(r"<think(?:ing)?>", re.IGNORECASE)

# Structure in front of the marker, removed one piece at a time: indentation, blockquotes,
# headings, bullets, checkboxes, numbering (`1.`, `2)`, `(3)`, `Step 4:`). A `*` is a bullet
# only before a space; otherwise it opens emphasis, which must be closed at the end.
_STRUCTURE = re.compile(
    r"\s+|>|#+|[-+•]|\*(?=\s)|\[[ xX]\]|\(\d{1,3}\)|\d{1,3}[.):]|step\s*\d{1,3}\s*[.):-]",
    re.IGNORECASE,
)
_EMPHASIS = re.compile(r"[*_`]+")
# Any case: models told to write `TASK:` often title-case it, and at the start of a line of a
# preplanner's reply `Task:` means nothing else. Losing the plan to it would cost more.
# `TASKS:` (a header) does not match: the colon must follow `TASK` at once, or the emphasis
# closing around the word (`**TASK**:`).
_MARKER = re.compile(r"task(?P<closed>[*_`]*):", re.IGNORECASE)
# A task is shown on screen: carriage returns or escape sequences could make it show
# something other than what the executor is told.
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f]")
_WRAPPERS = ("**", "__", "`", "*", "_")


def extract_tasks(text: str) -> list[str]:
    """The `TASK:` lines of a reply, in order, decoration removed, without repeats next to
    each other. Other lines (prose, code fences, headers) are ignored."""
    tasks: list[str] = []
    # Only a newline ends a line: splitlines() would also split on characters a terminal
    # shows on one line.
    for line in _without_thinking(text).split("\n"):
        task = _task_of(line.removesuffix("\r"))
        if task and not _CONTROL.search(task) and (not tasks or tasks[-1] != task):
            tasks.append(task)
    return tasks


def _without_thinking(text: str) -> str:
    text = _THINKING.sub("", text)
    # Some chat templates put the opening tag in the prompt, so only `</think>` arrives.
    text = _THINK_CLOSE.split(text)[-1]
    # A reply cut off while still thinking has no plan after the tag.
    opened = _THINK_OPEN.search(text)
    return text[: opened.start()] if opened else text


def _task_of(line: str) -> str | None:
    pos = 0
    while match := _STRUCTURE.match(line, pos):
        pos = match.end()
    emphasis = _EMPHASIS.match(line, pos)
    opener = emphasis.group() if emphasis else ""
    marker = _MARKER.match(line, pos + len(opener))
    if marker is None:
        return None
    task = line[marker.end() :].strip()
    if marker.group("closed"):
        opener = ""
    closer = opener[::-1]
    if opener and task.startswith(closer):  # `**TASK:** text`
        task = task[len(closer) :].lstrip()
    elif opener and task.endswith(closer):  # `**TASK: text**`
        task = task[: -len(closer)].rstrip()
    task = _unwrapped(task)
    return task if task.strip("*_` ") else None  # decoration alone is no task


def _unwrapped(task: str) -> str:
    """`**text**`, `` `text` `` → text. Only a whole wrapping pair goes: a glob's `*` at the
    end stays, and so do the backticks of `` `ls` then `pwd` ``."""
    changed = True
    while changed:
        changed = False
        for wrapper in _WRAPPERS:
            inner = task[len(wrapper) : -len(wrapper)]
            wrapped = task.startswith(wrapper) and task.endswith(wrapper)
            if wrapped and inner.strip(" *_`") and wrapper not in inner:
                task = inner.strip()
                changed = True
    return task
