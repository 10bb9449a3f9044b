"""What a model's command may not make the terminal do beyond its screen.

A command the model proposed prints whatever its files, servers and repositories hold, and the
terminal acts on control sequences in it. Most only draw (colours, cursor, a title), but some
reach past the screen: OSC 52 writes (or reads) the clipboard, so a later paste types what
the output chose; a title report (CSI 21 t / 20 t) and DECRQSS (DCS $ q) make the terminal type
an answer into the shell's input, part of which the output chose (the title it set before).
`TerminalActionFilter` takes out exactly those from such a command's output and passes every
other byte through as it came. The user's own commands are not filtered: a program the user
runs may use the clipboard (vim, tmux copy over ssh), as under bash.

Only the 7-bit spellings (ESC ] …, ESC P …, ESC [ …): in UTF-8 output the 8-bit C1 bytes are
parts of characters (`Ý` is C3 9D), and UTF-8 terminals do not read them as introducers.

Incremental over bytes split anywhere: a sequence cut between two pieces is held back until it
is known (a few bytes: the OSC number, the CSI parameters, DCS's first two bytes); a dropped
string is swallowed up to its terminator however long. Pure: no I/O.
"""

from __future__ import annotations

import re
from typing import Literal

__all__ = ["TerminalActionFilter"]

_ESC = 0x1B
_BEL = 0x07
_CAN_SUB = (0x18, 0x1A)
_INTRODUCERS = {ord("]"): "osc", ord("P"): "dcs", ord("["): "csi"}

# DCS strings that make the terminal answer as typed input: DECRQSS (`$q`, a setting) and
# XTGETTCAP (`+q`, capabilities by the names asked).
_DCS_DROPPED = (b"$q", b"+q")
_OSC_CLIPBOARD = 52
_CSI_REPORTS = (20, 21)  # CSI 20 t / 21 t: report the icon label / window title
# A CSI with its parameters, intermediates and final byte.
_WHOLE_CSI = re.compile(rb"\x1b\[[\x30-\x3f]{0,16}[\x20-\x2f]*[\x40-\x7e]")
# Past this many bytes a head cannot be one to drop: released as it came.
_HEAD_LIMIT = 16


class TerminalActionFilter:
    """Feed a command's output in pieces; get it back without the sequences above."""

    def __init__(self) -> None:
        self._held = bytearray()  # a sequence start not yet decided (starts with ESC)
        self._swallowing = False  # inside a dropped string, until its terminator
        self._string_esc = False  # an ESC seen inside a dropped string (ST if `\` follows)

    def feed(self, data: bytes) -> bytes:
        if not self._held and not self._swallowing and _ESC not in data:
            return data  # the usual case: nothing that could act
        out = bytearray()
        i, size = 0, len(data)
        while i < size:
            if self._held or self._swallowing:
                self._step(data[i], out)  # inside a sequence: a byte at a time
                i += 1
                continue
            # Text runs up to the next ESC are copied whole (coloured output is mostly text).
            esc = data.find(_ESC, i)
            if esc < 0:
                out += data[i:]
                break
            out += data[i:esc]
            csi = _WHOLE_CSI.match(data, esc)
            if csi is not None:  # a whole CSI in this piece (colours, mostly): decided at once
                if _csi(csi[0][2:]) == "pass":
                    out += csi[0]
                i = csi.end()
                continue
            self._held.append(_ESC)
            i = esc + 1
        return bytes(out)

    def end(self) -> bytes:
        """The output ended: what was held back goes out as it came (it never acted)."""
        held, self._held = bytes(self._held), bytearray()
        self._swallowing = self._string_esc = False
        return held

    def _step(self, byte: int, out: bytearray) -> None:
        if self._swallowing:
            self._swallow(byte)
        elif self._held:
            self._held.append(byte)
            self._decide(out)
        elif byte == _ESC:
            self._held.append(byte)
        else:
            out.append(byte)

    def _swallow(self, byte: int) -> None:
        if self._string_esc:
            self._string_esc = False
            if byte == ord("\\"):
                self._swallowing = False
                return
        if byte == _BEL or byte in _CAN_SUB:
            self._swallowing = False
        elif byte == _ESC:
            self._string_esc = True

    def _decide(self, out: bytearray) -> None:
        """With one more byte held: drop, pass, or wait for more."""
        held = bytes(self._held)  # ESC and at least one byte more
        kind, head = _INTRODUCERS.get(held[1]), held[2:]
        if kind == "osc":
            verdict = _osc(head)
        elif kind == "dcs":
            verdict = _dcs(head)
        elif kind == "csi":
            verdict = _csi(head)
        else:
            verdict = "pass"  # not a sequence that can act
        if verdict == "pass" or (verdict == "wait" and len(head) > _HEAD_LIMIT):
            self._release(out)
        elif verdict != "wait":
            self._held.clear()
            self._swallowing = verdict == "swallow"

    def _release(self, out: bytearray) -> None:
        held = bytes(self._held)
        self._held.clear()
        out.append(held[0])
        # What followed the introducer may start a sequence of its own (`ESC ESC ] 52;`).
        for byte in held[1:]:
            self._step(byte, out)


# What to do with a sequence held so far: pass it on, wait for more, drop it whole, or swallow a
# string up to its terminator.
Verdict = Literal["pass", "wait", "drop", "swallow"]


def _osc(head: bytes) -> Verdict:
    # The terminal reads the number as a number: `052;` is the clipboard too.
    number, semicolon, _ = head.partition(b";")
    if not number.isdigit() and number:
        return "pass"
    if not semicolon:
        return "wait"
    return "swallow" if int(number or b"0") == _OSC_CLIPBOARD else "pass"


def _dcs(head: bytes) -> Verdict:
    if any(head.startswith(d) for d in _DCS_DROPPED):
        return "swallow"
    return "wait" if any(d.startswith(head) for d in _DCS_DROPPED) else "pass"


def _csi(head: bytes) -> Verdict:
    if not head or 0x30 <= head[-1] <= 0x3F:
        return "wait"  # parameters so far
    if head[-1] != ord("t") or not head[:-1] or not head[:-1].replace(b";", b"").isdigit():
        return "pass"
    first = head[:-1].split(b";", 1)[0]
    return "drop" if int(first or b"0") in _CSI_REPORTS else "pass"
