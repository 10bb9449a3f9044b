"""The marker parser: aish's private shell-integration markers out of a PTY byte stream.

The integration scripts (``integration.bash``, ``integration.zsh``) report what the shell is doing
in-band, as a private OSC that carries a random per-session nonce::

    ESC ] 6973 ; <nonce> ; <kind> [; <value>] BEL        (or ESC \\ instead of BEL)

``kind`` is one letter (``A`` prompt start, ``B`` ready, ``C`` output starts, ``D`` done with the
exit status, ``P`` a property such as ``Cwd=…``, ``F`` continuation prompt, ``K`` a known-names
report section, ``E`` the exported variables were written to a file). Values escape backslash
and control bytes as ``\\\\`` and ``\\xNN`` so that a path holding BEL or ESC cannot end the
marker early.

In-band markers are ordered with the output by construction (an out-of-band channel would need a
timing heuristic to drain the PTY). The nonce is what makes them trustworthy: a program that prints
``ESC ] 6973 ; ; D ; 0 BEL`` with a wrong or missing nonce gets its bytes passed through as output.

The nonce changes at every prompt: the shell announces the next one with the current one
(``N;<next>``), and the parser takes it at once, for the rest of the same chunk too. A command
runs inside the shell and can read the nonce (`set` lists it), but what it prints reaches the
model only after its prompt, when that nonce is spent: a later line cannot use it.

The parser is pure and incremental: any split of the stream yields the same events, and it never
holds more than ``max_marker_bytes`` of a partial marker (garbage that starts like a marker but does
not end in time is released as output).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = [
    "MAX_MARKER_BYTES",
    "OSC_NUMBER",
    "Event",
    "Marker",
    "MarkerParser",
    "Output",
    "escape_value",
    "marker_bytes",
    "unescape_value",
]

OSC_NUMBER = 6973
MAX_MARKER_BYTES = 4096

_BACKSLASH = 0x5C
_MORE, _BAD = -1, -2  # "terminator lengths" that mean: wait for more bytes / not a marker
_ESCAPED = re.compile(rb"\\(\\|x[0-9A-Fa-f]{2})")
_NEXT_NONCE = re.compile(r"[0-9a-f]{16,64}")


def _prefix(nonce: str) -> bytes:
    return f"\x1b]{OSC_NUMBER};{nonce};".encode()


@dataclass(frozen=True, slots=True)
class Output:
    """Bytes of the stream that are not aish markers, verbatim."""

    data: bytes


@dataclass(frozen=True, slots=True)
class Marker:
    """One marker with the session's nonce: its kind letter and its unescaped value."""

    kind: str
    value: str = ""


Event = Output | Marker


def escape_value(text: str) -> str:
    """Escape a value the way the integration scripts do (used by tests and by aish itself)."""
    out = []
    for char in text:
        if char == "\\":
            out.append("\\\\")
        elif ord(char) < 0x20 or char == "\x7f":
            out.append(f"\\x{ord(char):02x}")
        else:
            out.append(char)
    return "".join(out)


def unescape_value(raw: bytes) -> str:
    """Undo the shell-side escaping; undecodable bytes (odd paths) survive as surrogates."""

    def one(match: re.Match[bytes]) -> bytes:
        token = match.group(1)
        return b"\\" if token == b"\\" else bytes([int(token[1:], 16)])

    return _ESCAPED.sub(one, raw).decode("utf-8", "surrogateescape")


def marker_bytes(nonce: str, kind: str, value: str | None = None) -> bytes:
    """The wire form of one marker, as the shell would print it."""
    body = kind if value is None else f"{kind};{escape_value(value)}"
    return f"\x1b]{OSC_NUMBER};{nonce};{body}\x07".encode("utf-8", "surrogateescape")


class MarkerParser:
    """Incremental splitter of a PTY stream into :class:`Output` and :class:`Marker` events."""

    def __init__(self, nonce: str, *, max_marker_bytes: int = MAX_MARKER_BYTES) -> None:
        if not nonce or ";" in nonce:
            raise ValueError("the nonce must be a non-empty string without ';'")
        self._prefix = _prefix(nonce)
        if max_marker_bytes <= len(self._prefix):
            raise ValueError("max_marker_bytes is too small for the marker prefix")
        self._max = max_marker_bytes
        # Bytes held back because they may still become a marker; always starts with ESC.
        self._held = b""

    @property
    def pending(self) -> int:
        """How many bytes are held back waiting for the rest of a possible marker."""
        return len(self._held)

    def feed(self, data: bytes) -> list[Event]:
        """Consume the next chunk; return the events it completes, in stream order."""
        buf = self._held + data if self._held else bytes(data)
        self._held = b""
        events: list[Event] = []
        out_start = 0  # start of output not yet emitted
        pos = 0  # where to look for the next marker
        prefix = self._prefix
        while True:
            start = buf.find(prefix, pos)
            if start < 0:
                hold = self._partial_prefix_at_end(buf, pos)
                self._emit(events, buf, out_start, hold)
                self._held = buf[hold:]
                return events
            body = start + len(prefix)
            end, term_len = self._terminator(buf, body, start + self._max)
            if term_len == _MORE:
                # Incomplete but still within the cap: wait for more bytes.
                self._emit(events, buf, out_start, start)
                self._held = buf[start:]
                return events
            if term_len == _BAD:
                # Over the cap, or malformed: not a marker after all, so its bytes are output.
                pos = start + 1
                continue
            self._emit(events, buf, out_start, start)
            marker = self._marker(buf[body:end])
            if marker.kind == "N":
                # The next nonce, announced with this one; the markers after it carry it.
                if _NEXT_NONCE.fullmatch(marker.value):
                    prefix = self._prefix = _prefix(marker.value)
            else:
                events.append(marker)
            out_start = pos = end + term_len

    def _partial_prefix_at_end(self, buf: bytes, pos: int) -> int:
        """Index of a trailing ESC… that is a proper prefix of the marker prefix, else len(buf)."""
        prefix, size = self._prefix, len(buf)
        esc = buf.find(b"\x1b", max(pos, size - len(prefix) + 1))
        while esc >= 0:
            if prefix.startswith(buf[esc:]):
                return esc
            esc = buf.find(b"\x1b", esc + 1)
        return size

    @staticmethod
    def _terminator(buf: bytes, body: int, cap_end: int) -> tuple[int, int]:
        """Find the BEL or ESC \\ that ends the marker whose payload starts at ``body``.

        A marker is valid only if it ends before ``cap_end``. Returns (index, length) of the
        terminator, or (-1, _MORE) when more bytes could still complete it, or (-1, _BAD).
        """
        size = len(buf)
        window = min(size, cap_end)
        bel = buf.find(b"\x07", body, window)
        esc = buf.find(b"\x1b", body, bel if bel >= 0 else window)
        if esc >= 0:
            if esc + 1 < size:
                ok = buf[esc + 1] == _BACKSLASH and esc + 2 <= cap_end
                return (esc, 2) if ok else (-1, _BAD)
            return (-1, _MORE) if esc + 2 <= cap_end else (-1, _BAD)
        if bel >= 0:
            return bel, 1
        return (-1, _MORE) if size < cap_end else (-1, _BAD)

    @staticmethod
    def _emit(events: list[Event], buf: bytes, start: int, end: int) -> None:
        if end > start:
            events.append(Output(buf[start:end]))

    @staticmethod
    def _marker(payload: bytes) -> Marker:
        kind, _, value = payload.partition(b";")
        return Marker(kind.decode("ascii", "replace"), unescape_value(value))
