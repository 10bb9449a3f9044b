"""Big and binary output through a real bash on a real PTY: memory and the record stay bounded."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.support.shell_harness import Harness, open_shell

MB = 1024 * 1024


@pytest.fixture
async def sh(tmp_path: Path) -> AsyncIterator[Harness]:
    async with open_shell(tmp_path) as harness:
        yield harness


def rss_bytes() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS in /proc/self/status")


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs /proc")
async def test_fifty_megabytes_keep_memory_and_record_bounded(sh: Harness) -> None:
    await sh.run("true")  # everything a command needs is allocated once before measuring
    baseline = peak = rss_bytes()
    shown = 0

    def count(data: bytes) -> None:
        nonlocal shown
        shown += len(data)

    async def sample() -> None:
        nonlocal peak
        while True:
            peak = max(peak, rss_bytes())
            await asyncio.sleep(0.02)

    sampler = asyncio.ensure_future(sample())
    try:
        result = await asyncio.wait_for(
            sh.session.run(
                "head -c 50000000 /dev/zero | tr '\\0' 'a' | fold -w 100", on_output=count
            ),
            120,
        )
    finally:
        sampler.cancel()
    peak = max(peak, rss_bytes())
    assert result.exit_status == 0
    # 500,000 lines of 100 'a's: fold puts 499,999 newlines between them, which the PTY turns
    # into CR LF.
    assert shown == result.output.total_bytes == 50_000_000 + 2 * 499_999
    assert result.output.total_lines == 500_000
    assert result.output.omitted_lines > 0
    assert len(result.output.text.encode()) <= 16384 + 200
    assert peak - baseline < 30 * MB, f"RSS grew by {(peak - baseline) / MB:.1f} MB"
    assert (await sh.run("echo after")).output.text == "after"


async def test_binary_output_is_labelled(sh: Harness) -> None:
    result = await sh.run("head -c 4096 /dev/urandom")
    assert result.exit_status == 0
    assert result.output.binary
    assert result.output.text.startswith("[binary output")
    assert (await sh.run("echo after-binary")).output.text == "after-binary"


async def test_nul_and_high_bytes_pass_through_verbatim(sh: Harness) -> None:
    seen = bytearray()
    await sh.run("printf 'a\\000b\\377c\\n'", on_output=seen.extend)
    assert bytes(seen) == b"a\x00b\xffc\r\n"
