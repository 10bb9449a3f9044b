"""The conversation as the model sees it: `[system, …history…, newest user message]`.

Servers cache the longest common prefix of consecutive requests, so the layout is chosen for
that: the system prompt is fixed when the conversation starts, history is append-only and each
message is kept byte for byte as it was sent, and everything that changes from turn to turn —
the commands run since the last reply, their output, the cwd — is rendered into the newest user
message only.

A reply that calls tools opens a *tool round*: the assistant message keeps its `tool_calls`,
and each call is answered by one `tool` message right after it (a dangling call is an error
for every API). While a round is open the model is asked again on `[system, …history…]`
ending in those answers (`follow_up_request`), until it answers in text.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from aish.conversation.background import EMPTY_BACKGROUND, leading_block
from aish.conversation.summary import render_summary_block
from aish.llm.types import Message, ToolCall


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


# A call's answer in a side request made while its round is open (see `Conversation.request`).
CALL_WAITS = "[aish] not run yet: this call waits for approval"
# A call of a round aish stopped in the middle of (it died, or the run ended): never run.
CALL_STOPPED = "[aish] not run: aish stopped before this call ran"


@dataclass
class Conversation:
    system_prompt: str
    history: list[Message] = field(default_factory=list)
    pending: list[CommandRun] = field(default_factory=list)
    # aish's own notices for the model since its last reply ("[aish] action skipped by user: …").
    notes: list[str] = field(default_factory=list)
    # The cwd the model was last told; repeating an unchanged one costs tokens every turn.
    cwd_told: str = ""
    # The `[background]` block of remembered items as it stands (the REPL keeps it current),
    # and the one the model was last told: it is told again only when they differ.
    background: str = ""
    background_told: str = ""
    # `:memory inject`: tell the block with the next message even when it is unchanged.
    background_forced: bool = False
    # The rolling summary of evicted exchanges, and the one a message still in the history
    # told: it is told (again) whenever they differ — after each eviction that dropped it.
    summary: str = ""
    summary_told: str = ""

    def note_command(self, run: CommandRun) -> None:
        self.pending.append(run)

    def note(self, text: str) -> None:
        """A notice from aish for the model, told with the next user message."""
        self.notes.append(text)

    def user_message(self, question: str, *, cwd: str = "", background: bool = True) -> Message:
        """The newest user message: the background block when it is news, pending context,
        then the question. The cwd is said when it is news: the first time, or after it
        changed. Norris steps pass `background=False`: the block is never told there."""
        news = cwd if cwd and cwd != self.cwd_told else ""
        text = render_user_message(question, self.pending, cwd=news, notes=self.notes)
        blocks = [self.background_due() if background else "", self.summary_due()]
        return Message("user", "\n\n".join([*(b for b in blocks if b), text]))

    def background_due(self) -> str:
        """The background block the next user message would start with ("" for none)."""
        if self.background_forced and self.background:
            return self.background
        if self.background == self.background_told:
            return ""
        return self.background or EMPTY_BACKGROUND

    def summary_due(self) -> str:
        """The summary block the next user message carries ("" when the history has it)."""
        if not self.summary or self.summary == self.summary_told:
            return ""
        return render_summary_block(self.summary)

    def exchange_count(self) -> int:
        """Exchanges in the history: a user message and what answers it (replies, tool
        calls and their results)."""
        return sum(1 for message in self.history if message.role == "user")

    def evict(self, count: int, summary: str | None = None) -> list[Message]:
        """Drop the `count` oldest exchanges whole (a tool call never loses its result) and
        return their messages. `summary`, when given, replaces the rolling summary. Whatever
        the dropped messages told — the summary, the background block, the cwd — is told
        again with the next message if the history no longer has it."""
        starts = [i for i, message in enumerate(self.history) if message.role == "user"]
        if count <= 0 or not starts:
            return []
        end = starts[count] if count < len(starts) else len(self.history)
        dropped = self.history[:end]
        del self.history[:end]
        if summary is not None:
            self.summary = summary
        self._recount_told()
        return dropped

    def _recount_told(self) -> None:
        users = [message.content for message in self.history if message.role == "user"]
        blocks = [block for text in users if (block := leading_block(text)) is not None]
        self.background_told = "" if not blocks or blocks[-1] == EMPTY_BACKGROUND else blocks[-1]
        told = self.summary and any(render_summary_block(self.summary) in text for text in users)
        self.summary_told = self.summary if told else ""
        self.cwd_told = ""

    def request(self, newest: Message) -> list[Message]:
        """The request for `newest`. Asked while a tool round is open (a side question such
        as the description of a call the user is asked about), the calls not answered yet are
        answered for this request only, so it is one the API accepts; the history is not
        touched."""
        waiting = [
            Message("tool", CALL_WAITS, tool_call_id=call.id)
            for call in self.unanswered_tool_calls()
        ]
        return [Message("system", self.system_prompt), *self.history, *waiting, newest]

    def follow_up_request(self) -> list[Message]:
        """The request for the model's next reply once every call of its last one is answered:
        the history as it stands, ending in the tool messages (no new user message)."""
        if not self.awaits_reply:
            raise ValueError("no answered tool round to follow up")
        return [Message("system", self.system_prompt), *self.history]

    def commit(
        self,
        newest: Message,
        reply_text: str,
        *,
        cut: bool = False,
        cwd: str = "",
        tool_calls: Sequence[ToolCall] = (),
    ) -> None:
        """The exchange happened: both messages join the history exactly as sent. With
        `tool_calls` the reply opens a tool round: each call must be answered next."""
        self.history.append(newest)
        self.cwd_told = cwd or self.cwd_told
        if newest.role == "user" and (block := leading_block(newest.content)) is not None:
            self.background_told = "" if block == EMPTY_BACKGROUND else block
            self.background_forced = False
        if self.summary and render_summary_block(self.summary) in newest.content:
            self.summary_told = self.summary
        self._append_reply(reply_text, cut, tool_calls)
        self.pending.clear()
        self.notes.clear()

    def commit_follow_up(
        self, reply_text: str, *, cut: bool = False, tool_calls: Sequence[ToolCall] = ()
    ) -> None:
        """The model's reply to the tool results that end the history (see `commit`)."""
        if not self.awaits_reply:
            raise ValueError("a follow-up reply needs answered tool calls before it")
        self._append_reply(reply_text, cut, tool_calls)

    def _append_reply(self, text: str, cut: bool, tool_calls: Sequence[ToolCall]) -> None:
        text += "\n[reply cut short]" if cut else ""
        # A cut reply ran no tool: streams deliver calls only once the reply is complete.
        calls = () if cut else tuple(tool_calls)
        if len({call.id for call in calls}) != len(calls):
            raise ValueError("tool call ids must be distinct within a reply")
        self.history.append(Message("assistant", text, tool_calls=calls))

    def answer_tool_call(self, call_id: str, text: str) -> None:
        """The answer to one call of the open round, as the model will read it."""
        if call_id not in {call.id for call in self.unanswered_tool_calls()}:
            raise ValueError(f"no unanswered tool call {call_id!r}")
        self.history.append(Message("tool", text, tool_call_id=call_id))

    def unanswered_tool_calls(self) -> list[ToolCall]:
        """The calls of the last reply that have no answer yet (empty: no open round)."""
        answered: set[str | None] = set()
        for message in reversed(self.history):
            if message.role == "tool":
                answered.add(message.tool_call_id)
            elif message.role == "assistant":
                return [call for call in message.tool_calls if call.id not in answered]
            else:
                break
        return []

    @property
    def awaits_reply(self) -> bool:
        """Every call of the last reply is answered and the model has not replied yet."""
        return (
            bool(self.history)
            and self.history[-1].role == "tool"
            and not (self.unanswered_tool_calls())
        )

    def reset(self) -> None:
        self.history.clear()
        self.pending.clear()
        self.notes.clear()
        self.cwd_told = ""
        self.background_told = ""
        self.background_forced = False
        self.summary = ""
        self.summary_told = ""

    def answer_unanswered(self, text: str) -> list[ToolCall]:
        """Answer every call of the open round that has no answer yet with `text`."""
        calls = self.unanswered_tool_calls()
        for call in calls:
            self.answer_tool_call(call.id, text)
        return calls

    @classmethod
    def replay(
        cls, system_prompt: str, turns: Iterable[tuple[str, Mapping[str, Any]]]
    ) -> Conversation:
        """Rebuild a logged conversation: user messages exactly as they were sent, replies
        with their tool calls, the calls' answers, and the commands run after the last reply
        as pending context. A round aish died in the middle of is closed (`CALL_STOPPED`)."""
        conversation = cls(system_prompt)
        asked: Message | None = None
        partial = ""  # reply text logged while it streamed, before the reply was complete
        cwd = ""  # the cwd the logged question was asked in

        def died_mid_reply() -> None:  # keep what was shown
            if asked is not None and partial:
                conversation.commit(asked, partial, cut=True, cwd=cwd)
            elif partial and conversation.awaits_reply:
                conversation.commit_follow_up(partial, cut=True)

        for kind, payload in turns:
            if kind == "user":
                died_mid_reply()
                conversation.answer_unanswered(CALL_STOPPED)
                asked = Message("user", str(payload.get("message", payload.get("text", ""))))
                cwd = str(payload.get("cwd", cwd))
                partial = ""
            elif kind == "assistant_delta":
                partial += str(payload.get("text", ""))
            elif kind == "assistant":
                text, cut = str(payload.get("text", "")), bool(payload.get("cut"))
                calls = tool_calls_from(payload.get("tool_calls"))
                if asked is not None:
                    conversation.commit(asked, text, cut=cut, cwd=cwd, tool_calls=calls)
                elif conversation.awaits_reply:
                    conversation.commit_follow_up(text, cut=cut, tool_calls=calls)
                asked, partial = None, ""
            elif kind == "tool_result":
                call_id = str(payload.get("call_id", ""))
                if call_id in {call.id for call in conversation.unanswered_tool_calls()}:
                    conversation.answer_tool_call(call_id, str(payload.get("message", "")))
            elif kind == "command":
                conversation.note_command(_run_from(payload))
            elif kind == "note":
                conversation.note(str(payload.get("text", "")))
            elif kind == "reset":
                conversation.reset()
            elif kind == "evict":
                # Logged before the next question: an exchange aish died in is closed first,
                # as the live conversation had it when it evicted.
                died_mid_reply()
                conversation.answer_unanswered(CALL_STOPPED)
                asked, partial = None, ""
                summary = payload.get("summary")
                count = int(payload.get("exchanges", 0))
                conversation.evict(count, None if summary is None else str(summary))
        died_mid_reply()
        conversation.answer_unanswered(CALL_STOPPED)
        return conversation

    def as_seen_by_model(self, *, cwd: str = "") -> list[Message]:
        """What the next request would hold before the question (for `:history`)."""
        messages = [Message("system", self.system_prompt), *self.history]
        parts = [self.background_due(), self.summary_due()]
        if self.pending or self.notes:
            news = cwd if cwd and cwd != self.cwd_told else ""
            parts.append(render_context(self.pending, cwd=news, notes=self.notes))
        if any(parts):
            messages.append(Message("user", "\n\n".join(p for p in parts if p)))
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


def tool_calls_payload(calls: Sequence[ToolCall]) -> list[dict[str, str]]:
    """A reply's tool calls as a session-log payload; `tool_calls_from` reads them back."""
    return [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in calls]


def tool_calls_from(payload: object) -> tuple[ToolCall, ...]:
    if not isinstance(payload, list):
        return ()
    return tuple(
        ToolCall(str(c.get("id", "")), str(c.get("name", "")), str(c.get("arguments", "")))
        for c in payload
        if isinstance(c, Mapping)
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
