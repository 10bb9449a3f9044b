"""However much a command prints, capture holds a bounded amount of memory and text."""

from __future__ import annotations

import tracemalloc
from collections.abc import Iterator

from aish.shell.capture import OutputCapture

MB = 1 << 20
CHUNK = 64 * 1024


def realistic_output() -> bytes:
    """About 1 MB of what a huge output is made of: mostly log lines, and a little of each
    kind of output that takes another path (progress, redraws, wide text, a giant line)."""
    plain = b"".join(b"%6d compiling src/module_%d.c\r\n" % (i, i) for i in range(12_000))
    colour = b"".join(
        b"\x1b[01;34mdir%d\x1b[0m  \x1b[31mERROR\x1b[0m\x1b[K line %d\r\n" % (i, i)
        for i in range(6000)
    )
    progress = b"".join(b"\r %3d%% [%-50s]" % (i % 101, b"#" * (i % 51)) for i in range(200))
    redraw = b"".join(b"\x1b[2A\x1b[2Ka: %d\r\n\x1b[2Kb: %d\r\n" % (i, i) for i in range(100))
    unicode = "".join(f"行 {i} — café ✓ 中文\r\n" for i in range(2000)).encode()
    giant = b"0123456789" * 20_000 + b"\r\n"
    unit = plain + colour + progress + b"\r\n" + redraw + unicode + giant
    assert len(unit) > CHUNK
    return unit


def chunks_of_repeated(unit: bytes, total: int) -> Iterator[bytes]:
    """`total` bytes of `unit` repeated, in CHUNK pieces, never all in memory at once."""
    doubled = unit + unit
    for start in range(0, total, CHUNK):
        offset = start % len(unit)
        yield doubled[offset : offset + min(CHUNK, total - start)]


def test_fifty_megabytes_keep_memory_and_the_record_bounded() -> None:
    unit = realistic_output()
    total = 50 * MB
    tracemalloc.start()
    try:
        capture = OutputCapture()
        for chunk in chunks_of_repeated(unit, total):
            capture.feed(chunk)
        result = capture.result("make")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 20 * MB, f"peak {peak / MB:.1f} MB"
    assert result.total_bytes == total
    assert not result.binary
    lines = result.text.split("\n")
    assert len(lines) <= 200
    assert len(result.text.encode()) <= 16384 + 200
    assert result.omitted_lines == result.total_lines - (len(lines) - 1)
    assert result.total_lines > 500_000


def test_fifty_megabytes_of_binary_cost_nothing_more() -> None:
    unit = bytes(range(256)) * 1024
    tracemalloc.start()
    try:
        capture = OutputCapture()
        for chunk in chunks_of_repeated(unit, 50 * MB):
            capture.feed(chunk)
        result = capture.result()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 5 * MB
    assert result.text == f"[binary output, {50 * MB} bytes]"
