"""The aish side of the askpass bridge: a private socket and the program that talks to it.

One request per connection: the helper sends the prompt as one line; the bridge answers
`+<password>\n`, `-\n` for none, or `!\n` when the asker is refused. Only sudo's own askpass
child may ask (`peer`: a process of this user whose parent is sudo running as root); any
other process — a script a step runs, finding `$SUDO_ASKPASS` in its environment — is
refused and logged, and the user is never asked. Nothing of an answer is logged, kept or
repeated: a failed request is logged by its error's type alone.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shlex
import shutil
import sys
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path

from aish.run.askpass.peer import peer_of, refusal

__all__ = ["AskpassBridge"]

_log = logging.getLogger("aish.askpass")
_PROMPT_CHARS = 300
_REQUEST_TIMEOUT_S = 10.0


class AskpassBridge:
    """Serves askpass requests while it is open; `program` is what `SUDO_ASKPASS` names.
    `ask` is asked each prompt (None: nobody, every request gets no password)."""

    def __init__(self, directory: Path, server: asyncio.AbstractServer) -> None:
        self.directory = directory
        self._server = server
        self.ask: Callable[[str], Awaitable[str | None]] | None = None

    @property
    def program(self) -> Path:
        return self.directory / "askpass"

    @classmethod
    async def start(cls) -> AskpassBridge:
        directory = Path(tempfile.mkdtemp(prefix="aish-askpass-"))  # 0700
        path = directory / "socket"
        try:
            bridge: AskpassBridge | None = None

            async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
                assert bridge is not None
                await bridge._serve(reader, writer)

            server = await asyncio.start_unix_server(serve, path)
            os.chmod(path, 0o600)
            bridge = cls(directory, server)
            _write_program(bridge.program, path)
        except BaseException:
            shutil.rmtree(directory, ignore_errors=True)
            raise
        return bridge

    def environment(self) -> dict[str, str]:
        """What the agent's shell needs in its environment: the program, and the word for its
        rc file to make `sudo` mean `sudo -A -k` (sudo with a terminal reads SUDO_ASKPASS
        only with -A; -k so that every sudo asks, none runs on a cached credential)."""
        return {"SUDO_ASKPASS": str(self.program), "AISH_SUDO_ASKPASS": "1"}

    async def close(self) -> None:
        self._server.close()
        with contextlib.suppress(Exception):
            await self._server.wait_closed()
        shutil.rmtree(self.directory, ignore_errors=True)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            line = await asyncio.wait_for(reader.readline(), _REQUEST_TIMEOUT_S)
            channel = writer.get_extra_info("socket")
            refused = refusal(peer_of(channel) if channel is not None else None)
            if refused is not None:
                # Not sudo asking: a password here would go wherever that program prints it.
                # (Refused after reading its request: closing on unread data would reset the
                # connection, and the helper could not say why it failed.)
                _log.warning("askpass request refused: %s", refused)
                writer.write(b"!\n")
                await writer.drain()
                return
            prompt = line.decode("utf-8", "replace").strip()[:_PROMPT_CHARS] or "Password:"
            answer = await self.ask(prompt) if self.ask is not None else None
            reply = b"-\n" if answer is None else b"+" + answer.encode() + b"\n"
            del answer
            writer.write(reply)
            await writer.drain()
            del reply
        except Exception as error:  # the helper went away, a timeout: its type, never data
            _log.warning("an askpass request failed: %s", type(error).__name__)
        finally:
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()


def _write_program(program: Path, socket_path: Path) -> None:
    """A launcher sudo can run with the prompt as its one argument."""
    helper = Path(__file__).with_name("helper.py")
    words = " ".join(shlex.quote(str(w)) for w in (sys.executable, "-I", helper, socket_path))
    program.write_text(f'#!/bin/sh\nexec {words} "$@"\n')
    program.chmod(0o700)
