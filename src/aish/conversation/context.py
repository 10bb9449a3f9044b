"""The conversation as the model sees it: `[system, …history…, newest user message]`.

Servers cache the longest common prefix of consecutive requests, so the layout is chosen for
that: the system prompt is fixed when the conversation starts, history is append-only and each
message is kept byte for byte as it was sent, and everything that changes from turn to turn —
the commands run since the last reply, their output, the cwd — is rendered into the newest user
message only.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from aish.llm.types import Message


@dataclass(frozen=True)
class CommandRun:
    """A command that ran in the user's shell, as the model is told about it."""

    command: str
    exit_status: int
    cwd_before: str
    cwd_after: str
    duration_s: float
    output: str
    source: Literal["user", "model"] = "user"
    notice: str | None = None
    # False when the gate let a model-proposed command run without asking the user.
    asked: bool = True


@dataclass
class Conversation:
    system_prompt: str
    history: list[Message] = field(default_factory=list)
    pending: list[CommandRun] = field(default_factory=list)
    # aish's own notices for the model since its last reply ("[aish] action skipped by user: …").
    notes: list[str] = field(default_factory=list)
    # The cwd the model was last told; repeating an unchanged one costs tokens every turn.
    cwd_told: str = ""

    def note_command(self, run: CommandRun) -> None:
        self.pending.append(run)

    def note(self, text: str) -> None:
        """A notice from aish for the model, told with the next user message."""
        self.notes.append(text)

    def user_message(self, question: str, *, cwd: str = "") -> Message:
        """The newest user message: pending context first, then the question. The cwd is
        said when it is news: the first time, or after it changed."""
        news = cwd if cwd and cwd != self.cwd_told else ""
        return Message(
            "user", render_user_message(question, self.pending, cwd=news, notes=self.notes)
        )

    def request(self, newest: Message) -> list[Message]:
        return [Message("system", self.system_prompt), *self.history, newest]

    def commit(self, newest: Message, reply_text: str, *, cut: bool = False, cwd: str = "") -> None:
        """The exchange happened: both messages join the history exactly as sent."""
        self.history.append(newest)
        self.cwd_told = cwd or self.cwd_told
        text = reply_text + ("\n[reply cut short]" if cut else "")
        self.history.append(Message("assistant", text))
        self.pending.clear()
        self.notes.clear()

    def reset(self) -> None:
        self.history.clear()
        self.pending.clear()
        self.notes.clear()
        self.cwd_told = ""

    @classmethod
    def replay(
        cls, system_prompt: str, turns: Iterable[tuple[str, Mapping[str, Any]]]
    ) -> Conversation:
        """Rebuild a logged conversation: user messages exactly as they were sent, replies,
        and the commands run after the last reply as pending context."""
        conversation = cls(system_prompt)
        asked: Message | None = None
        partial = ""  # reply text logged while it streamed, before the reply was complete
        cwd = ""  # the cwd the logged question was asked in
        for kind, payload in turns:
            if kind == "user":
                if asked is not None and partial:  # aish died mid-reply: keep what was shown
                    conversation.commit(asked, partial, cut=True, cwd=cwd)
                asked = Message("user", str(payload.get("message", payload.get("text", ""))))
                cwd = str(payload.get("cwd", cwd))
                partial = ""
            elif kind == "assistant_delta":
                partial += str(payload.get("text", ""))
            elif kind == "assistant" and asked is not None:
                text = str(payload.get("text", ""))
                conversation.commit(asked, text, cut=bool(payload.get("cut")), cwd=cwd)
                asked, partial = None, ""
            elif kind == "command":
                conversation.note_command(_run_from(payload))
            elif kind == "note":
                conversation.note(str(payload.get("text", "")))
            elif kind == "reset":
                conversation.reset()
        if asked is not None and partial:
            conversation.commit(asked, partial, cut=True, cwd=cwd)
        return conversation

    def as_seen_by_model(self, *, cwd: str = "") -> list[Message]:
        """What the next request would hold before the question (for `:history`)."""
        messages = [Message("system", self.system_prompt), *self.history]
        if self.pending or self.notes:
            news = cwd if cwd and cwd != self.cwd_told else ""
            context = render_context(self.pending, cwd=news, notes=self.notes)
            messages.append(Message("user", context))
        return messages


def render_user_message(
    question: str, pending: list[CommandRun], *, cwd: str = "", notes: Sequence[str] = ()
) -> str:
    if not pending and not cwd and not notes:
        return question
    return f"{render_context(pending, cwd=cwd, notes=notes)}\n\n{question}"


def render_context(pending: list[CommandRun], *, cwd: str = "", notes: Sequence[str] = ()) -> str:
    """The dynamic block at the start of the newest user message."""
    lines = ["[aish context]"]
    if cwd:
        lines.append(f"cwd: {cwd}")
    if pending:
        lines.append("Commands run since your last reply:")
    for run in pending:
        lines.append("")
        by = ""
        if run.source == "model":
            by = (
                " (proposed by you, approved by the user)"
                if run.asked
                else " (proposed by you, run by aish's safety gate without asking)"
            )
        lines.append(f"$ {run.command}{by}")
        where = (
            f"in {run.cwd_before}"
            if run.cwd_before == run.cwd_after
            else f"in {run.cwd_before}, now in {run.cwd_after}"
        )
        lines.append(f"[exit status {run.exit_status}, {where}, {run.duration_s:.2f}s]")
        if run.notice:
            lines.append(f"[{run.notice}]")
        if run.output:
            lines.append(run.output.rstrip("\n"))
        else:
            lines.append("[no output]")
    if notes:
        lines.append("")
        lines.extend(notes)
    lines.append("[end of aish context]")
    return "\n".join(lines)


def _run_from(payload: Mapping[str, Any]) -> CommandRun:
    source: Literal["user", "model"] = "model" if payload.get("source") == "model" else "user"
    return CommandRun(
        command=str(payload.get("command", "")),
        exit_status=int(payload.get("exit_status", 0)),
        cwd_before=str(payload.get("cwd_before", "")),
        cwd_after=str(payload.get("cwd_after", "")),
        duration_s=float(payload.get("duration_s", 0.0)),
        output=str(payload.get("output", "")),
        source=source,
        notice=payload.get("notice"),
        asked=bool(payload.get("asked", True)),
    )


def run_payload(run: CommandRun) -> dict[str, Any]:
    """A command run as a session-log payload; `replay` reads it back."""
    return {
        "command": run.command,
        "exit_status": run.exit_status,
        "cwd_before": run.cwd_before,
        "cwd_after": run.cwd_after,
        "duration_s": run.duration_s,
        "output": run.output,
        "source": run.source,
        "notice": run.notice,
        "asked": run.asked,
    }
