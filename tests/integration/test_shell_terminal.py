"""Terminal: the user's terminal relayed to the shell while a command runs. A second PTY
plays the user's terminal: the test types into its master and reads the screen from it."""

from __future__ import annotations

import asyncio
import fcntl
import os
import signal
import struct
import sys
import termios
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from aish.shell.terminal import Terminal
from tests.support.shell_harness import TIMEOUT_S, Harness, Recorder, open_shell


@pytest.fixture
async def sh(tmp_path: Path) -> AsyncIterator[Harness]:
    async with open_shell(tmp_path) as harness:
        yield harness


@contextmanager
def user_terminal(rows: int = 24, cols: int = 80) -> Iterator[tuple[int, int, Recorder]]:
    """(master, slave, screen): the slave is the "real terminal" aish runs in."""
    master, slave = os.openpty()
    set_size(master, rows, cols)
    screen = Recorder()
    loop = asyncio.get_running_loop()
    os.set_blocking(master, False)

    def on_readable() -> None:
        try:
            screen(os.read(master, 65536))
        except OSError:
            loop.remove_reader(master)

    loop.add_reader(master, on_readable)
    try:
        yield master, slave, screen
    finally:
        loop.remove_reader(master)
        os.close(master)
        os.close(slave)


def set_size(fd: int, rows: int, cols: int) -> None:
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))


async def test_keys_typed_reach_the_program_and_output_is_shown(sh: Harness) -> None:
    with user_terminal() as (master, slave, screen):
        before = termios.tcgetattr(slave)
        terminal = Terminal(slave, slave, sh.session)
        task = asyncio.ensure_future(
            sh.session.run('echo ready; read -r x; echo "got $x"', terminal=terminal)
        )
        try:
            await screen.wait_for(b"ready")
            raw = termios.tcgetattr(slave)
            assert not raw[3] & (termios.ICANON | termios.ECHO | termios.ISIG)
            os.write(master, b"hello\r")
            result = await asyncio.wait_for(task, TIMEOUT_S)
        finally:
            task.cancel()
        await screen.wait_for(b"got hello\r\n")
        assert result.output.text.splitlines()[-1] == "got hello"
        assert termios.tcgetattr(slave) == before
        assert not terminal.active


async def test_ctrl_c_typed_in_raw_mode_interrupts_the_program(sh: Harness) -> None:
    with user_terminal() as (master, slave, _screen):
        terminal = Terminal(slave, slave, sh.session)
        task = asyncio.ensure_future(sh.session.run("sleep 10", terminal=terminal))
        try:
            await sh.until_job_in_foreground()
            os.write(master, b"\x03")
            assert (await asyncio.wait_for(task, TIMEOUT_S)).exit_status == 130
        finally:
            task.cancel()


async def test_the_real_size_is_taken_and_sigwinch_is_forwarded(sh: Harness) -> None:
    script = (
        "import os, signal\n"
        "signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGWINCH})\n"
        "print(tuple(os.get_terminal_size()), flush=True)\n"
        "signal.sigwait({signal.SIGWINCH})\n"
        "print(tuple(os.get_terminal_size()))"
    )
    with user_terminal(33, 101) as (master, slave, screen):
        terminal = Terminal(slave, slave, sh.session)
        task = asyncio.ensure_future(
            sh.session.run(f'{sys.executable} -c "{script}"', terminal=terminal)
        )
        try:
            await screen.wait_for(b"(101, 33)")
            set_size(master, 40, 132)
            os.kill(os.getpid(), signal.SIGWINCH)
            result = await asyncio.wait_for(task, TIMEOUT_S)
        finally:
            task.cancel()
        assert result.output.text.splitlines() == ["(101, 33)", "(132, 40)"]
        assert (await sh.run("stty size")).output.text == "40 132"


async def test_terminal_is_restored_when_the_block_fails(sh: Harness) -> None:
    with user_terminal() as (_master, slave, _screen):
        before = termios.tcgetattr(slave)
        with pytest.raises(RuntimeError):
            async with Terminal(slave, slave, sh.session) as terminal:
                assert terminal.active
                assert termios.tcgetattr(slave) != before
                raise RuntimeError("boom")
        assert termios.tcgetattr(slave) == before


async def test_without_a_tty_output_is_still_shown(sh: Harness) -> None:
    read_end, write_end = os.pipe()
    out_read, out_write = os.pipe()
    try:
        terminal = Terminal(read_end, out_write)
        result = await sh.run("echo shown", terminal=terminal)
        assert result.output.text == "shown"
        assert os.read(out_read, 100) == b"shown\r\n"
    finally:
        for fd in (read_end, write_end, out_read, out_write):
            os.close(fd)


async def test_on_output_replaces_the_terminals_own_display(sh: Harness) -> None:
    with user_terminal() as (_master, slave, screen):
        shown = bytearray()
        terminal = Terminal(slave, slave)
        result = await sh.run("echo once", terminal=terminal, on_output=shown.extend)
        assert result.output.text == "once" and bytes(shown) == b"once\r\n"
        await sh.run("true")
        assert b"once" not in screen.data
