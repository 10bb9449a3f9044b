"""Type-ahead: the keys the user typed before anything asked for them, kept in order.

Bash never throws type-ahead away: keys typed while a command runs reach it if it reads the
terminal, and what it did not read is the start of the next prompt's input, Enter included. aish
keeps that promise with one queue, prompt_toolkit's own type-ahead store (what the line editor
read beyond an Enter waits there, and every prompt is fed from it before it reads the terminal).
Around it, in order from oldest:

- the store itself (keys read by a prompt beyond the Enter that ended it);
- keys that reached the shell's PTY and that the command did not read (handed back by the
  shell, see ``aish.shell.protocol``);
- keys still unread on the terminal (typed while a reply streamed, or after a command ended).

A user's command gets the store's keys typed after its line (:func:`take_keys`); whatever it
leaves comes back with :func:`queue_keys`. A question (confirm, HALT, edit) is answered only by
keys typed while it is up: :func:`set_aside` holds the earlier ones and puts them back in front
of what the question left. The terminal's pending bytes are read only on a terminal — or on the
input a REPL running on a stand-in terminal named (`stand_in_for_terminal`: REPL flows run
in-process through `aish.ui.terminal_io`), whose pending bytes are read the same way, without
waiting.
"""

from __future__ import annotations

import contextlib
import os
import sys
import termios
from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from prompt_toolkit.input import Input
    from prompt_toolkit.key_binding import KeyPress

__all__ = ["queue_keys", "queue_unread", "set_aside", "stand_in_for_terminal", "take_keys"]

_READ_SIZE = 65536
# The input a REPL on a stand-in terminal reads its keys from (None: only a real terminal).
_stand_in: Input | None = None


def stand_in_for_terminal(terminal: Input | None) -> None:
    """Treat `terminal` (a pipe input) as the terminal keys are typed ahead on; None: stop."""
    global _stand_in
    _stand_in = terminal


def take_keys() -> bytes:
    """Everything queued for the next prompt, as the bytes that were typed (and no longer
    queued): keys typed after a line belong to its command first."""
    terminal = _terminal_input()
    if terminal is None:
        return b""
    from prompt_toolkit.input.typeahead import get_typeahead

    return _as_bytes(get_typeahead(terminal))


def queue_keys(data: bytes) -> None:
    """Queue ``data`` (typed keys) after whatever is queued, for the next prompt."""
    terminal = _terminal_input()
    if terminal is None or not data:
        return
    from prompt_toolkit.input.typeahead import store_typeahead

    store_typeahead(terminal, _as_keys(data))


def queue_unread() -> None:
    """Move keys still unread on the terminal into the queue (their place in the order is
    kept): what comes next must not take keys typed before it started."""
    terminal = _terminal_input()
    queue_keys(_read_pending(terminal.fileno()) if terminal is not None else b"")


@contextlib.contextmanager
def set_aside() -> Iterator[None]:
    """Inside, a prompt sees only keys typed from now on (a key pressed before a question was
    asked is no answer to it); on leaving, the keys set aside go back in front of whatever the
    prompt did not use."""
    terminal = _terminal_input()
    if terminal is None:
        yield
        return
    from prompt_toolkit.input.typeahead import get_typeahead, store_typeahead

    held = get_typeahead(terminal) + _as_keys(_read_pending(terminal.fileno()))
    try:
        yield
    finally:
        store_typeahead(terminal, held + get_typeahead(terminal))


def _on_a_terminal() -> bool:
    try:
        return sys.stdin.isatty()
    except (ValueError, AttributeError):  # closed or replaced stdin
        return False


def _terminal_input() -> Input | None:
    """The input every prompt reads (prompt_toolkit's session default): the queue's key. On
    a terminal, or a pipe input in its place; None otherwise (nothing is typed ahead)."""
    from prompt_toolkit.application.current import get_app_session

    terminal = get_app_session().input
    if (_stand_in is not None and terminal is _stand_in) or _on_a_terminal():
        return terminal
    return None


def _read_pending(fd: int) -> bytes:
    """Bytes typed but not read yet, a partial line included: read without waiting, with
    canonical mode off for the moment (the kernel then hands over a half line too). A pipe
    standing in for the terminal is read without waiting as it is."""
    try:
        before = termios.tcgetattr(fd)
    except termios.error:
        return _read_pipe_pending(fd)
    now = list(before)
    now[3] &= ~(termios.ICANON | termios.ECHO)
    now[6] = list(before[6])
    now[6][termios.VMIN], now[6][termios.VTIME] = 0, 0
    data = bytearray()
    try:
        termios.tcsetattr(fd, termios.TCSANOW, now)
        while chunk := _read_some(fd):
            data += chunk
    finally:
        termios.tcsetattr(fd, termios.TCSANOW, before)
    return bytes(data)


def _read_pipe_pending(fd: int) -> bytes:
    try:
        blocking = os.get_blocking(fd)
    except OSError:
        return b""
    data = bytearray()
    try:
        os.set_blocking(fd, False)
        while chunk := _read_some(fd):
            data += chunk
    finally:
        os.set_blocking(fd, blocking)
    return bytes(data)


def _read_some(fd: int) -> bytes:
    try:
        return os.read(fd, _READ_SIZE)
    except (BlockingIOError, InterruptedError):
        return b""
    except OSError:
        return b""


def _as_bytes(keys: list[KeyPress]) -> bytes:
    from prompt_toolkit.keys import Keys

    text = "".join(key.data for key in keys if key.key != Keys.CPRResponse)
    return text.encode("utf-8", "surrogateescape")


def _as_keys(data: bytes) -> list[KeyPress]:
    from prompt_toolkit.input.vt100_parser import Vt100Parser

    keys: list[KeyPress] = []
    parser = Vt100Parser(keys.append)
    parser.feed(data.decode("utf-8", "surrogateescape"))
    parser.flush()  # a lone ESC at the end is an Escape key, not the start of a sequence
    return keys
