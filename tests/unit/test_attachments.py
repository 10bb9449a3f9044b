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


def test_reading_a_huge_stream_keeps_memory_to_the_bounds() -> None:
    import io

    class Endless(io.RawIOBase):
        """2 million lines, generated as read: never all in memory at once."""

        def __init__(self) -> None:
            self.sent = 0

        def readable(self) -> bool:
            return True

        def readinto(self, buffer: bytearray) -> int:  # type: ignore[override]
            if self.sent >= 2_000_000:
                return 0
            lines = min(len(buffer) // 8, 2_000_000 - self.sent)
            data = b"".join(b"y%06d\n" % ((self.sent + i) % 1_000_000) for i in range(lines))
            buffer[: len(data)] = data
            self.sent += lines
            return len(data)

    from aish.conversation.attachments import read_bounded

    out = read_bounded(io.BufferedReader(Endless()), Bounds(max_lines=20, max_bytes=4096))
    lines = out.splitlines()
    assert lines[0] == "y000000" and lines[-1] == "y999999"
    assert "[… 1999980 lines omitted …]" in lines and len(lines) == 21


def test_small_stream_comes_back_exactly() -> None:
    import io

    from aish.conversation.attachments import read_bounded

    assert read_bounded(io.BytesIO(b"a\nb \xff\n")) == "a\nb \ufffd\n"
