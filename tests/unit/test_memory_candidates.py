"""`:memory summarize`'s parser, transcript, and `:memory list`'s lines."""

from __future__ import annotations

from aish.agent.memory_summary import (
    SUMMARY_KIND,
    Candidate,
    parse_candidates,
    summary_request,
    transcript,
)
from aish.store import MemoryItem
from aish.ui.repl.meta.memory import age, item_lines


def test_plain_bulleted_numbered_and_bold_lines_are_candidates() -> None:
    reply = "\n".join(
        [
            "Here are some candidates:",
            "fact: uses uv",
            "- pref: terse answers",
            "* context: billing service",
            "1. fact: deploys on Fridays",
            "2) **pref:** dark theme",
            "- **Context**: works from Lisbon",
            "`fact: backticked`",
            "not a candidate: nothing",
            "facts: no",
            "fact:",
        ]
    )
    assert parse_candidates(reply) == [
        Candidate("fact", "uses uv"),
        Candidate("pref", "terse answers"),
        Candidate("context", "billing service"),
        Candidate("fact", "deploys on Fridays"),
        Candidate("pref", "dark theme"),
        Candidate("context", "works from Lisbon"),
        Candidate("fact", "backticked"),
    ]


def test_at_most_ten_and_no_repeats() -> None:
    reply = "fact: same\nfact: same\n" + "\n".join(f"fact: item {n}" for n in range(20))
    found = parse_candidates(reply)
    assert (
        len(found) == 10 and found[0] == Candidate("fact", "same") and found[1].content == "item 0"
    )


def test_transcript_leaves_out_earlier_summaries() -> None:
    turns = [
        ("user", {"text": "hello", "message": "[background]…hello"}),
        ("assistant", {"text": "hi"}),
        ("command", {"command": "ls", "output": "a\nb\n"}),
        ("meta", {"text": ":memory summarize"}),
        (SUMMARY_KIND, {"text": "fact: from before"}),
    ]
    text = transcript([(k, p) for k, p in turns if k != SUMMARY_KIND])
    assert text == "user: hello\nassistant: hi\n$ ls\na\nb"
    assert "from before" not in summary_request(text)[0].content


def test_age_in_its_largest_unit() -> None:
    assert [age(1000 - s, now=1000) for s in (5, 300, 7200, 3 * 86400)] == ["5s", "5m", "2h", "3d"]


def test_list_lines_show_id_age_kind_and_content() -> None:
    items = [MemoryItem(3, 700.0, "fact", "uses uv"), MemoryItem(12, 940.0, "pref", "terse\x1b[2J")]
    assert item_lines(items, now=1000.0) == [
        "   3    5m  fact     uses uv",
        "  12    1m  pref     terse^[[2J",
    ]
    assert item_lines([]) == ["nothing remembered (:remember <text> adds a fact)"]
