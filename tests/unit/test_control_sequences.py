"""Control sequences taken out of piped text: whole sequences go, every other character stays,
and where the stream was split never matters."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from aish.ui.render.control_sequences import ControlStripper, strip_controls

_LEFT_OVER = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")

CASES = [
    # (input, what a pipe gets)
    ("copy \x1b]52;c;aGVsbG8=\x07done", "copy done"),  # OSC 52 clipboard write, BEL
    ("t\x1b]2;pwned\x1b\\itle", "title"),  # OSC 2 window title, ST
    ("\x1b]8;;http://evil\x1b\\link\x1b]8;;\x1b\\", "link"),  # hyperlink
    ("\x9d52;c;QUJD\x9cafter", "after"),  # 8-bit OSC and ST
    ("\x1b[31mred\x1b[0m \x1b[?1049h\x1b[2J\x1b[1;1H", "red "),  # CSI
    ("\x9b31mred", "red"),  # 8-bit CSI
    ("a\x1bPq#0;2;0;0;0\x1b\\b", "ab"),  # DCS (sixel)
    ("a\x1b_Gf=100;AAAA\x1b\\b\x1b^pm\x1b\\c\x1bXsos\x1b\\d", "abcd"),  # APC, PM, SOS
    ("a\x1b(Bb\x1b7c\x1b8d\x1bce", "abcde"),  # charset, save/restore cursor, reset
    ("lone \x1b\nnext", "lone \nnext"),  # a lone ESC before a line break
    ("a\x1b\x1b[1mb", "ab"),
    ("bell\x07 cr\r bs\x08 nul\x00 del\x7f c1\x85 tab\tnl\n", "bell cr bs nul del c1 tab\tnl\n"),
    ("never ended \x1b]52;c;AAAA\nthe rest", "never ended \nthe rest"),
    ("cancelled \x1b]0;x\x18ok", "cancelled ok"),
    ("\x1b]0;x\x1b[31mstill stripped", "still stripped"),  # ESC inside a string restarts
    ("csi broken \x1b[12\nkept", "csi broken \nkept"),
    ("unicode ✓ — 日本語 😀 ﬁ", "unicode ✓ — 日本語 😀 ﬁ"),
]


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_sequences_go_and_text_stays(text: str, expected: str) -> None:
    assert strip_controls(text) == expected


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_every_split_point_gives_the_same_text(text: str, expected: str) -> None:
    for cut in range(len(text) + 1):
        stripper = ControlStripper()
        assert stripper.feed(text[:cut]) + stripper.feed(text[cut:]) == expected, cut


def test_a_sequence_cut_off_by_the_end_of_a_reply_does_not_reach_the_next() -> None:
    stripper = ControlStripper()
    assert stripper.feed("one \x1b]52;c;AA") == "one "
    stripper.end()
    assert stripper.feed("two") == "two"


_CONTROLS = ["\x1b", "\x07", "\x9b", "\x9c", "\x9d", "\x18", "\r", "\x00", "\x7f", "\x85"]
_ALPHABET = st.sampled_from([*"ab \n\t[];\\P_^X?0123456789m()7c", *_CONTROLS, "é", "😀"])


@given(st.lists(_ALPHABET, max_size=60).map("".join), st.lists(st.integers(0, 60), max_size=4))
def test_no_control_ever_left_and_splits_do_not_matter(text: str, cuts: list[int]) -> None:
    whole = strip_controls(text)
    assert not _LEFT_OVER.search(whole)
    stripper = ControlStripper()
    pieces, start = [], 0
    for cut in sorted(min(c, len(text)) for c in cuts):
        pieces.append(stripper.feed(text[start:cut]))
        start = cut
    pieces.append(stripper.feed(text[start:]))
    assert "".join(pieces) == whole


@given(st.text(alphabet=st.characters(blacklist_categories=("Cc", "Cs"))))
def test_text_without_controls_is_kept_exactly(text: str) -> None:
    assert strip_controls(text) == text
