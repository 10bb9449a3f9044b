"""What a step waiting for input is said to wait at (`OutputTap`, `InputWait`), and the askpass
bridge end to end: a real socket in a private directory, the real helper as sudo runs it."""

from __future__ import annotations

import asyncio
import os
import stat
import sys
from pathlib import Path

import pytest

from aish.run.askpass import AskpassBridge
from aish.run.askpass.peer import Peer, refusal
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


async def _run(
    *argv: str, env: dict[str, str] | None = None, user: int | None = None
) -> tuple[int, bytes, bytes]:
    process = await asyncio.create_subprocess_exec(
        *argv,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, **(env or {})},
        user=user,
    )
    out, err = await process.communicate()
    return process.returncode or 0, out, err


async def _askpass(bridge: AskpassBridge, prompt: str) -> tuple[int, bytes]:
    """The helper as sudo runs it: a child of a sudo (the fake one, trusted as sudo by
    AISH_TRUSTED_SUDO), with the prompt as its argument; what it printed, as sudo read it."""
    code, out, _ = await _run(
        str(_PRINTING_SUDO), str(bridge.program), prompt, env={"SUDO_ASKPASS": ""}
    )
    return code, out


_PRINTING_SUDO: Path = Path()  # set by the fixture: a sudo stand-in that prints what it read


@pytest.fixture(autouse=True)
def _printing_sudo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A stand-in for sudo that runs the askpass program and prints its answer, so the test
    sees what sudo would get; trusted as sudo the way the e2e test's fake sudo is."""
    global _PRINTING_SUDO
    program = tmp_path / "printing-sudo"
    program.write_text('#!/bin/bash\nanswer=$("$1" "$2") || exit $?\nprintf "%s\\n" "$answer"\n')
    program.chmod(0o755)
    _PRINTING_SUDO = program
    monkeypatch.setenv("AISH_TRUSTED_SUDO", str(program))


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


async def test_a_program_that_is_not_sudo_is_refused_and_nobody_is_asked(
    caplog: pytest.LogCaptureFixture,
) -> None:
    bridge = await AskpassBridge.start()
    asked: list[str] = []

    async def ask(prompt: str) -> str | None:
        asked.append(prompt)
        return "correct horse"

    bridge.ask = ask
    program = str(bridge.program)
    try:
        # A script a step runs finds $SUDO_ASKPASS in its environment: its parent is a shell,
        # a Python, this test — anything but sudo running as root.
        for asker in (
            ("sh", "-c", '"$SUDO_ASKPASS" "[sudo] password for me: "'),
            (sys.executable, "-c", "import os, sys; os.execv(sys.argv[1], sys.argv[1:])", program),
        ):
            code, out, err = await _run(*asker, env={"SUDO_ASKPASS": program})
            assert (code, out) == (1, b"")
            assert b"refused: only sudo may ask aish for a password" in err
        code, out, _ = await _run(program, "direct: ")
        assert (code, out) == (1, b"")
        # A direct client of the socket gets the refusal before it can even ask.
        reader, writer = await asyncio.open_unix_connection(bridge.directory / "socket")
        writer.write(b"[sudo] password for me:\n")
        await writer.drain()
        assert await reader.read() == b"!\n"
        writer.close()
    finally:
        await bridge.close()
    assert asked == []
    refusals = [r.getMessage() for r in caplog.records if r.name == "aish.askpass"]
    assert len(refusals) == 4
    assert all("refused" in line and "not sudo" in line for line in refusals), refusals


async def test_sudo_not_running_as_root_is_no_sudo(monkeypatch: pytest.MonkeyPatch) -> None:
    # A program trusted as sudo counts only while it runs with euid 0, as the setuid sudo does.
    if os.getuid() != 0:
        pytest.skip("needs root to start a process as another user")
    monkeypatch.setenv("AISH_TRUSTED_SUDO", "/bin/sh")
    for user, said in ((0, None), (65534, "is not running as root (not sudo)")):
        parent = await asyncio.create_subprocess_exec(
            "/bin/sh", "-c", "sleep 30; :", user=user, stdout=asyncio.subprocess.DEVNULL
        )
        try:
            child = await _child_of(parent.pid)
            refused = refusal(Peer(child, os.getuid()))
            if said is None:
                assert refused is None
            else:
                assert refused == f"pid {child}'s parent {parent.pid} {said}"
        finally:
            parent.kill()
            await parent.wait()
    assert refusal(Peer(os.getpid(), os.getuid() + 1)) is not None  # another user
    assert refusal(None) is not None  # nobody the kernel could name


async def _child_of(pid: int) -> int:
    while True:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        if children:
            return int(children[0])
        await asyncio.sleep(0.05)


async def _askpass_gone(bridge: AskpassBridge) -> tuple[int, bytes]:
    try:
        return await _askpass(bridge, "late: ")
    except OSError:  # the launcher went with the directory
        return 127, b""
