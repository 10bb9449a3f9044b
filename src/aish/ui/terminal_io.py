"""Where the REPL reads keys and writes: the real terminal, or a stand-in for it.

The REPL touches the terminal in three ways: text (replies, status lines, listings), raw bytes
(a command's output, verbatim), and the two descriptors a running command is relayed between
(`aish.shell.terminal.Terminal`; with a stdin that is not a terminal nothing is relayed and no
mode is changed). The line editor and the confirm prompts are prompt_toolkit's, whose own seam
is its app session (`create_app_session(input=…, output=…)`): every prompt made inside one reads
and draws there.

`TerminalIO.real()` is the process's terminal. `TerminalIO.into(file)` writes everything to one
binary file and reads no keys but the app session's — what an embedding program, or a test that
runs REPL flows in-process with a pipe input, uses.
"""

from __future__ import annotations

import io
import os
import sys
from dataclasses import dataclass
from typing import BinaryIO, TextIO

__all__ = ["TerminalIO"]


@dataclass(frozen=True)
class TerminalIO:
    text: TextIO  # what aish says: replies, status lines, listings
    raw: BinaryIO  # a command's output, verbatim (flushed in order with `text`)
    stdin_fd: int  # relayed to a running command; its modes change only when it is a terminal
    stdout_fd: int  # where a running command's output goes while relayed
    # Not the process's terminal: the prompts' input (the app session's) stands in for it.
    stand_in: bool = False

    @classmethod
    def real(cls) -> TerminalIO:
        # The process's descriptors 0 and 1, whatever Python's stream objects are wrapping.
        return cls(sys.stdout, sys.stdout.buffer, 0, 1)

    @classmethod
    def into(cls, raw: BinaryIO, *, stdin_fd: int) -> TerminalIO:
        """Everything written to `raw` (a file opened for binary writing); `stdin_fd` is what a
        running command may read (a pipe's reading end, or /dev/null)."""
        text = io.TextIOWrapper(raw, encoding="utf-8", errors="replace", write_through=True)
        return cls(text, raw, stdin_fd, raw.fileno(), stand_in=True)

    def is_terminal(self) -> bool:
        """Whether text goes to a terminal (colour, the pager)."""
        return os.isatty(self.stdout_fd)

    def write_raw(self, data: bytes) -> None:
        self.text.flush()  # what was said before it stays before it
        self.raw.write(data)
        self.raw.flush()
