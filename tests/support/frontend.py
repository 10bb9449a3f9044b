"""`ScriptedFrontend`: the agent's `Frontend` for tests, with a person who answers from a script.

It records every rendered event and every question it was asked, and answers the confirm prompt
and the HALT prompt from one script of answers given by the test. The two prompts have their own
words (`yes/no/edit/describe/cancel` and `proceed/skip/abort`), so each question takes the first
unused answer of its own kind: `ScriptedFrontend("no", "skip")` says no when asked to confirm and
skip at a HALT, whichever comes first. A question the script has no answer for fails the test.

What a few tests need besides is a parameter, not a subclass: the edited lines (`edits`), a
person who reviews diffs (`reviews`), one who takes time to answer (`think_s`), a view that also
forwards events somewhere (`forward`, as the REPL forwards usage to the ledger), and statuses
without the ones that depend on the machine's speed (`waiting_statuses=False`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, get_args

from aish.agent.events import AgentEvent, AssistantDelta, Status
from aish.agent.gate import Answer, EditCancelled, HaltAnswer

if TYPE_CHECKING:
    from aish.agent.diff_review import Review
    from aish.agent.diffs import ProposedDiff
    from aish.safety.verdict import Verdict

_CONFIRM_WORDS = frozenset(get_args(Answer))
_HALT_WORDS = frozenset(get_args(HaltAnswer))


class ScriptedFrontend:
    """Records what the agent shows and asks; answers from `script` (see the module)."""

    def __init__(
        self,
        *script: Answer | HaltAnswer,
        edits: tuple[str | EditCancelled | None, ...] = (),
        reviews: tuple[str, ...] | None = None,
        think_s: float = 0.0,
        forward: Callable[[AgentEvent], None] | None = None,
        waiting_statuses: bool = True,
    ) -> None:
        unknown = [word for word in script if word not in _CONFIRM_WORDS | _HALT_WORDS]
        assert not unknown, f"not an answer to any prompt: {unknown}"
        self.script: list[Answer | HaltAnswer] = list(script)
        # Edited lines, in order: None or blank abandons the edit, EditCancelled is Ctrl-C.
        self.edits = list(edits)
        self.think_s = think_s
        self.forward = forward
        self.waiting_statuses = waiting_statuses
        self.events: list[AgentEvent] = []
        self.asked: list[tuple[str, Verdict]] = []
        self.halted: list[tuple[str, Verdict]] = []
        self.edited: list[str] = []
        self.described: list[tuple[str, str]] = []
        self.reviewed: list[ProposedDiff] = []
        if reviews is not None:
            # The chat offers diffs only to a frontend that has `review_diff` (a runtime
            # protocol check), so only a person given review answers has one.
            self.reviews = list(reviews)
            self.review_diff = self._review_diff

    # ---- Frontend --------------------------------------------------------------------------

    def render(self, event: AgentEvent) -> None:
        self.events.append(event)
        if self.forward is not None:
            self.forward(event)

    # ---- gate.Confirmer --------------------------------------------------------------------

    async def confirm_command(self, command: str, verdict: Verdict) -> Answer:
        self.asked.append((command, verdict))
        answer = await self._answer(_CONFIRM_WORDS, f"confirm {command!r}")
        assert answer in _CONFIRM_WORDS  # for the type checker: _answer took one of these
        return answer  # type: ignore[return-value]

    async def edit_command(self, command: str) -> str | None:
        self.edited.append(command)
        assert self.edits, f"edit {command!r}: the script has no edited line"
        edit = self.edits.pop(0)
        if isinstance(edit, EditCancelled):
            raise edit
        return edit

    async def show_description(self, command: str, description: str) -> None:
        self.described.append((command, description))

    # ---- gate.HaltPrompt -------------------------------------------------------------------

    async def halt_action(self, action: str, verdict: Verdict) -> HaltAnswer:
        self.halted.append((action, verdict))
        answer = await self._answer(_HALT_WORDS, f"HALT at {action!r}")
        return answer  # type: ignore[return-value]

    # ---- diff review (only with `reviews`) -------------------------------------------------

    async def _review_diff(self, diff: ProposedDiff, cwd: str) -> Review:
        """As the REPL does: `apply` checks the diff applies and gives the command for it."""
        from aish.ui.diff_apply import apply_command, check_diff

        self.reviewed.append(diff)
        assert self.reviews, "a diff was offered: the script has no review answer"
        answer = self.reviews.pop(0)
        if answer == "cancel":
            return "cancel"
        if answer != "apply":
            return None
        ok, reason = await check_diff(diff, cwd)
        if not ok:
            self.render(Status(f"diff not applied: it does not apply ({reason})"))
            return None
        return apply_command(diff, cwd)

    # ---- what the tests look at ------------------------------------------------------------

    def of(self, kind: type[Any]) -> list[Any]:
        """The rendered events of one kind, in order."""
        return [e for e in self.events if isinstance(e, kind)]

    def statuses(self) -> list[str]:
        return [
            e.text
            for e in self.of(Status)
            # "waiting for …" depends on how fast the machine is, not on what is tested.
            if self.waiting_statuses or not e.text.startswith("waiting for ")
        ]

    def shown_text(self) -> str:
        """The reply as it was streamed."""
        return "".join(e.text for e in self.of(AssistantDelta))

    async def _answer(self, words: frozenset[str], question: str) -> str:
        if self.think_s:
            await asyncio.sleep(self.think_s)  # a person thinking before answering
        for index, answer in enumerate(self.script):
            if answer in words:
                return self.script.pop(index)
        raise AssertionError(f"{question}: the script has no answer for it")
