"""Norris's reaction to a step that waits for terminal input: the HALT "needs your input".

The agent's shell notices the wait (`aish.run.input_wait`) and asks this handler. With a
person at the terminal (a frontend that is an `InputPrompt`, in the REPL) the HALT offers
`[t]ake over` — the user's terminal is attached to the agent's shell until they give it back
(`aish.run.take_over`), then the run goes on with what happened — `[s]top` it (the model is
told why) or `[a]bort` the run. Nobody there (`aish goal`, a frontend without the question):
the run halts with the prompt text. A password asked through the askpass bridge is asked on
the frontend's own prompt, echo off; it goes to the program that asked and nowhere else.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, Protocol, runtime_checkable

from aish.agent.events import Frontend, Halt, Status
from aish.run.input_wait import InputAnswer, InputWait, Secret
from aish.run.take_over import DETACH_NAME

__all__ = ["InputHalt", "InputPrompt", "TakeOverAnswer"]

TakeOverAnswer = Literal["take_over", "stop", "abort"]


@runtime_checkable
class InputPrompt(Protocol):
    """A frontend with a person at the terminal the agent's shell can be handed to."""

    async def input_action(self, action: str, wait: InputWait) -> TakeOverAnswer:
        """`[t]ake over / [s]top / [a]bort` for the step the `Halt` banner showed."""
        ...

    async def ask_password(self, prompt: str, command: str) -> str | None:
        """A password for the step running `command` (shown with the question: the user sees
        which step asks), typed with echo off; None when the user declined (Ctrl-C)."""
        ...


@dataclass
class InputHalt:
    """The run's `InputWaitHandler` for one step; says how long the user took (that time is
    theirs, not the run's)."""

    frontend: Frontend
    step: int
    max_steps: int
    waited: Callable[[float], None]
    headless: bool

    async def needs_input(self, wait: InputWait) -> InputAnswer:
        self._banner(wait)
        prompt = self._person()
        if prompt is None:
            return "halt"
        asked = time.monotonic()
        try:
            answer = await prompt.input_action(wait.command, wait)
        finally:
            self.waited(time.monotonic() - asked)
        if answer == "take_over":
            self.frontend.render(
                Status(f"the agent's terminal is yours: {DETACH_NAME} gives it back to aish")
            )
        return answer

    async def password(self, wait: InputWait) -> Secret | InputAnswer | None:
        prompt = self._person()
        if prompt is None:
            self._banner(wait)
            return "halt"
        self.frontend.render(
            Status("a step asks for a password: typed here, never shown, logged or sent to a model")
        )
        asked = time.monotonic()
        try:
            typed = await prompt.ask_password(wait.prompt, wait.command)
        finally:
            self.waited(time.monotonic() - asked)
        return Secret(typed) if typed is not None else None

    def _person(self) -> InputPrompt | None:
        if self.headless or not isinstance(self.frontend, InputPrompt):
            return None
        return self.frontend

    def _banner(self, wait: InputWait) -> None:
        self.frontend.render(
            Halt(self.step, self.max_steps, wait.command, "input", (wait.describe(),))
        )
