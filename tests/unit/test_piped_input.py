"""Piped input for `aish ask`: rendered as a screen would show it, bounded while read."""

from __future__ import annotations

import io

from aish.agent.oneshot import read_piped


def _read(data: bytes, max_lines: int = 200, max_bytes: int = 16 * 1024) -> str | None:
    return read_piped(io.BytesIO(data), max_lines=max_lines, max_bytes=max_bytes)


def test_nothing_piped_is_none() -> None:
    assert _read(b"") is None


def test_small_text_is_kept_and_invalid_utf8_survives() -> None:
    assert _read(b"a\nb \xff end\n") == "a\nb \ufffd end"


def test_colour_codes_and_progress_bars_collapse() -> None:
    assert _read(b"\x1b[31mERROR\x1b[0m disk\n 10%\r 55%\r100%\n") == "ERROR disk\n100%"


def test_many_lines_keep_head_and_tail_with_an_exact_marker() -> None:
    out = _read(b"".join(b"line %d\n" % i for i in range(1000)), max_lines=10, max_bytes=10_000)
    assert out is not None
    lines = out.splitlines()
    assert lines[0] == "line 0" and lines[-1] == "line 999"
    kept = len(lines) - 1
    assert f"[… {1000 - kept} lines omitted …]" in lines and len(lines) <= 11


def test_byte_bound_holds_for_long_lines_and_one_huge_line() -> None:
    out = _read(b"\n".join(b"x" * 500 for _ in range(100)), max_bytes=4096)
    assert out is not None and len(out.encode()) <= 4096 + 100
    huge = _read(("é" * 100_000).encode(), max_bytes=1000)
    assert huge is not None and "bytes omitted" in huge and len(huge.encode()) < 1200


def test_binary_is_labelled() -> None:
    out = _read(bytes(range(256)) * 16)
    assert out is not None and out.startswith("[binary output")


def test_reading_a_huge_stream_keeps_memory_to_the_bounds() -> None:
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

    out = read_piped(io.BufferedReader(Endless()), max_lines=20, max_bytes=4096)
    assert out is not None
    lines = out.splitlines()
    assert lines[0] == "y000000" and lines[-1] == "y999999"
    kept = len(lines) - 1
    assert f"[… {2_000_000 - kept} lines omitted …]" in lines and len(lines) <= 21
