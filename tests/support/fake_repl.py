"""`FakeRepl`: just enough of a REPL (`ReplContext`) to run meta commands in-process.

What the commands say is collected in `said`; nothing else happens. The REPL's optional
capabilities (safety rules, trust, memory …) are runtime protocol checks on the methods it has,
so a test gives a capability by subclassing and adding those methods, never here: a capability
every fake had would change what the commands under test do.
"""

from __future__ import annotations

from pathlib import Path

from aish.conversation.context import Conversation


class FakeRepl:
    """A REPL with one model named `model`, whose shell sits in `cwd`."""

    def __init__(self, *, model: str = "m", cwd: str | Path = "/") -> None:
        self.conversation = Conversation("system")
        self.said: list[str] = []
        self.model = model
        self.cwd = cwd

    @property
    def model_name(self) -> str:
        return self.model

    def model_names(self) -> list[str]:
        return [self.model]

    def model_line(self, name: str) -> str:
        return name

    def switch_model(self, name: str) -> str | None:
        return None

    def reset_conversation(self) -> None:
        pass

    def save_session(self, name: str) -> str:
        return ""

    def load_session(self, name: str) -> str:
        return ""

    def session_lines(self) -> list[str]:
        return []

    def explain_route(self, text: str) -> str:
        return ""

    def shell_cwd(self) -> str:
        return str(self.cwd)

    def say(self, text: str) -> None:
        self.said.append(text)

    def quit(self) -> None:
        pass
