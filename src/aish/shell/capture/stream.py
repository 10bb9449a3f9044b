"""Decoded terminal output → events on a `ScrollbackScreen`, chunk by chunk.

This replaces pyte's `Stream` for capture. pyte's parser is a per-character generator:
too slow for 50 MB of output, and it keeps state without bound (an unterminated OSC string
or a CSI with endless digits is accumulated in full). Capture also needs things it does
not do: skip DCS/APC/PM/SOS payloads (pyte draws them as text), never raise on odd
parameters, and a fast path for the common case.

Grammar (ECMA-48, as xterm reads it): printable runs are drawn; C0 controls BS, HT, LF,
VT, FF, CR act, the rest (and C1 code points, DEL) are ignored; `ESC [` … final is a CSI;
`ESC ]`, `ESC P`, `ESC X`, `ESC ^`, `ESC _` open a string that BEL, ST, CAN, SUB or the
next ESC ends, its content ignored; other `ESC` sequences are intermediates + one final.
Colours (SGR) are dropped. A sequence cut by the end of a chunk is held back (at most
`MAX_SEQUENCE` characters) and finished with the next chunk, so where the input was split
never changes the result.

The fast path: at the start of a fresh row with nothing below (the normal state of a
command printing lines), a run of complete lines made of printable ASCII, tabs, SGR and
`ESC[K` is written with `ScrollbackScreen.push_lines`, which has the same effect as
drawing them one by one, at a fraction of the cost.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from aish.shell.capture.screen import ScrollbackScreen

__all__ = ["MAX_SEQUENCE", "TerminalStream"]

MAX_SEQUENCE = 256  # a longer CSI is malformed: it is read to its end and ignored

_TEXT = re.compile(r"[^\x00-\x1f\x7f-\x9f]+")
_PLAIN_LINE = r"(?:[^\x00-\x08\x0a-\x1f\x7f-\x9f]++|\x1b\[[0-9;]*+m|\x1b\[0?K)*+\r*+\n"
_ONE_PLAIN_LINE = re.compile(_PLAIN_LINE)
_PLAIN_LINES = re.compile(f"(?:{_PLAIN_LINE})++")
_SGR_OR_ERASE_RIGHT = re.compile(r"\x1b\[(?:[0-9;]*m|0?K)")
_STRING_END = re.compile(r"[\x07\x18\x1a\x1b\x9c]")
_CSI = re.compile(r"\x1b\[([\x30-\x3f]*)([\x20-\x2f]*)")
_CSI_BODY = re.compile(r"[\x20-\x3f]*")
_ESC = re.compile(r"\x1b([\x20-\x2f]*)")
_ESC_BODY = re.compile(r"[\x20-\x2f]*")
_STRING_OPENERS = frozenset("]PX^_")

_Handler = Callable[[list[int]], None]


def _first(args: list[int]) -> int | None:
    return args[0] if args else None


def _second(args: list[int]) -> int | None:
    return args[1] if len(args) > 1 else None


class TerminalStream:
    """Feeds decoded text to a `ScrollbackScreen` (see the module docstring)."""

    def __init__(self, screen: ScrollbackScreen) -> None:
        self._screen = screen
        self._pending = ""  # an escape sequence cut by the end of the last chunk
        self._in_string = False  # inside an OSC/DCS/APC/PM/SOS string
        # Inside an over-long sequence: what its body may contain, and its lowest final.
        self._discarding: tuple[re.Pattern[str], str] | None = None
        self._controls: dict[str, Callable[[], None]] = {
            "\x08": screen.backspace,
            "\t": screen.tab,
            "\n": screen.linefeed,
            "\x0b": screen.linefeed,
            "\x0c": screen.linefeed,
            "\r": screen.carriage_return,
        }
        self._escapes: dict[str, Callable[[], None]] = {
            "7": screen.save_cursor,
            "8": screen.restore_cursor,
            "D": screen.index,
            "E": screen.linefeed,
            "M": screen.reverse_index,
            "H": screen.set_tab_stop,
            "c": screen.reset,
        }
        self._csi: dict[str, _Handler] = self._csi_handlers(screen)

    @staticmethod
    def _csi_handlers(s: ScrollbackScreen) -> dict[str, _Handler]:
        def erase_display(a: list[int]) -> None:
            if (how := _first(a) or 0) <= 3:
                s.erase_in_display(how)

        def erase_line(a: list[int]) -> None:
            if (how := _first(a) or 0) <= 2:
                s.erase_in_line(how)

        def clear_tab(a: list[int]) -> None:
            if (how := _first(a) or 0) in (0, 3):
                s.clear_tab_stop(how)

        def scroll(method: Callable[[int | None], None]) -> _Handler:
            def handler(a: list[int]) -> None:
                if len(a) <= 1:  # xterm's 5-parameter `T` is mouse tracking, not scrolling
                    method(_first(a))

            return handler

        def unparametrised(method: Callable[[], None]) -> _Handler:
            def handler(a: list[int]) -> None:
                if not a:  # `CSI s` with parameters is DECSLRM, not a cursor save
                    method()

            return handler

        return {
            "@": lambda a: s.insert_characters(_first(a)),
            "A": lambda a: s.cursor_up(_first(a)),
            "B": lambda a: s.cursor_down(_first(a)),
            "C": lambda a: s.cursor_forward(_first(a)),
            "D": lambda a: s.cursor_back(_first(a)),
            "E": lambda a: s.cursor_down1(_first(a)),
            "F": lambda a: s.cursor_up1(_first(a)),
            "G": lambda a: s.cursor_to_column(_first(a)),
            "`": lambda a: s.cursor_to_column(_first(a)),
            "H": lambda a: s.cursor_position(_first(a), _second(a)),
            "f": lambda a: s.cursor_position(_first(a), _second(a)),
            "I": lambda a: s.forward_tab(_first(a)),
            "J": erase_display,
            "K": erase_line,
            "L": lambda a: s.insert_lines(_first(a)),
            "M": lambda a: s.delete_lines(_first(a)),
            "P": lambda a: s.delete_characters(_first(a)),
            "X": lambda a: s.erase_characters(_first(a)),
            "S": scroll(s.scroll_up),
            "T": scroll(s.scroll_down),
            "a": lambda a: s.cursor_forward(_first(a)),
            "d": lambda a: s.cursor_to_line(_first(a)),
            "e": lambda a: s.cursor_down(_first(a)),
            "g": clear_tab,
            "h": lambda a: s.set_mode(*a),
            "l": lambda a: s.reset_mode(*a),
            "r": lambda a: s.set_margins(_first(a), _second(a)),
            "s": unparametrised(s.save_cursor),
            "u": unparametrised(s.restore_cursor),
        }

    def feed(self, text: str) -> None:
        if self._pending:
            text = self._pending + text
            self._pending = ""
        screen = self._screen
        end = len(text)
        pos = 0
        while pos < end:
            if self._in_string:
                found = _STRING_END.search(text, pos)
                if found is None:
                    return
                self._in_string = False
                pos = found.start()
                if text[pos] != "\x1b":  # an ESC ends the string and starts a sequence
                    pos += 1
                continue
            if self._discarding is not None:
                body, lowest_final = self._discarding
                rest_of_body = body.match(text, pos)
                assert rest_of_body is not None  # the pattern accepts the empty string
                pos = rest_of_body.end()
                if pos == end:
                    return
                self._discarding = None
                if lowest_final <= text[pos] <= "\x7e":
                    pos += 1
                continue
            if (
                screen.cursor.x == 0
                and _ONE_PLAIN_LINE.match(text, pos) is not None  # costs one line at most
                and screen.ready_for_lines()
            ):
                lines = _PLAIN_LINES.match(text, pos)
                assert lines is not None
                after = self._push_lines(text, pos, lines.end())
                if after > pos:
                    pos = after
                    continue
            char = text[pos]
            if char >= "\x20" and not "\x7f" <= char <= "\x9f":
                run = _TEXT.match(text, pos)
                assert run is not None
                if not screen.alternate:
                    screen.draw(run.group())
                pos = run.end()
            elif char == "\x1b":
                after = self._escape(text, pos)
                if after < 0:
                    self._pending = text[pos:]
                    return
                pos = after
            else:
                control = self._controls.get(char)
                if control is not None and not screen.alternate:
                    control()
                pos += 1

    def _push_lines(self, text: str, start: int, stop: int) -> int:
        block = text[start:stop]
        if "\x1b" in block:
            block = _SGR_OR_ERASE_RIGHT.sub("", block)
        if "\r" in block:
            block = block.replace("\r", "")
        lines = block.split("\n")
        lines.pop()
        taken = self._screen.push_lines(lines)
        if taken == len(lines):
            return stop
        pos = start
        for _ in range(taken):
            pos = text.index("\n", pos) + 1
        return pos

    def _escape(self, text: str, pos: int) -> int:
        """Handles the sequence at `pos`; returns where it ends, or -1 if it is cut off."""
        if pos + 1 >= len(text):
            return -1
        opener = text[pos + 1]
        if opener == "[":
            return self._control_sequence(text, pos)
        if opener in _STRING_OPENERS:
            self._in_string = True
            return pos + 2
        match = _ESC.match(text, pos)
        assert match is not None
        final_at = match.end()
        if final_at - pos > MAX_SEQUENCE:
            self._discarding = (_ESC_BODY, "\x30")
            return final_at
        if final_at >= len(text):
            return -1
        final = text[final_at]
        if not "\x30" <= final <= "\x7e":
            return final_at  # aborted: the ESC is dropped, the character is read as usual
        if final_at == pos + 1:  # with intermediates it selects charsets & co: ignored
            action = self._escapes.get(final)
            if action is not None and (final == "c" or not self._screen.alternate):
                action()
        return final_at + 1

    def _control_sequence(self, text: str, pos: int) -> int:
        match = _CSI.match(text, pos)
        assert match is not None
        final_at = match.end()
        if final_at - pos > MAX_SEQUENCE:
            self._discarding = (_CSI_BODY, "\x40")
            return final_at
        if final_at >= len(text):
            return -1
        final = text[final_at]
        if not "\x40" <= final <= "\x7e":
            return final_at  # aborted: the character is read as usual
        if not match.group(2):  # with intermediates (`CSI ! p`, `CSI SP q`): ignored
            self._dispatch_csi(match.group(1), final)
        return final_at + 1

    def _dispatch_csi(self, params: str, final: str) -> None:
        if final == "m":
            return
        private = params.startswith("?")
        if private:
            params = params[1:]
        elif params[:1] in ("<", "=", ">"):
            return
        if params.strip("0123456789;"):
            return  # sub-parameters or stray markers: not a sequence capture acts on
        args = [min(int(p), 9999) if p else 0 for p in params.split(";")] if params else []
        screen = self._screen
        if private:
            if final == "h":
                screen.set_mode(*args, private=True)
            elif final == "l":
                screen.reset_mode(*args, private=True)
            elif final in "JK" and not screen.alternate:
                self._csi[final](args)  # selective erase: as plain erase
            return
        if screen.alternate:
            return
        handler = self._csi.get(final)
        if handler is not None:
            handler(args)
