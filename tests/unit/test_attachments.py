"""Bounding piped text: head and tail kept, the rest counted."""

from __future__ import annotations

from aish.conversation.attachments import Bounds, bound_text, decode_lossless


def test_small_text_is_untouched() -> None:
    assert bound_text("a\nb\n") == "a\nb\n"


def test_many_lines_keep_head_and_tail_with_a_marker() -> None:
    text = "\n".join(f"line {i}" for i in range(1000))
    out = bound_text(text, Bounds(max_lines=10, max_bytes=10_000))
    lines = out.splitlines()
    assert lines[0] == "line 0" and lines[-1] == "line 999"
    assert "[… 990 lines omitted …]" in lines
    assert len(lines) == 11


def test_byte_bound_holds_for_long_lines_and_one_huge_line() -> None:
    text = "\n".join("x" * 500 for _ in range(100))
    assert len(bound_text(text, Bounds(max_lines=200, max_bytes=4096)).encode()) <= 4096 + 100
    huge = "é" * 100_000
    out = bound_text(huge, Bounds(max_bytes=1000))
    assert "bytes omitted" in out and len(out.encode()) < 1200


def test_invalid_utf8_is_replaced_not_fatal() -> None:
    assert decode_lossless(b"ok \xff\xfe end") == "ok \ufffd\ufffd end"
