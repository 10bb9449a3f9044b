"""What a step waiting for input is said to wait at (`OutputTap`, `InputWait`), and the askpass
bridge end to end: a real socket in a private directory, the real helper as sudo runs it."""

from __future__ import annotations

import asyncio
import os
import stat

from aish.run.askpass import AskpassBridge
from aish.run.input_wait import InputWait, OutputTap, Secret


def _tap(*chunks: bytes) -> OutputTap:
    tap = OutputTap()
    for chunk in chunks:
        tap(chunk)
    return tap


def test_the_prompt_is_the_last_line_as_a_person_reads_it() -> None:
    assert _tap(b"Reading...\r\n", b"Password: ").last_line() == "Password:"
    # Colours and a cursor dance out; what a carriage return overwrote, gone.
    shown = b"\x1b[1mDelete?\x1b[0m\r\n50%\r100%\r\n\x1b]0;title\x07Proceed? [y/N] "
    assert _tap(shown).last_line() == "Proceed? [y/N]"
    assert _tap(b"line\n\n\x1b[2J\x1b[H").last_line() == "line"
    assert _tap(b"x" * 5000 + b"\nok? ").partial_line() == b"ok? "
    assert len(_tap(b"y" * 5000).last_line()) == 200


def test_the_wait_is_described_with_its_prompt_or_its_kind() -> None:
    assert InputWait("c", "Password:", "password").describe() == "needs your input: Password:"
    assert InputWait("c", "", "screen").describe() == "needs your input: a full-screen program"


def test_a_secret_never_shows_itself() -> None:
    assert "hunter2" not in repr(Secret("hunter2"))
    assert "hunter2" not in str(Secret("hunter2"))


async def _askpass(bridge: AskpassBridge, prompt: str) -> tuple[int, bytes]:
    helper = await asyncio.create_subprocess_exec(
        str(bridge.program), prompt, stdout=asyncio.subprocess.PIPE
    )
    out, _ = await helper.communicate()
    return helper.returncode or 0, out


async def test_the_askpass_helper_gets_the_answer_aish_gives() -> None:
    bridge = await AskpassBridge.start()
    asked: list[str] = []

    async def ask(prompt: str) -> str | None:
        asked.append(prompt)
        return "correct horse" if len(asked) == 1 else None

    bridge.ask = ask
    try:
        assert stat.S_IMODE(os.stat(bridge.directory).st_mode) == 0o700
        assert stat.S_IMODE(os.stat(bridge.directory / "socket").st_mode) == 0o600
        assert await _askpass(bridge, "[sudo] password for me: ") == (0, b"correct horse\n")
        # No answer (the user declined, nobody there): it fails, as sudo expects.
        assert await _askpass(bridge, "again: ") == (1, b"")
        bridge.ask = None
        assert await _askpass(bridge, "anyone? ") == (1, b"")
    finally:
        await bridge.close()
    assert asked == ["[sudo] password for me:", "again:"]
    assert not bridge.directory.exists()
    # Closed: the helper says aish is not answering and fails.
    assert (await _askpass_gone(bridge))[0] != 0


async def _askpass_gone(bridge: AskpassBridge) -> tuple[int, bytes]:
    try:
        return await _askpass(bridge, "late: ")
    except OSError:  # the launcher went with the directory
        return 127, b""
