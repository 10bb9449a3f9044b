"""Terminal control sequences taken out of text that goes to a pipe or a file.

`aish ask … | cat` ends on a terminal all the same, so model text written to a pipe must not
carry what drives one: CSI sequences (cursor, colour, queries), OSC/DCS/APC/PM/SOS strings
(window title, clipboard writes, hyperlinks), C1 controls, lone ESCs and C0 controls other
than newline and tab (`aish.safety.unseen_chars` says which). On a terminal aish shows such
bytes as `^[` (`visible_text`); in a pipe a reader wants the text, so here the whole sequence
goes and every other character stays exact.

`ControlStripper` is incremental: a reply streams in pieces split anywhere, including inside a
sequence, and the result does not depend on where. A string that is never terminated ends at
the next line break (the line break is kept), so one stray `ESC ]` cannot swallow the rest of
a reply. Pure: no I/O.
"""

from __future__ import annotations

from enum import Enum, auto

from aish.safety.unseen_chars import CONTROL

__all__ = ["ControlStripper", "strip_controls"]

_ESC = "\x1b"
_BEL = "\x07"
_CAN_SUB = "\x18\x1a"  # abort a sequence in progress
_C1_CSI = "\x9b"
_C1_ST = "\x9c"
_C1_STRINGS = "\x90\x98\x9d\x9e\x9f"  # DCS, SOS, OSC, PM, APC
_ESC_STRINGS = "]PX^_"  # the 7-bit spellings of the same five
# What can never reach the output: C0 but newline and tab, DEL, C1 (defined once, with the
# invisible characters that are kept here: in a pipe they are text a reader may need).
_CONTROL = CONTROL


class _State(Enum):
    TEXT = auto()
    ESC = auto()  # after ESC
    CSI = auto()  # parameters and intermediates until a final byte
    ESCAPE_TAIL = auto()  # ESC + intermediates (nF: charset designations …) until a final
    STRING = auto()  # OSC, DCS, APC, PM, SOS body until ST or BEL
    STRING_ESC = auto()  # ESC inside a string: ST if `\` follows


class ControlStripper:
    """Feed text pieces, get them back without control sequences."""

    def __init__(self) -> None:
        self._state = _State.TEXT

    def feed(self, text: str) -> str:
        if self._state is _State.TEXT and not _CONTROL.search(text):
            return text  # the usual case: nothing to take out
        kept: list[str] = []
        for char in text:
            self._step(char, kept)
        return "".join(kept)

    def end(self) -> None:
        """The stream ended: a sequence cut off there is dropped, the next one starts clean."""
        self._state = _State.TEXT

    def _step(self, char: str, kept: list[str]) -> None:
        state = self._state
        if state is _State.TEXT:
            self._text(char, kept)
        elif state is _State.ESC:
            self._after_esc(char, kept)
        elif state is _State.CSI:
            if "\x20" <= char <= "\x3f":
                return  # parameters and intermediates
            self._state = _State.TEXT
            if not "\x40" <= char <= "\x7e":  # not a final byte: the sequence was broken off
                self._text(char, kept)
        elif state is _State.ESCAPE_TAIL:
            if "\x20" <= char <= "\x2f":
                return
            self._state = _State.TEXT
            if not "\x30" <= char <= "\x7e":
                self._text(char, kept)
        elif state is _State.STRING:
            self._in_string(char, kept)
        else:  # STRING_ESC: `ESC \` is the terminator; any other ESC starts a new sequence
            if char == "\\":
                self._state = _State.TEXT
            else:
                self._state = _State.ESC
                self._after_esc(char, kept)

    def _text(self, char: str, kept: list[str]) -> None:
        if char == _ESC:
            self._state = _State.ESC
        elif char == _C1_CSI:
            self._state = _State.CSI
        elif char in _C1_STRINGS:
            self._state = _State.STRING
        elif not _CONTROL.match(char):
            kept.append(char)

    def _after_esc(self, char: str, kept: list[str]) -> None:
        if char == "[":
            self._state = _State.CSI
        elif char in _ESC_STRINGS:
            self._state = _State.STRING
        elif "\x20" <= char <= "\x2f":
            self._state = _State.ESCAPE_TAIL
        elif "\x30" <= char <= "\x7e":
            self._state = _State.TEXT  # a two-character escape (ESC 7, ESC c, ESC \ …)
        else:  # a lone ESC: dropped, and what follows it is text again
            self._state = _State.TEXT
            self._text(char, kept)

    def _in_string(self, char: str, kept: list[str]) -> None:
        if char in (_BEL, _C1_ST) or char in _CAN_SUB:
            self._state = _State.TEXT
        elif char == _ESC:
            self._state = _State.STRING_ESC
        elif char == "\n":
            self._state = _State.TEXT  # never past a line: the rest of the reply stays
            kept.append(char)


def strip_controls(text: str) -> str:
    """`text` whole, without control sequences (see `ControlStripper`)."""
    return ControlStripper().feed(text)
