"""One definition of what is not seen as what it is: shown visibly, never `safe` in an action."""

from __future__ import annotations

import sys
import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from aish.agent import gate
from aish.safety.classifier import classify
from aish.safety.unseen_chars import UNSEEN, hidden_characters_reason, unseen_in
from aish.ui.render.control_sequences import strip_controls
from aish.ui.render.markdown_stream import without_hidden_references
from aish.ui.render.visible_text import visible


def test_every_format_and_separator_character_of_this_python_is_unseen() -> None:
    missing = [
        f"U+{code:04X}"
        for code in range(sys.maxunicode + 1)
        if unicodedata.category(chr(code)) in ("Cc", "Cf", "Zl", "Zp", "Cs")
        and chr(code) not in "\t\n"
        and not UNSEEN.match(chr(code))
    ]
    assert missing == []  # a newer Unicode added some: add them to `unseen_chars`


def test_ordinary_text_tabs_newlines_and_emoji_are_seen() -> None:
    text = "ls -la /tmp\tcafé 日本語 ❤️ — “quoted”\n"
    assert unseen_in(text) == [] and visible(text) == text


def test_bidi_and_zero_width_are_shown_by_code_point() -> None:
    assert visible("echo \u202etxt.exe\u200b") == "echo <U+202E>txt.exe<U+200B>"
    assert visible("a\u2066b\u2069c\ufeff\u00ad") == "a<U+2066>b<U+2069>c<U+FEFF><U+00AD>"
    assert visible("\U000e0041") == "<U+E0041>"  # a tag character
    assert visible("bad \udcff byte") == "bad \\xff byte"  # kept by surrogateescape


def test_controls_keep_their_caret_forms() -> None:
    assert visible("\x1b[8m\r\x07\x7f\x9b") == "^[[8m^M^G^?\\x9b"


@given(st.text())
def test_visible_leaves_nothing_unseen_and_is_idempotent(text: str) -> None:
    shown = visible(text)
    assert unseen_in(shown) == []
    assert visible(shown) == shown


def test_pipes_lose_the_sequences_but_keep_invisible_text() -> None:
    # In a pipe a reader wants the text: only what drives a terminal goes.
    assert strip_controls("a\x1b[8m\u202eb\u200bc") == "a\u202eb\u200bc"


def test_a_command_holding_them_is_destructive_and_says_why() -> None:
    verdict = classify("cat \u202etxt.sh")
    assert verdict.level == "destructive"
    assert "U+202E RIGHT-TO-LEFT OVERRIDE" in verdict.reasons[0]
    assert "almost always an attack" in verdict.reasons[0]
    assert classify("ls\u200b").level == "destructive"
    assert classify("echo a\rrm -rf ~").level == "destructive"
    assert classify("cat notes.txt").level == "safe"


def test_an_allow_rule_does_not_clear_them() -> None:
    from aish.safety.rules.user import UserRules

    rules = UserRules(allow=("ls *",))
    assert classify("ls x", rules).level == "safe"
    assert classify("ls x\u202e", rules).level == "destructive"


async def test_a_tool_call_holding_them_halts_even_from_a_trusted_read_only_tool() -> None:
    call = gate.ProposedToolCall(
        "files", "read", {"path": "notes\u202etxt.sh"}, {"readOnlyHint": True}, True
    )
    policy = gate.Policy(mode="norris")
    assessment = await gate.assess(call, policy)
    assert assessment.verdict.level == "destructive" and assessment.decision == "halt"
    plain = gate.ProposedToolCall(
        "files", "read", {"path": "notes.txt"}, {"readOnlyHint": True}, True
    )
    assert (await gate.assess(plain, policy)).verdict.level == "safe"


def test_the_reason_names_at_most_three() -> None:
    reason = hidden_characters_reason("\u202e\u200b\u200c\u200d")
    assert reason is not None and reason.count("U+") == 3 and "…" in reason
    assert hidden_characters_reason("plain") is None


def test_markdown_character_references_cannot_bring_them_back() -> None:
    source = "see &#x202E;txt.exe &#8203; &zwnj; &amp; &copy; &#65;"
    assert (
        without_hidden_references(source)
        == "see <U+202E>txt.exe <U+200B> <U+200C> &amp; &copy; &#65;"
    )
