"""Evicting whole exchanges from a conversation, and the rolling summary it then tells."""

from __future__ import annotations

from typing import Any

from aish.conversation.context import CommandRun, Conversation
from aish.conversation.summary import (
    SUMMARY_START,
    clip,
    render_summary_block,
    summarize_request,
    transcript_of,
)
from aish.llm.types import Message, ToolCall


def _conversation(exchanges: int) -> Conversation:
    conversation = Conversation("system prompt")
    for n in range(exchanges):
        conversation.commit(conversation.user_message(f"question {n}", cwd="/tmp"), f"answer {n}")
    return conversation


def test_evicting_drops_the_oldest_whole_exchanges() -> None:
    conversation = _conversation(4)
    dropped = conversation.evict(2)
    assert [m.content for m in dropped][-1] == "answer 1"
    assert conversation.exchange_count() == 2
    assert conversation.history[0].content.endswith("question 2")


def test_a_tool_call_never_loses_its_result() -> None:
    conversation = Conversation("s")
    conversation.commit(
        conversation.user_message("look it up"), "", tool_calls=[ToolCall("c1", "notes__get", "{}")]
    )
    conversation.answer_tool_call("c1", "the note")
    conversation.commit_follow_up("it says: the note")
    conversation.commit(conversation.user_message("thanks"), "welcome")
    dropped = conversation.evict(1)
    assert [m.role for m in dropped] == ["user", "assistant", "tool", "assistant"]
    assert [m.role for m in conversation.history] == ["user", "assistant"]


def test_evicting_more_than_there_is_empties_the_history() -> None:
    conversation = _conversation(2)
    assert len(conversation.evict(5)) == 4
    assert conversation.history == []
    assert conversation.evict(1) == []


def test_the_summary_is_told_with_the_next_message_once() -> None:
    conversation = _conversation(3)
    conversation.evict(2, "the user asked questions 0 and 1")
    newest = conversation.user_message("question 3")
    block = render_summary_block("the user asked questions 0 and 1")
    assert newest.content.startswith(block)
    assert newest.content.endswith("question 3")
    conversation.commit(newest, "answer 3")
    assert block not in conversation.user_message("question 4").content
    # The request keeps the system prompt untouched: the summary lives in a user message.
    assert conversation.request(newest)[0] == Message("system", "system prompt")


def test_the_summary_is_told_again_when_its_message_is_evicted() -> None:
    conversation = _conversation(1)
    conversation.evict(1, "first summary")
    conversation.commit(conversation.user_message("q"), "a")
    conversation.commit(conversation.user_message("r"), "b")
    assert conversation.summary_due() == ""
    # A failing summariser keeps the old summary: the message that told it left, so it is
    # told again.
    conversation.evict(1)
    assert conversation.summary_due() == render_summary_block("first summary")


def test_the_background_and_cwd_are_told_again_after_the_message_with_them_left() -> None:
    conversation = Conversation("s", background="[background]\n- (fact) x\n[end of background]")
    conversation.commit(conversation.user_message("q", cwd="/srv"), "a")
    conversation.commit(conversation.user_message("r", cwd="/srv"), "b")
    assert conversation.background_due() == ""
    conversation.evict(1)
    newest = conversation.user_message("s", cwd="/srv")
    assert newest.content.startswith("[background]")
    assert "cwd: /srv" in newest.content


def test_background_comes_first_then_the_summary() -> None:
    conversation = Conversation("s", background="[background]\n- (fact) x\n[end of background]")
    conversation.summary = "earlier: things"
    text = conversation.user_message("q").content
    assert text.index("[background]") < text.index(SUMMARY_START) < text.index("q")
    conversation.commit(conversation.user_message("q"), "a")
    assert conversation.background_told and conversation.summary_told == "earlier: things"


def _logged_exchange(live: Conversation, question: str, answer: str) -> list[Any]:
    newest = live.user_message(question, cwd="/tmp")
    live.commit(newest, answer, cwd="/tmp")
    return [("user", {"message": newest.content, "cwd": "/tmp"}), ("assistant", {"text": answer})]


def test_replaying_an_eviction_gives_the_same_conversation() -> None:
    live = Conversation("system prompt")
    log: list[Any] = []
    for n in range(3):
        log += _logged_exchange(live, f"question {n}", f"answer {n}")
    live.evict(2, "two exchanges")
    log.append(("evict", {"exchanges": 2, "summary": "two exchanges"}))
    log += _logged_exchange(live, "question 3", "answer 3")
    replayed = Conversation.replay("system prompt", log)
    assert replayed.history == live.history
    assert replayed.summary == live.summary == "two exchanges"
    assert replayed.summary_due() == live.summary_due() == ""


def test_replaying_an_eviction_after_aish_died_mid_reply() -> None:
    # aish died while the reply to q1 streamed; the resumed session evicted both exchanges.
    live = Conversation("system prompt")
    log = _logged_exchange(live, "q0", "a0")
    newest = live.user_message("q1")
    live.commit(newest, "part", cut=True)
    log += [("user", {"message": newest.content}), ("assistant_delta", {"text": "part"})]
    live.evict(2)
    log.append(("evict", {"exchanges": 2}))
    log += _logged_exchange(live, "q2", "a2")
    replayed = Conversation.replay("system prompt", log)
    assert replayed.history == live.history
    assert [m.content for m in replayed.history][-1] == "a2"
    assert len(replayed.history) == 2


def test_reset_forgets_the_summary() -> None:
    conversation = _conversation(2)
    conversation.evict(1, "s")
    conversation.reset()
    assert conversation.summary == "" and conversation.summary_due() == ""


def test_the_transcript_names_speakers_calls_and_cuts_long_output() -> None:
    run = CommandRun("ls", 0, "/", "/", 0.1, "x" * 5000)
    conversation = Conversation("s")
    conversation.note_command(run)
    messages = [
        conversation.user_message("what is here"),
        Message("assistant", "let me see", tool_calls=(ToolCall("1", "fs__list", '{"p":"/"}'),)),
        Message("tool", "a\nb", tool_call_id="1"),
    ]
    text = transcript_of(messages)
    assert text.startswith("user: [aish context]")
    assert '(called fs__list {"p":"/"})' in text
    assert "tool result: a\nb" in text
    assert "characters omitted" in text and len(text) < 2000


def test_the_summary_request_carries_the_summary_so_far_and_the_limit() -> None:
    [request] = summarize_request("so far: A", [Message("user", "B")], 500)
    assert "at most 500 characters" in request.content
    assert "<summary_so_far>\nso far: A\n</summary_so_far>" in request.content
    assert "user: B" in request.content


def test_clip_cuts_at_a_word() -> None:
    assert clip("short", 10) == "short"
    clipped = clip("alpha beta gamma delta epsilon", 17)
    assert len(clipped) <= 17 and clipped.endswith("…") and clipped.startswith("alpha beta")
