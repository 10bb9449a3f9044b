"""`:remember` and `:memory …`: the user's side of cross-session memory (§7).

The items live in the store; what the model is told of them is the conversation's
`[background]` block, which the REPL keeps current. A store that fails costs the command one
line, never aish.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from aish.ui.render.visible_text import visible

if TYPE_CHECKING:
    from aish.agent.memory_summary import Candidate
    from aish.store import MemoryItem, Store
    from aish.ui.repl.meta.context import ReplContext

MEMORY_USAGE = (
    "usage: :memory list|add <fact|pref|context> <text>|forget <id>|clear|inject|summarize"
)
CLEAR_QUESTION = "forget all {count} remembered items? [y/N] "
KEEP_QUESTION = "keep? [y/N/edit] "
YES_NO = {"y": "yes", "n": "no"}
YES_NO_EDIT = {"y": "yes", "n": "no", "e": "edit"}
_FORGET_STATUS = {
    "forgotten": "forgot #{id}",
    "unknown": "no memory item #{id}",
    "already": "#{id} was already forgotten",
}


@runtime_checkable
class KeepsMemory(Protocol):
    """A REPL with a memory store and the questions `:memory` asks."""

    def memory_store(self) -> Store: ...

    def memory_block(self, *, force: bool = False) -> str:
        """The block as it stands now; `force` tells it with the next message."""
        ...

    async def ask_key(self, question: str, keys: dict[str, str]) -> str | None:
        """One key among `keys` (Enter: "no"); None when the user cancels."""
        ...

    async def edit_line(self, text: str) -> str | None: ...

    async def summarize_memory(self) -> list[Candidate]:
        """Candidates from this session's log (the reply is logged as a summary)."""
        ...

    def session_source(self) -> str: ...


def age(ts: float, now: float | None = None) -> str:
    """`42s`, `5m`, `3h`, `12d`: how long ago, in its largest whole unit."""
    seconds = max(0, int((time.time() if now is None else now) - ts))
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"


def item_lines(items: list[MemoryItem], now: float | None = None) -> list[str]:
    if not items:
        return ["nothing remembered (:remember <text> adds a fact)"]
    width = len(str(max(item.id for item in items)))
    return [
        f"  {item.id:>{width}}  {age(item.ts, now):>4}  {item.kind:<7}  {visible(item.content)}"
        for item in items
    ]


async def remember(repl: ReplContext, args: str) -> None:
    await memory(repl, f"add fact {args}")


async def memory(repl: ReplContext, args: str) -> None:
    from aish.agent.outbound import REQUEST_FAILURES
    from aish.store import StoreError

    if not isinstance(repl, KeepsMemory):
        repl.say("memory is not available here")
        return
    verb, _, rest = args.strip().partition(" ")
    rest = rest.strip()
    try:
        await _memory(repl, repl, verb, rest)
    except (StoreError, *REQUEST_FAILURES, ValueError) as error:
        repl.say(f"memory: {error}")


async def _memory(repl: ReplContext, mem: KeepsMemory, verb: str, rest: str) -> None:
    say = repl.say
    store = mem.memory_store()
    if verb == "list" and not rest:
        say("\n".join(item_lines(store.active_memory())))
    elif verb == "add" and rest:
        kind, _, text = rest.partition(" ")
        if not text.strip():
            say(MEMORY_USAGE)
            return
        item = store.add_memory(kind, text.strip())
        say(f"remembered #{item.id} ({item.kind})")
    elif verb == "forget" and rest:
        if not rest.isdigit():
            say(f"not an item id: {visible(rest)} (:memory list shows them)")
            return
        say(_FORGET_STATUS[store.forget_memory(int(rest))].format(id=int(rest)))
    elif verb == "clear" and not rest:
        count = len(store.active_memory())
        if not count:
            say("nothing remembered")
        elif await mem.ask_key(CLEAR_QUESTION.format(count=count), YES_NO) == "yes":
            say(f"forgot {store.clear_memory()} items")
        else:
            say("nothing forgotten")
    elif verb == "inject" and not rest:
        block = mem.memory_block(force=True)
        shown = visible(block)  # the items as stored: an imported one may carry escapes
        say(shown + "\n(told with your next message)" if block else "nothing to inject")
    elif verb == "summarize" and not rest:
        await _summarize(repl, mem, store)
    else:
        say(MEMORY_USAGE)


async def _summarize(repl: ReplContext, mem: KeepsMemory, store: Store) -> None:
    say = repl.say
    candidates = await mem.summarize_memory()
    if not candidates:
        say("memory: no candidates in this session")
        return
    added = 0
    for candidate in candidates:
        say(f"[memory] candidate ({candidate.kind}): {visible(candidate.content)}")
        answer = await mem.ask_key(KEEP_QUESTION, YES_NO_EDIT)
        content: str | None = candidate.content
        if answer == "edit":
            content = await mem.edit_line(candidate.content)
        elif answer != "yes":
            content = None
        if answer is None:
            break
        if content and content.strip():
            store.add_memory(candidate.kind, content.strip(), source=mem.session_source())
            added += 1
    say(f"memory: added {added} candidate{'s' if added != 1 else ''}")
