"""ShellProtocol: what the marker stream means, as a state machine with no I/O of its own.

For each command aish types a private kill-line key (clearing a half-typed line), the command
(its newlines and control bytes quoted, so a multi-line command is one line for readline or ZLE),
a private key that marks the line as aish's, and Enter; then the keys the user typed ahead for
it, which wait in the PTY for the command as they would in bash. The shell answers:

    <echo of the line> C;1 <output> D;<status> P;Cwd=… A;<status> B

Type-ahead is the user's and is never thrown away: after ``D`` the shell waits, reading its
terminal, for :data:`END_OF_INPUT`. aish sends that key once it has stopped relaying the user's
keys, so everything before it is what the command did not read; the shell hands that back (in a
file) and aish makes it the start of its next prompt's input.

Everything before ``C`` is the line editor's echo and is dropped; output runs from ``C`` to
``D``; the command is finished when the prompt is ready again (``B``). A line that runs nothing
(a syntax error, a comment) has no ``C``: its output is what follows the echo. ``C;0`` is a line
the user typed ahead that the shell ran before aish's. Output outside any command (background
jobs, rc files, job notices) is background output; the line editor's own redraws are dropped.

Between commands aish may ask the shell a question by a private key whose binding answers it
without touching the history or ``$?``: the known names (``K;<section>`` markers, each followed by
its names, then ``K;end``) or the exported variables (written to a file, then ``E;<status>``).

The protocol acts on the world only through its :class:`ProtocolHost`, so it can be driven by a
scripted marker stream in tests.
"""

from __future__ import annotations

import asyncio
import enum
import logging
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from aish.shell.markers import Marker, MarkerParser, Output
from aish.shell.results import (
    HOOKS_RESTORED_NOTICE,
    INCOMPLETE_NOTICE,
    CommandResult,
    KnownNames,
)

if TYPE_CHECKING:
    from aish.shell.capture import OutputCapture

__all__ = [
    "END_OF_INPUT",
    "KILL_LINE",
    "MARK_INJECTED",
    "MARK_PRIVATE",
    "QUOTE_NEXT",
    "REINSTALL_HOOKS",
    "REPORT_ENV",
    "REPORT_NAMES",
    "REPORT_STATE",
    "EnvQuery",
    "NameQuery",
    "PendingCommand",
    "Phase",
    "ProtocolHost",
    "ShellProtocol",
    "encode_command",
]

# Private keys bound by the integration scripts (far outside what any terminal sends).
KILL_LINE = b"\x1b[5001~"
QUOTE_NEXT = b"\x1b[5002~"
MARK_INJECTED = b"\x1b[5003~"
REPORT_NAMES = b"\x1b[5004~"
REINSTALL_HOOKS = b"\x1b[5005~"
REPORT_ENV = b"\x1b[5006~"
REPORT_STATE = b"\x1b[5007~"
MARK_PRIVATE = b"\x1b[5008~"  # the line being accepted is not the user's: keep it out of history
END_OF_INPUT = b"\x1b[5009~"
# How the terminal echoes END_OF_INPUT when it arrives before the shell has turned echo off.
_END_OF_INPUT_ECHO = b"^[[5009~"

_log = logging.getLogger("aish.shell")

_CONTROL = re.compile(rb"[\x00-\x1f\x7f]")
# Terminal control without text: what readline and ZLE print around their prompt (clear to end
# of line, keypad and paste modes, attribute resets). Between commands that is display noise of
# the hidden prompt, not anybody's output, and must not reach the user's terminal.
_DISPLAY_NOISE = re.compile(
    rb"(?:\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[=>78]|[\r\x07\x08])*"
)
_ECHO_LIMIT = 64 * 1024  # echo kept to recover a syntax error's message
_NAMES_LIMIT = 4 * 1024 * 1024
_STARTUP_LIMIT = 8 * 1024  # start-up output kept to explain a failed start


def encode_command(command: str, *, private: bool = False) -> bytes:
    """The keystrokes that type ``command`` as one line and accept it as aish's own; a
    ``private`` line (one the user did not type) is also kept out of the shell's history."""
    body = command.rstrip("\n").encode("utf-8", "surrogateescape")
    quoted = _CONTROL.sub(lambda m: QUOTE_NEXT + m.group(), body)
    return KILL_LINE + quoted + MARK_INJECTED + (MARK_PRIVATE if private else b"") + b"\r"


class Phase(enum.Enum):
    STARTING = "starting"  # spawned, waiting for the first prompt
    READY = "ready"  # at the prompt: a command may be injected
    INJECTED = "injected"  # our line is typed, its output has not started
    RUNNING = "running"  # between C and D
    FINISHING = "finishing"  # after D, waiting for the prompt
    FOREIGN = "foreign"  # running a line the user typed ahead, not ours
    QUERY = "query"  # answering a NameQuery or an EnvQuery
    DEAD = "dead"


@dataclass(eq=False)
class PendingCommand:
    """A command typed into the shell, until its result is handed back."""

    text: str
    capture: OutputCapture
    sinks: tuple[Callable[[bytes], None], ...]  # verbatim output, for display
    cwd_before: str
    done: asyncio.Future[CommandResult]
    typeahead: bytes = b""  # keys the user typed after the line, typed after it in the PTY
    started_at: float = field(default_factory=time.perf_counter)
    status: int | None = None
    echo: bytearray = field(default_factory=bytearray)
    foreign: bool = False  # a typed-ahead line runs before ours
    incomplete: bool = False
    hooks_lost: bool = False
    detached: bool = False  # nobody waits any more: the rest of its output is background
    private: bool = False  # not typed by the user: kept out of the shell's history
    input_ended: bool = False  # END_OF_INPUT was sent: the shell hands back the unread keys

    def result(
        self, status: int, cwd_after: str, notice: str | None, typeahead: bytes = b""
    ) -> None:
        if not self.done.done():
            self.done.set_result(
                CommandResult(
                    command=self.text,
                    exit_status=status,
                    cwd_before=self.cwd_before,
                    cwd_after=cwd_after,
                    duration_s=time.perf_counter() - self.started_at,
                    output=self.capture.result(self.text),
                    notice=notice,
                    typeahead=typeahead,
                )
            )


@dataclass(eq=False)
class NameQuery:
    done: asyncio.Future[KnownNames]
    sections: dict[str, bytearray] = field(default_factory=dict)
    current: bytearray | None = None
    size: int = 0


@dataclass(eq=False)
class EnvQuery:
    """A report written to a file was asked for (the exported variables, or with
    :data:`REPORT_STATE` how names resolve); ``done`` gets the status of writing it."""

    done: asyncio.Future[int]
    key: bytes = REPORT_ENV


class ProtocolHost(Protocol):
    """The effects the protocol asks for."""

    def write(self, data: bytes) -> None: ...  # type into the PTY

    def end_input(self) -> None: ...  # stop relaying the user's keys to the PTY

    def take_typeahead(self) -> bytes: ...  # the keys the shell handed back after END_OF_INPUT

    def background(self, data: bytes) -> None: ...  # output outside any command

    def phase_changed(self) -> None: ...

    def cancel_continuation(self) -> None: ...  # Ctrl-C the shell's continuation prompt


class ShellProtocol:
    """Interprets one shell's byte stream; see the module docstring."""

    def __init__(self, host: ProtocolHost) -> None:
        self._host = host
        self._parser = MarkerParser("-")
        self.phase = Phase.DEAD
        self.cwd = ""
        self.command: PendingCommand | None = None
        self.query: NameQuery | EnvQuery | None = None
        self.startup_output = bytearray()
        self._last_prompt = ""  # the last A marker's value: a redraw repeats it
        self.edit_keys: str | None = None  # "vi" or "emacs", as the shell's line editor is set

    def starting(self, nonce: str) -> None:
        """A new shell process with this nonce was spawned."""
        self._parser = MarkerParser(nonce)
        self.startup_output.clear()
        self._set_phase(Phase.STARTING)

    def died(self) -> None:
        self._set_phase(Phase.DEAD)

    @property
    def awaiting_continuation(self) -> bool:
        """aish's line was incomplete and the shell still waits for the rest of it."""
        cmd = self.command
        return cmd is not None and cmd.incomplete and self.phase is Phase.INJECTED

    def inject(self, command: PendingCommand) -> None:
        """Type ``command`` at the ready prompt."""
        assert self.phase is Phase.READY and self.command is None
        self.command = command
        self._set_phase(Phase.INJECTED)
        self._host.write(encode_command(command.text, private=command.private) + command.typeahead)

    def ask_names(self, query: NameQuery) -> None:
        assert self.phase is Phase.READY and self.query is None
        self.query = query
        self._set_phase(Phase.QUERY)
        self._host.write(REPORT_NAMES)

    def ask_environment(self, query: EnvQuery) -> None:
        assert self.phase is Phase.READY and self.query is None
        self.query = query
        self._set_phase(Phase.QUERY)
        self._host.write(query.key)

    def forget_query(self, query: NameQuery | EnvQuery) -> None:
        """Nobody waits for this report any more; a late answer is ignored."""
        if self.query is query:
            self.query = None
            if self.phase is Phase.QUERY:
                self._set_phase(Phase.READY)

    def feed(self, data: bytes) -> None:
        for event in self._parser.feed(data):
            if isinstance(event, Output):
                self._on_output(event.data)
            else:
                self._on_marker(event)

    # ---------------------------------------------------------------------------- output

    def _set_phase(self, phase: Phase) -> None:
        self.phase = phase
        self._host.phase_changed()

    def _on_output(self, data: bytes) -> None:
        phase, cmd, query = self.phase, self.command, self.query
        if cmd is not None and phase is Phase.RUNNING:
            self._show(cmd, data)
        elif cmd is not None and phase is Phase.INJECTED and not cmd.foreign:
            cmd.echo += data
            if len(cmd.echo) > _ECHO_LIMIT:
                del cmd.echo[: len(cmd.echo) - _ECHO_LIMIT]
        elif query is not None and phase is Phase.QUERY:
            # Before the first section comes the line editor's own redraw: nobody's output.
            if (
                isinstance(query, NameQuery)
                and query.current is not None
                and query.size + len(data) <= _NAMES_LIMIT
            ):
                query.current += data
                query.size += len(data)
        else:
            if phase is Phase.FINISHING and cmd is not None and cmd.input_ended:
                data = data.replace(_END_OF_INPUT_ECHO, b"")  # aish's key, nobody's output
            if phase is Phase.STARTING:
                self.startup_output += data
                del self.startup_output[:-_STARTUP_LIMIT]
            self._background(data)

    def _background(self, data: bytes) -> None:
        if not _DISPLAY_NOISE.fullmatch(data):
            self._host.background(data)

    # --------------------------------------------------------------------------- markers

    def _on_marker(self, marker: Marker) -> None:
        kind, value, phase, cmd = marker.kind, marker.value, self.phase, self.command
        redrawn = kind == "A" and value == self._last_prompt  # a key binding's redraw repeats it
        if kind == "A":
            self._last_prompt = value
        if kind == "P":
            if value.startswith("Cwd="):
                self.cwd = value[4:]
            elif value in ("Keys=vi", "Keys=emacs"):
                self.edit_keys = value[5:]
        elif kind == "B":
            if phase in (Phase.STARTING, Phase.FOREIGN):
                self._set_phase(Phase.READY)
            elif phase is Phase.FINISHING and cmd is not None:
                self._finish(cmd)
            elif phase is Phase.INJECTED and cmd is not None:
                cmd.echo.clear()  # a redraw: the echo of our line follows the last B
        elif kind == "A":
            if phase is Phase.RUNNING and cmd is not None:
                # A prompt without D: the command replaced PROMPT_COMMAND; $? is in A too.
                cmd.status, cmd.hooks_lost = _status(value), True
                self._set_phase(Phase.FINISHING)
            elif phase is Phase.INJECTED and cmd is not None and not redrawn and _discarded(value):
                # bash took our line and dropped it before running anything, with no D: a
                # failed history expansion (`!nope`, `^old^new` that matches nothing). $? is
                # unchanged, as bash leaves it.
                self._ran_nothing(cmd, _status(value), keys_handed_back=False)
        elif kind == "C":
            if phase is Phase.INJECTED and cmd is not None:
                if value == "1":
                    # What the shell printed between taking the line and running it: the
                    # line a history expansion made (`!!` → `echo three`), as bash shows it.
                    self._show(cmd, strip_echo(bytes(cmd.echo), cmd.text))
                    self._set_phase(Phase.RUNNING)
                else:
                    cmd.foreign = True
            elif phase is Phase.READY:
                self._set_phase(Phase.FOREIGN)
        elif kind == "D":
            self._on_done(cmd, phase, _status(value))
        elif kind == "F":
            if phase is Phase.INJECTED and cmd is not None and not cmd.incomplete:
                cmd.incomplete = True
                self._host.cancel_continuation()
        elif kind == "K":
            self._on_names(value)
        elif kind == "E":
            self._on_environment(value)

    def _on_done(self, cmd: PendingCommand | None, phase: Phase, status: int) -> None:
        if cmd is None:
            return
        if phase is Phase.RUNNING:
            cmd.status = status
            self._end_input(cmd)
            self._set_phase(Phase.FINISHING)
        elif phase is Phase.INJECTED:
            if cmd.foreign:
                cmd.foreign = False  # the typed-ahead line is done; ours comes next
                return
            # Our line ran no command: a syntax error, a comment, or a cancelled continuation.
            self._ran_nothing(cmd, status, keys_handed_back=True)

    def _ran_nothing(self, cmd: PendingCommand, status: int, *, keys_handed_back: bool) -> None:
        """Our line is over without a command: what the shell said about it (a syntax error,
        `event not found`) is its output. Only after a D does the shell hand back the keys
        typed for it; without one it is at its next prompt and just stops getting them."""
        cmd.status = status
        if keys_handed_back:
            self._end_input(cmd)
        else:
            self._host.end_input()
        if not cmd.incomplete:
            self._show(cmd, strip_echo(bytes(cmd.echo), cmd.text))
        self._set_phase(Phase.FINISHING)

    def _show(self, cmd: PendingCommand, data: bytes) -> None:
        """The command's output: captured for the model, shown (or background once detached)."""
        if not data:
            return
        cmd.capture.feed(data)
        if cmd.detached:
            self._background(data)
        else:
            for sink in cmd.sinks:
                _deliver(sink, data)

    def _end_input(self, cmd: PendingCommand) -> None:
        """Keys the command did not read belong to the next prompt: the shell waits for this
        key and hands back what came before it (the relay stops first, so nothing follows)."""
        self._host.end_input()
        self._host.write(END_OF_INPUT)
        cmd.input_ended = True

    def _finish(self, cmd: PendingCommand) -> None:
        typeahead = self._host.take_typeahead() if cmd.input_ended else b""
        self.command = None
        self._set_phase(Phase.READY)
        notice = None
        if cmd.incomplete:
            notice = INCOMPLETE_NOTICE
        elif cmd.hooks_lost:
            notice = HOOKS_RESTORED_NOTICE
            self._host.write(REINSTALL_HOOKS)
        cmd.result(cmd.status if cmd.status is not None else 0, self.cwd, notice, typeahead)

    def _on_names(self, value: str) -> None:
        query = self.query
        if not isinstance(query, NameQuery) or self.phase is not Phase.QUERY:
            return
        if value != "end":
            query.current = query.sections.setdefault(value, bytearray())
            return
        self.query = None
        self._set_phase(Phase.READY)
        if not query.done.done():
            query.done.set_result(known_names(query.sections))

    def _on_environment(self, value: str) -> None:
        query = self.query
        if not isinstance(query, EnvQuery) or self.phase is not Phase.QUERY:
            return
        self.query = None
        self._set_phase(Phase.READY)
        if not query.done.done():
            query.done.set_result(_status(value))


def _deliver(sink: Callable[[bytes], None], data: bytes) -> None:
    """A consumer's failure must not break the PTY reader (nor lose the command's end)."""
    try:
        sink(data)
    except Exception:
        _log.exception("shell output consumer failed")


def _discarded(prompt_value: str) -> bool:
    """An A marker's `<$?>;1;<n>`: the prompt after a line aish typed that the shell never ran
    (bash's PS1 reports the injected-line flag that only PS0 and PROMPT_COMMAND clear)."""
    return prompt_value.split(";")[1:2] == ["1"]


def _status(value: str) -> int:
    try:
        return int(value.split(";", 1)[0])
    except ValueError:
        return 0


def strip_echo(echo: bytes, command: str) -> bytes:
    """What follows the line editor's echo of ``command``: one line per line of the command
    (long lines wrap by the terminal's auto-margin, so they add no newline)."""
    pos = 0
    for _ in range(command.rstrip("\n").count("\n") + 1):
        newline = echo.find(b"\n", pos)
        if newline < 0:
            return b""
        pos = newline + 1
    return echo[pos:]


def known_names(sections: dict[str, bytearray]) -> KnownNames:
    """Parse a names report: one name per line per section; aish's own functions left out."""

    def names(section: str) -> frozenset[str]:
        text = bytes(sections.get(section, b"")).decode("utf-8", "surrogateescape")
        found = (line.strip() for line in text.replace("\r", "\n").split("\n"))
        return frozenset(name for name in found if name and not name.startswith("__aish_"))

    return KnownNames(
        builtins=names("builtins"),
        keywords=names("keywords"),
        aliases=names("aliases"),
        functions=names("functions"),
    )
